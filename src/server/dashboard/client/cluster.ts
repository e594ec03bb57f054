/// <reference lib="dom" />
// One cluster: its windows now, pending changes from live status, overrides (with a form to add one) and its calendar feed.

import { html } from "htm/preact";
import type { VNode } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { LiveStatus } from "../../status/live.ts";
import type { StatusSources, TargetStatusView } from "../../status/newest.ts";
import type { WindowView } from "../../views/views.ts";
import { ApiError, call, get } from "./api.ts";
import { Origin } from "./fleet-patch.ts";
import { localTime, utcTime } from "./time.ts";

interface OverrideItem {
  name: string;
  window: string | null;
  action: string | null;
  reason: string | null;
  until: string | null;
  active: boolean;
  expired: boolean;
  valid: boolean;
  requestedBy: string | null;
  /** The fleet freeze it is part of, or null for one of the cluster's own. */
  fleetOverride?: string | null;
  /** A freeze of the fleet folder (fleet/freezes/<name>.yaml): one object for every cluster it matches, ended only for all of them. */
  fleetFolder?: boolean;
  /** With a windowSelector (window "*"): the windows of this cluster it picks. */
  windows?: string[] | null;
  path?: string;
  etag: string;
}

const STATE_TEXT: Record<string, string> = { open: "● open", closed: "○ closed", frozen: "❄ frozen", invalid: "⚠ invalid" };

function When(props: { iso: string | null; zone: string }): VNode {
  if (props.iso === null) return html`<span class="muted">—</span>`;
  return html`<span title=${utcTime(props.iso)}>${localTime(props.iso, props.zone)}<br /><span class="muted">${utcTime(props.iso)}</span></span>`;
}

const REPORTING_TEXT: Record<string, string> = { reporting: "reporting", stale: "⚠ stale: silent past the threshold", never: "has not reported yet" };

/** GET /clusters/{cluster}/status: live and pushed status, and each target from the newest of them. */
export type ClusterStatus = LiveStatus & { targets?: TargetStatusView[]; sources?: StatusSources };

/** Why a target does not do what was decided, in words: the controller's own sentence when it gave one, else what the cluster observed. */
function divergence(t: Pick<TargetStatusView, "state" | "suspended" | "gated" | "violation" | "problem">): string {
  if (t.problem !== null) return t.problem;
  if (t.state === "open") return "Decided open, but it is held: spec.suspend is true";
  const why = [
    ...(t.gated === false ? ["its sourceRef bypasses the gated source"] : t.gated === null && t.suspended === false ? ["spec.suspend is false"] : []),
    ...(t.violation !== null ? [`it applied ${t.violation} while closed`] : []),
  ];
  return `Decided closed, but ${why.join(", and ")}`;
}

/** Where a target's row comes from: live (read through the context now) or pushed (the cluster's newest event of it). */
function Source(props: { t: TargetStatusView }): VNode {
  const { t } = props;
  const other = t.other === null ? "" : `; ${t.other.source} is older (${utcTime(t.other.asOf)})`;
  return html`<span data-testid="source" title=${`${t.source === "live" ? "read through the cluster's context" : "the cluster's newest event of it"} at ${utcTime(t.asOf)}${other}`}>${t.source}</span>`;
}

/**
 * What the cluster itself reported through its pushed events (fluxgate serve --cluster-keys), per
 * target: what was decided (state, next change, what waits and since when, the last transition),
 * whether the target holds as decided, when it was last heard of and whether it went quiet, and
 * which source the row comes from when the cluster is also read live; above them, the openings and
 * freeze starts its windows announced (spec.notice) that are still to come.
 */
export function PushedPanel(props: { status: ClusterStatus | null; zone: string }): VNode | null {
  const p = props.status?.pushed;
  if (p === undefined || p === null) return null;
  const heard = new Map(p.targets.map((t) => [`${t.kind}/${t.namespace}/${t.name}`, t]));
  // The newest of live and pushed per target; an answer without them (an older service) shows what was pushed.
  const rows: TargetStatusView[] =
    props.status?.targets ??
    p.targets.map((t) => ({ ...t, source: "pushed", asOf: t.lastEventAt, other: null, nextChange: t.nextChange === "" ? null : t.nextChange }));
  return html`<div data-testid="pushed">
    <h4>Reported by the cluster</h4>
    <p data-testid="reporting" class=${`reporting ${p.reporting}`}>${REPORTING_TEXT[p.reporting]}${p.lastHeard === null ? null : html`; last heard <${When} iso=${p.lastHeard} zone=${props.zone} />`}</p>
    ${
      p.upcoming.length === 0
        ? null
        : html`<ul data-testid="upcoming">
            ${p.upcoming.map(
              (u) =>
                html`<li>Announced: window ${u.window ?? "?"} ${u.transition === "Open" ? "opens" : "freezes"} ${localTime(u.at, props.zone)} (${utcTime(u.at)}), to ${u.targets} target${u.targets === 1 ? "" : "s"}</li>`,
            )}
          </ul>`
    }
    ${
      rows.length === 0
        ? null
        : html`<table><thead><tr><th scope="col">Target</th><th scope="col">State</th><th scope="col">Windows</th><th scope="col">Next change</th><th scope="col">Waiting</th><th scope="col">Last transition</th><th scope="col">Last heard</th><th scope="col">Source</th></tr></thead>
          <tbody>${rows.map((t) => {
            const key = `${t.kind}/${t.namespace}/${t.name}`;
            const h = heard.get(key);
            return html`<tr data-target=${key} class=${t.diverged ? "diverged" : ""}>
              <th scope="row">${t.kind} ${t.namespace}/${t.name}</th>
              <td>${t.state === null ? "—" : html`<span class=${`state ${t.state}`}>${STATE_TEXT[t.state] ?? t.state}</span>`}${t.diverged ? html`<br /><span class="error" data-testid="diverged" title=${divergence(t)}>⚠ ${t.state === "open" ? "not open" : "not held"}: ${divergence(t)}</span>` : null}</td>
              <td>${t.windows ?? "—"}</td>
              <td>${t.nextChange === null ? html`<span class="muted">none due</span>` : html`<${When} iso=${t.nextChange} zone=${props.zone} />`}</td>
              <td>${t.pendingRevision === null ? html`<span class="muted">nothing</span>` : html`<code>${t.pendingRevision}</code>${t.pendingSince === null ? null : html` since ${utcTime(t.pendingSince)}`}`}</td>
              <td>${t.lastTransition === null ? html`<span class="muted">—</span>` : html`<${When} iso=${t.lastTransition} zone=${props.zone} />`}</td>
              <td>${h === undefined ? html`<span class="muted">never pushed</span>` : html`${h.lastReason} · ${utcTime(h.lastEventAt)}${h.stale ? html`<br /><span class="reporting stale" data-testid="target-stale">⚠ stale: silent past the threshold</span>` : null}`}</td>
              <td><${Source} t=${t} /></td>
            </tr>`;
          })}</tbody></table>`
    }
  </div>`;
}

/** Pending revisions and Git-versus-cluster drift, when the service has a live connection. */
export function LivePanel(props: { status: LiveStatus | null }): VNode {
  const s = props.status;
  if (s === null) return html`<p class="muted">Loading live status…</p>`;
  if (!s.live) return html`<p class="muted" data-testid="no-live">${s.message}</p>`;
  return html`<div data-testid="live">
    <p>Live from context <code>${s.context}</code>.</p>
    <h4>Pending changes (${s.pending.length})</h4>
    ${
      s.pending.length === 0
        ? html`<p class="muted">Nothing is waiting for a window.</p>`
        : html`<table><thead><tr><th>Window</th><th>Target</th><th>Applied</th><th>Pending</th><th>Waiting since</th></tr></thead>
          <tbody>${s.pending.map((p) => html`<tr><td>${p.window}</td><td>${p.kind} ${p.namespace}/${p.name}</td><td><code>${p.appliedRevision ?? "—"}</code></td><td><code>${p.pendingRevision}</code></td><td>${p.waitingSince === undefined ? "—" : utcTime(p.waitingSince)}</td></tr>`)}</tbody></table>`
    }
    ${
      s.drift.length > 0
        ? html`<h4>Git and cluster differ</h4><ul>${s.drift.map((d) => html`<li><code>${d.window}</code>: ${d.kind === "changed" ? "the cluster runs another spec (Flux has not applied the latest commit yet)" : d.kind === "not-applied" ? "in Git, not in the cluster yet" : "in the cluster, not in Git"}</li>`)}</ul>`
        : null
    }
  </div>`;
}

function OverrideForm(props: { cluster: string; windows: string[]; canDirect: boolean; live: boolean; onDone: () => void }): VNode {
  const [window, setWindow] = useState(props.windows[0] ?? "");
  const [action, setAction] = useState("Open");
  const [duration, setDuration] = useState("2h");
  const [reason, setReason] = useState("");
  const [direct, setDirect] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError(null);
    try {
      const answer = await call<{ commit: string; delivery: string }>("POST", `/api/v1/clusters/${encodeURIComponent(props.cluster)}/overrides`, {
        body: { window, action, duration, reason, ...(direct ? { delivery: "direct" } : {}) },
      });
      setResult(`Committed as ${answer.body.commit}${answer.body.delivery === "direct" ? " and created in the cluster" : ""}.`);
      setReason("");
      props.onDone();
    } catch (err) {
      setError(err instanceof ApiError || err instanceof Error ? err.message : String(err));
    }
  };
  return html`<form class="override-form" onSubmit=${(e: Event) => void submit(e)} aria-label="New override">
    <label class="field"><span class="field-label">Window</span>
      <select value=${window} onChange=${(e: Event) => setWindow((e.target as HTMLSelectElement).value)}>${props.windows.map((w) => html`<option value=${w}>${w}</option>`)}</select></label>
    <label class="field"><span class="field-label">Action</span>
      <select value=${action} onChange=${(e: Event) => setAction((e.target as HTMLSelectElement).value)}><option value="Open">Open (take changes now)</option><option value="Freeze">Freeze (take none)</option></select></label>
    <label class="field"><span class="field-label">For (at most 7 days)</span><input value=${duration} onInput=${(e: Event) => setDuration((e.target as HTMLInputElement).value)} /></label>
    <label class="field"><span class="field-label">Reason</span><input value=${reason} required onInput=${(e: Event) => setReason((e.target as HTMLInputElement).value)} /></label>
    ${
      props.canDirect && props.live
        ? html`<label class="check"><input type="checkbox" checked=${direct} onChange=${(e: Event) => setDirect((e.target as HTMLInputElement).checked)} /> Also create it in the cluster now (break-glass)</label>`
        : null
    }
    <button type="submit" class="primary">Create override</button>
    ${result !== null ? html`<p class="ok" role="status">${result}</p>` : null}
    ${error !== null ? html`<p class="error" role="alert">${error}</p>` : null}
  </form>`;
}

/** One override, with a button to end it early (asks why: the reason goes into the commit). */
function OverrideRow(props: { base: string; o: OverrideItem; canEnd: boolean; onDone: () => void }): VNode {
  const { o } = props;
  const [ending, setEnding] = useState(false);
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const end = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError(null);
    try {
      await call("DELETE", `${props.base}/overrides/${encodeURIComponent(o.name)}?reason=${encodeURIComponent(reason)}`, {
        headers: { "If-Match": `"${o.etag}"` },
      });
      setEnding(false);
      props.onDone();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  const status = o.active
    ? html`<strong>(active)</strong>`
    : html`<span class="muted">(${!o.valid ? "invalid" : o.expired ? "expired" : "not active yet"})</span>`;
  const fleet = o.fleetOverride ?? null;
  const folder = o.fleetFolder === true;
  const what = o.windows === null || o.windows === undefined ? o.window : o.windows.length === 0 ? "no window" : o.windows.join(", ");
  return html`<li data-override=${o.name}><code>${o.name}</code>: ${o.action} ${what} until ${o.until === null ? "?" : utcTime(o.until)}${o.requestedBy === null ? "" : `, by ${o.requestedBy}`} — ${o.reason} ${status}
    ${
      fleet === null
        ? null
        : folder
          ? html`<br /><span data-testid="fleet-override">fleet freeze <code>${fleet}</code> of the fleet folder (<code>${o.path ?? ""}</code>), one object for every cluster it matches: <a href="#/f">end it</a> from the fleet's windows and freezes</span>`
          : html`<br /><span data-testid="fleet-override">part of fleet freeze <code>${fleet}</code>, on every cluster it matched: <a href="#/f">end it everywhere</a> from the fleet's windows and freezes (ending it here ends this cluster's part only)</span>`
    }
    ${props.canEnd && !folder && !o.expired && !ending ? html` <button type="button" onClick=${() => setEnding(true)}>End now</button>` : null}
    ${
      ending
        ? html`<form class="inline" aria-label=${`End override ${o.name}`} onSubmit=${(e: Event) => void end(e)}>
          <label class="field"><span class="field-label">Why end it now?</span><input value=${reason} required onInput=${(e: Event) => setReason((e.target as HTMLInputElement).value)} /></label>
          <button type="submit" class="primary">End override</button> <button type="button" onClick=${() => setEnding(false)}>Cancel</button>
        </form>`
        : null
    }
    ${error !== null ? html`<p class="error" role="alert">${error}</p>` : null}
  </li>`;
}

/** Removes every expired override in one commit. */
function CleanUp(props: { base: string; count: number; onDone: () => void }): VNode {
  const [error, setError] = useState<string | null>(null);
  const clean = async (): Promise<void> => {
    try {
      await call("DELETE", `${props.base}/overrides?expired=true&reason=${encodeURIComponent("Remove expired overrides")}`);
      props.onDone();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return html`<p>${props.count} expired override${props.count === 1 ? " is" : "s are"} kept in Git as a record. <button type="button" onClick=${() => void clean()}>Remove expired overrides (one commit)</button>${error !== null ? html`<span class="error" role="alert"> ${error}</span>` : null}</p>`;
}

/** The page of one cluster. */
export function ClusterPage(props: { cluster: string; zone: string; permissions: string[]; token: string | null }): VNode {
  const [windows, setWindows] = useState<WindowView[] | null>(null);
  const [overrides, setOverrides] = useState<OverrideItem[]>([]);
  const [overridesError, setOverridesError] = useState<string | null>(null);
  const [status, setStatus] = useState<ClusterStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  const [calendarToken, setCalendarToken] = useState<string | null>(null);
  const base = `/api/v1/clusters/${encodeURIComponent(props.cluster)}`;
  useEffect(() => {
    get<{ windows: WindowView[] }>(`${base}/windows`)
      .then((b) => setWindows(b.windows))
      .catch((e: unknown) => setError(String((e as Error).message)));
    get<{ overrides: OverrideItem[] }>(`${base}/overrides`)
      .then((b) => {
        setOverrides(b.overrides);
        setOverridesError(null);
      })
      .catch((e: unknown) => setOverridesError(e instanceof Error ? e.message : String(e)));
    if (props.token !== null)
      get<{ token: string }>("/api/v1/calendar-token")
        .then((b) => setCalendarToken(b.token))
        .catch(() => setCalendarToken(null));
    get<ClusterStatus>(`${base}/status`)
      .then(setStatus)
      .catch((e: unknown) => setStatus({ cluster: props.cluster, live: false, message: String((e as Error).message) }));
  }, [props.cluster, round]);
  if (error !== null) return html`<p class="error" role="alert">${error}</p>`;
  // A calendar token reads the feed and nothing else: never the signed-in token, which may write.
  const calendar = `${location.origin}${base}/calendar.ics${calendarToken === null ? "" : `?access_token=${encodeURIComponent(calendarToken)}`}`;
  const canEnd = props.permissions.includes("write-overrides");
  const expired = overrides.filter((o) => o.expired && o.fleetFolder !== true).length;
  return html`<div class="cluster-page">
    <h2>${props.cluster} <span class="muted">${props.zone}</span></h2>
    <section aria-label="Windows">
      <h3>Windows</h3>
      ${
        windows === null
          ? html`<p>Loading…</p>`
          : html`<table class="windows">
            <thead><tr><th scope="col">Window</th><th scope="col">State now</th><th scope="col">Why</th><th scope="col">Next change</th><th scope="col">Mode</th><th scope="col">From</th></tr></thead>
            <tbody>${windows.map(
              (w) => html`<tr data-window=${w.name}>
                <th scope="row"><a href=${`#/c/${encodeURIComponent(props.cluster)}/w/${encodeURIComponent(w.name)}`}>${w.name}</a></th>
                <td><span class=${`state ${w.state}`}>${STATE_TEXT[w.state]}</span></td>
                <td>${w.reason}</td>
                <td>${w.nextTransition === null ? html`<span class="muted">none within a year</span>` : html`${w.nextTransition.state} at <${When} iso=${w.nextTransition.at} zone=${w.timeZone ?? props.zone} />`}</td>
                <td>${w.mode ?? "—"}</td>
                <td><${Origin} cluster=${props.cluster} name=${w.name} fleet=${w.fleet ?? null} path=${w.path} /></td>
              </tr>`,
            )}</tbody>
          </table>`
      }
      ${props.permissions.includes("write-windows") ? html`<p><a class="button" href=${`#/c/${encodeURIComponent(props.cluster)}/new`}>New window</a></p>` : null}
    </section>
    <section aria-label="Live status"><h3>Live status</h3><${LivePanel} status=${status} /><${PushedPanel} status=${status} zone=${props.zone} /></section>
    <section aria-label="Overrides">
      <h3>Overrides</h3>
      ${overridesError !== null ? html`<p class="error" role="alert">Could not read the overrides: ${overridesError}</p>` : null}
      ${
        overrides.length === 0
          ? html`<p class="muted">No overrides in Git.</p>`
          : html`<ul class="overrides">${overrides.map((o) => html`<${OverrideRow} key=${o.name} base=${base} o=${o} canEnd=${canEnd} onDone=${() => setRound(round + 1)} />`)}</ul>`
      }
      ${canEnd && expired > 0 ? html`<${CleanUp} base=${base} count=${expired} onDone=${() => setRound(round + 1)} />` : null}
      ${
        props.permissions.includes("write-overrides") && windows !== null && windows.length > 0
          ? html`<${OverrideForm} cluster=${props.cluster} windows=${windows.map((w) => w.name)} canDirect=${props.permissions.includes("deliver-directly")} live=${status?.live === true} onDone=${() => setRound(round + 1)} />`
          : null
      }
    </section>
    <section aria-label="Calendar">
      <h3>Calendar</h3>
      <p>Subscribe in Outlook or Google Calendar to the openings and freezes of ${props.cluster}:</p>
      <input class="wide" readonly value=${calendar} aria-label="Calendar feed address" onFocus=${(e: Event) => (e.target as HTMLInputElement).select()} />
      <p class="hint">The address carries a calendar token: it reads the calendar feeds and nothing else, and stops working when your token is replaced.</p>
    </section>
  </div>`;
}
