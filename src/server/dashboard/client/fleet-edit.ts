/// <reference lib="dom" />
// The fleet's own page: fleet windows (their selectors, the clusters that include and patch them) and fleet freezes, started for the clusters a selector
// matches and ended everywhere, each one commit.

import { html } from "htm/preact";
import type { VNode } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { FleetOverrideListing } from "../../../gitops/fleet/overrides.ts";
import type { FleetWindowListing } from "../../../gitops/fleet/windows.ts";
import { ApiError, call, get, listClusters, type ClusterItem } from "./api.ts";
import { fleetWindowAddress, matching, SelectorField, someNames } from "./fleet-patch.ts";
import { utcTime } from "./time.ts";

/** A fleet window as GET /fleet/windows lists it. */
type FleetWindowItem = FleetWindowListing;

/** A fleet freeze (fleet override) as GET /fleet/overrides lists it. */
type FleetOverrideItem = FleetOverrideListing;

/** An error of the API in words, with its field problems; never dropped. */
export function errorText(e: unknown): string {
  if (e instanceof ApiError) {
    const problems = e.problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join("; ");
    const wait = e.status === 429 ? ` (the service asked to slow down${e.retryAfter === null ? "" : `: try again in ${e.retryAfter}s`})` : "";
    return `${e.status}: ${e.message}${problems === "" || e.message.includes(problems) ? "" : ` (${problems})`}${wait}`;
  }
  return e instanceof Error ? e.message : String(e);
}

function FleetWindows(props: { windows: FleetWindowItem[] | null; canWrite: boolean }): VNode {
  return html`<section aria-label="Fleet windows">
    <h3>Fleet windows</h3>
    <p class="hint">One window shared by the clusters a selector matches: its base is changed once for all of them; a cluster that differs patches it (its zone, its schedules) on its own window page.</p>
    ${
      props.windows === null
        ? html`<p>Loading…</p>`
        : props.windows.length === 0
          ? html`<p class="muted">No fleet windows yet.</p>`
          : html`<table class="fleet-windows"><thead><tr><th scope="col">Fleet window</th><th scope="col">Selector</th><th scope="col">Clusters that include it</th><th scope="col">Patched by</th><th scope="col">Matched, not included</th></tr></thead>
            <tbody>${props.windows.map((w) => {
              const patched = w.clusters.filter((k) => k.patched).map((k) => k.name);
              return html`<tr data-fleet-window=${w.name}>
                <th scope="row"><a href=${fleetWindowAddress(w.name)}>${w.name}</a></th>
                <td><code>${w.selector ?? "none recorded"}</code></td>
                <td>${w.clusters.length}${w.clusters.length === 0 ? "" : `: ${someNames(w.clusters.map((k) => k.name))}`}</td>
                <td>${patched.length === 0 ? html`<span class="muted">none</span>` : someNames(patched)}</td>
                <td>${w.missing.length === 0 ? html`<span class="muted">none</span>` : html`<span class="error">⚠ ${someNames(w.missing)}</span>`}</td>
              </tr>`;
            })}</tbody></table>`
    }
    ${props.canWrite ? html`<p><a class="button" href="#/f/new">New fleet window</a></p>` : null}
  </section>`;
}

/** One fleet freeze, with a button to end it everywhere (asks why: the reason goes into the commit). */
function FleetOverrideRow(props: { o: FleetOverrideItem; canEnd: boolean; onDone: (message: string) => void }): VNode {
  const { o } = props;
  const [ending, setEnding] = useState(false);
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const clusters = [...new Set(o.overrides.map((x) => x.cluster))];
  const end = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError(null);
    try {
      const answer = await call<{ commit: string }>("DELETE", `/api/v1/fleet/overrides/${encodeURIComponent(o.name)}?reason=${encodeURIComponent(reason)}`);
      setEnding(false);
      props.onDone(`Ended ${o.name} on ${clusters.length} cluster${clusters.length === 1 ? "" : "s"} as commit ${answer.body.commit}.`);
    } catch (err) {
      setError(errorText(err));
    }
  };
  return html`<li data-fleet-override=${o.name}><code>${o.name}</code>: ${o.action} until ${utcTime(o.until)} — ${o.reason} <strong>(${o.stage})</strong>
    <br /><span class="muted">${o.overrides.length} override${o.overrides.length === 1 ? "" : "s"} on ${clusters.length} cluster${clusters.length === 1 ? "" : "s"}: ${someNames(clusters)}</span>
    ${props.canEnd && !ending && (o.stage === "active" || o.stage === "pending") ? html` <button type="button" onClick=${() => setEnding(true)}>End everywhere</button>` : null}
    ${
      ending
        ? html`<form class="inline" aria-label=${`End fleet freeze ${o.name}`} onSubmit=${(e: Event) => void end(e)}>
          <label class="field"><span class="field-label">Why end it now?</span><input value=${reason} required onInput=${(e: Event) => setReason((e.target as HTMLInputElement).value)} /></label>
          <button type="submit" class="primary">End on every cluster (one commit)</button> <button type="button" onClick=${() => setEnding(false)}>Cancel</button>
        </form>`
        : null
    }
    ${error !== null ? html`<p class="error" role="alert">✗ ${error}</p>` : null}
  </li>`;
}

/** Starts a fleet freeze (or opening): one commit with an override for every window of every cluster the selector matches. */
function FleetFreezeForm(props: { clusters: readonly ClusterItem[] | null; onDone: (message: string) => void }): VNode {
  const [selector, setSelector] = useState("");
  const [action, setAction] = useState("Freeze");
  const [until, setUntil] = useState("");
  const [reason, setReason] = useState("");
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const match = matching(selector, props.clusters);
  // The box reads the time as UTC, as the list shows it: no browser zone is guessed.
  const untilAt = until === "" ? Number.NaN : Date.parse(`${until}${until.length === 16 ? ":00" : ""}Z`);
  const untilProblem =
    until === ""
      ? "say until when (UTC)"
      : Number.isNaN(untilAt)
        ? `"${until}" is not a time`
        : untilAt <= Date.now()
          ? `${utcTime(untilAt)} is in the past: a freeze ends after now`
          : null;
  const nameProblem =
    name !== "" && !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(name)
      ? `"${name}" is not a name: lower-case letters, digits and '-', starting and ending with a letter or digit`
      : null;
  const selectorProblem = match.error;
  const ready = selectorProblem === null && untilProblem === null && nameProblem === null && reason.trim() !== "" && !busy;
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    if (!ready) return;
    setBusy(true);
    setError(null);
    try {
      const answer = await call<{ commit: string; name: string; until: string; overrides: Array<{ cluster: string }> }>("POST", "/api/v1/fleet/overrides", {
        body: { selector, action, until: new Date(untilAt).toISOString().replace(/\.000Z$/, "Z"), reason, ...(name === "" ? {} : { name }) },
      });
      const clusters = [...new Set(answer.body.overrides.map((o) => o.cluster))];
      props.onDone(
        `Started ${answer.body.name}: ${action === "Freeze" ? "frozen" : "open"} until ${utcTime(answer.body.until)} on ${clusters.length} cluster${clusters.length === 1 ? "" : "s"} (${someNames(clusters)}) as commit ${answer.body.commit}.`,
      );
      setReason("");
      setName("");
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="fleet-freeze-form" aria-label="Start a fleet freeze" onSubmit=${(e: Event) => void submit(e)}>
    <h4>Start a fleet freeze</h4>
    <${SelectorField} value=${selector} error=${selector === "" ? null : selectorProblem} matches=${selector === "" || props.clusters === null ? null : match.names} onInput=${setSelector} />
    <label class="field"><span class="field-label">Action</span>
      <select data-testid="freeze-action" value=${action} onChange=${(e: Event) => setAction((e.target as HTMLSelectElement).value)}><option value="Freeze">Freeze (take no changes)</option><option value="Open">Open (take changes now)</option></select></label>
    <label class="field"><span class="field-label">Until (UTC)</span>
      <input type="datetime-local" data-testid="freeze-until" value=${until} aria-invalid=${until !== "" && untilProblem !== null} onInput=${(e: Event) => setUntil((e.target as HTMLInputElement).value)} />
      ${until !== "" && untilProblem !== null ? html`<span class="field-error" role="note">⚠ ${untilProblem}</span>` : null}</label>
    <label class="field"><span class="field-label">Reason</span><input data-testid="freeze-reason" value=${reason} onInput=${(e: Event) => setReason((e.target as HTMLInputElement).value)} /></label>
    <label class="field"><span class="field-label">Name (optional)</span><input data-testid="freeze-name" value=${name} aria-invalid=${nameProblem !== null} onInput=${(e: Event) => setName((e.target as HTMLInputElement).value)} />
      ${nameProblem !== null ? html`<span class="field-error" role="note">⚠ ${nameProblem}</span>` : null}</label>
    <button type="submit" class="primary" disabled=${!ready}>${busy ? "Starting…" : "Start on every matching cluster (one commit)"}</button>
    ${!ready && !busy ? html`<p class="hint">${selectorProblem !== null ? "Give a selector that matches a cluster." : untilProblem !== null ? "Say until when, after now." : nameProblem !== null ? "Fix the name." : "Say why."}</p>` : null}
    ${error !== null ? html`<p class="error" role="alert" data-testid="freeze-error">✗ ${error}</p>` : null}
  </form>`;
}

function FleetFreezes(props: {
  overrides: FleetOverrideItem[] | null;
  clusters: readonly ClusterItem[] | null;
  canWrite: boolean;
  onDone: (message: string) => void;
}): VNode {
  return html`<section aria-label="Fleet freezes">
    <h3>Fleet freezes</h3>
    <p class="hint">Stop (or open) every window of every cluster a selector matches, until a time: one commit, listed and ended as one.</p>
    ${
      props.overrides === null
        ? html`<p>Loading…</p>`
        : props.overrides.length === 0
          ? html`<p class="muted" data-testid="no-fleet-overrides">No fleet freezes in Git.</p>`
          : html`<ul class="fleet-overrides">${props.overrides.map((o) => html`<${FleetOverrideRow} key=${o.name} o=${o} canEnd=${props.canWrite} onDone=${props.onDone} />`)}</ul>`
    }
    ${props.canWrite ? html`<${FleetFreezeForm} clusters=${props.clusters} onDone=${props.onDone} />` : null}
  </section>`;
}

/** The fleet's windows and freezes. */
export function FleetEditPage(props: { permissions: string[] }): VNode {
  const [windows, setWindows] = useState<FleetWindowItem[] | null>(null);
  const [overrides, setOverrides] = useState<FleetOverrideItem[] | null>(null);
  const [clusters, setClusters] = useState<readonly ClusterItem[] | null>(null);
  const [round, setRound] = useState(0);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    get<{ windows: FleetWindowItem[] }>("/api/v1/fleet/windows")
      .then((b) => setWindows(b.windows))
      .catch((e: unknown) => setError(errorText(e)));
    get<{ overrides: FleetOverrideItem[] }>("/api/v1/fleet/overrides")
      .then((b) => setOverrides(b.overrides))
      .catch((e: unknown) => setError(errorText(e)));
  }, [round]);
  useEffect(() => {
    listClusters()
      .then(setClusters)
      .catch((e: unknown) => setError(errorText(e)));
  }, []);
  const done = (text: string): void => {
    setMessage(text);
    setRound((r) => r + 1);
  };
  return html`<div class="fleet-edit">
    <h2>Fleet windows and freezes</h2>
    ${error !== null ? html`<p class="error" role="alert">✗ ${error}</p>` : null}
    ${message !== null ? html`<p class="ok" role="status" data-testid="fleet-edit-result">✓ ${message}</p>` : null}
    <${FleetWindows} windows=${windows} canWrite=${props.permissions.includes("write-windows")} />
    <${FleetFreezes} overrides=${overrides} clusters=${clusters} canWrite=${props.permissions.includes("write-overrides")} onDone=${done} />
  </div>`;
}
