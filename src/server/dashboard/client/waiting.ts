/// <reference lib="dom" />
// The fleet page's panel of waiting changes: each revision waiting somewhere, on how many clusters, and when each group of them takes it (GET /fleet/waiting).

import { html } from "htm/preact";
import type { VNode } from "preact";
import type { FleetWaiting, WaitingRelease } from "../../status/waiting.ts";
import { hourMinute, utcTime } from "./time.ts";

/** `main@sha1:1a2b3c4d…` → `main@1a2b3c4`. */
export function shortRevision(revision: string): string {
  const m = /^(.*?)@(?:sha1|sha256):([0-9a-f]{7})[0-9a-f]*$/.exec(revision);
  return m === null ? revision : `${m[1]}@${m[2]}`;
}

function clustersText(n: number): string {
  return `${n} cluster${n === 1 ? "" : "s"}`;
}

/** When a group takes the revision, in UTC and in its clusters' zones. */
function when(g: WaitingRelease): string {
  if (g.at === null) return "at no planned time";
  if (g.state === "frozen") return `when the freeze ends, ${utcTime(g.at)}`;
  if (g.state === "open") return "now: the window is open";
  const zones = g.timeZones.slice(0, 4).map((z) => `${hourMinute(g.at as string, z)} ${z}`);
  return `at ${utcTime(g.at)}${zones.length === 0 ? "" : ` (${zones.join(", ")}${g.timeZones.length > 4 ? ", …" : ""})`}`;
}

function Release(props: { g: WaitingRelease }): VNode {
  const g = props.g;
  const more = g.clusters - g.names.length;
  return html`<li data-testid="waiting-release">
    <strong>${g.clusters}</strong> ${when(g)}${g.windows === null ? "" : ` by ${g.windows}`}${g.stale > 0 ? html` <span class="error">⚠ ${g.stale} stale</span>` : null}: <span class="muted">${g.names.join(", ")}${more > 0 ? ` and ${more} more` : ""}</span>
  </li>`;
}

/** "main@1a2b3c4 waits on 412 clusters", then one line per group: "300 at 2026-11-28 21:00 UTC (22:00 CET Europe/Berlin) by fleet-changes: …". */
export function WaitingPanel(props: { waiting: FleetWaiting | null }): VNode | null {
  const w = props.waiting;
  if (w === null) return null;
  if (w.revisions.length === 0) return html`<p data-testid="fleet-waiting" class="muted">No change waits for a window on any cluster.</p>`;
  return html`<section data-testid="fleet-waiting" aria-label="Changes waiting">
    <h3>Waiting for a window: ${clustersText(w.totals.clusters)}</h3>
    ${w.revisions.map(
      (r) => html`<div data-revision=${r.revision}>
        <p><code title=${r.revision}>${shortRevision(r.revision)}</code> waits on ${clustersText(r.clusters)}${r.oldestSince === null ? "" : `, the oldest since ${utcTime(r.oldestSince)}`}</p>
        <ul>${r.releases.map((g) => html`<${Release} g=${g} />`)}</ul>
      </div>`,
    )}
  </section>`;
}
