/// <reference lib="dom" />
// A fleet window as one cluster has it: where it comes from (the fleet's base, its selector, the cluster's patch), and the cluster's patch of it edited or
// removed.

import { html } from "htm/preact";
import type { VNode } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import type { FleetOrigin } from "../../model/model.ts";
import type { WindowView } from "../../views/views.ts";
import { ApiError, call, get, type ClusterItem } from "./api.ts";
import { draftOf, newSchedule, specOf, type Draft, type RecurrenceDraft } from "./draft.ts";
import { usePreview } from "./editor-io.ts";
import { Field, FieldError, Select, ZONES } from "./fields.ts";
import { RecurrenceFields } from "./recurrence.ts";
import { matchesSelector, parseSelector } from "./selector.ts";

const windowAddress = (cluster: string, name: string): string => `#/c/${encodeURIComponent(cluster)}/w/${encodeURIComponent(name)}`;
export const fleetWindowAddress = (name: string): string => `#/f/w/${encodeURIComponent(name)}`;

/** The clusters a selector matches, or why it cannot be read (or matches none, once the clusters are known). */
export function matching(text: string, clusters: readonly ClusterItem[] | null): { names: string[]; error: string | null } {
  if (text.trim() === "") return { names: [], error: "say which clusters, e.g. region=eu" };
  let names: string[];
  try {
    const selector = parseSelector(text, "selector");
    names = (clusters ?? []).filter((k) => matchesSelector(selector, k.labels)).map((k) => k.name);
  } catch (e) {
    return { names: [], error: e instanceof Error ? e.message : String(e) };
  }
  return { names, error: clusters !== null && names.length === 0 ? `selector ${JSON.stringify(text)} matches no cluster` : null };
}

/** Names for a line of text: the first few, and how many in all. */
export const someNames = (list: readonly string[]): string => `${list.slice(0, 8).join(", ")}${list.length > 8 ? `, … (${list.length})` : ""}`;

/** The selector box of a fleet window or a fleet freeze, with why it cannot be read, or the clusters it matches. */
export function SelectorField(props: { value: string; error: string | null; onInput: (v: string) => void; matches?: readonly string[] | null }): VNode {
  const matches = props.matches ?? null;
  return html`<label class="field"><span class="field-label">Clusters (label selector)</span>
    <input data-testid="fleet-selector" placeholder="ring=prod" value=${props.value} aria-invalid=${props.error !== null} aria-describedby=${props.error !== null ? "fleet-selector-error" : undefined} onInput=${(e: Event) => props.onInput((e.target as HTMLInputElement).value)} />
    ${props.error !== null ? html`<span class="field-error" id="fleet-selector-error" role="note">⚠ ${props.error}</span>` : null}
    ${props.error === null && matches !== null ? html`<span class="hint" data-testid="selector-matches">Matches ${matches.length} cluster${matches.length === 1 ? "" : "s"}${matches.length === 0 ? "" : `: ${someNames(matches)}`}.</span>` : null}
  </label>`;
}

/** Where a cluster's window comes from, in words: the cluster's own file, or a fleet window's base and whether the cluster patches it. */
export function originText(fleet: FleetOrigin | null, path: string): string {
  if (fleet === null) return `the cluster's own window (${path})`;
  const selector = fleet.selector === null ? "" : `, selector ${fleet.selector}`;
  return `fleet window ${fleet.window} (base ${fleet.base}${selector}), ${fleet.patch === null ? "not patched: the base as it is" : "patched for this cluster"}`;
}

/** A cluster's window's origin with the ways to change it: the base (whole fleet) or the cluster's patch; the file for a window of its own. */
export function Origin(props: { cluster: string; name: string; fleet: FleetOrigin | null; path: string }): VNode {
  const f = props.fleet;
  if (f === null) return html`<span data-testid="origin">own file <code>${props.path}</code></span>`;
  return html`<span data-testid="origin">fleet window <a href=${fleetWindowAddress(f.window)}>${f.window}</a>${f.selector === null ? null : html` (selector <code>${f.selector}</code>)`}, <strong>${f.patch === null ? "not patched" : "patched for this cluster"}</strong>${" · "}<a href=${fleetWindowAddress(f.window)}>Edit the base (whole fleet)</a> · <a href=${windowAddress(props.cluster, props.name)}>${f.patch === null ? "Patch for this cluster" : "Change this cluster's patch"}</a></span>`;
}

/** A window lane's origin under its chosen band: asked for when the band is chosen (the fleet timeline does not carry it). */
export function LaneOrigin(props: { cluster: string; window: string }): VNode {
  const [view, setView] = useState<WindowView | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    get<WindowView>(`/api/v1/clusters/${encodeURIComponent(props.cluster)}/windows/${encodeURIComponent(props.window)}`)
      .then(setView)
      .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  }, [props.cluster, props.window]);
  if (error !== null) return html`<p class="error" role="alert">Where ${props.window} comes from could not be read: ${error}</p>`;
  if (view === null) return html`<p class="muted">Where ${props.window} comes from…</p>`;
  return html`<p class="lane-origin">${props.window} is the <${Origin} cluster=${props.cluster} name=${props.window} fleet=${view.fleet} path=${view.path} /></p>`;
}

/** Which parts of the fleet window a cluster's patch changes, read from the patch as written. */
function patchedParts(fleet: FleetOrigin): { timeZone: boolean; schedules: boolean } {
  const text = fleet.patch?.patch ?? "";
  return { timeZone: text.includes("/spec/timeZone"), schedules: text.includes("/spec/schedules") };
}

/** A fleet window as one cluster has it: where it comes from, the base's editor for the whole fleet, and the cluster's patch (zone, schedules). */
export function FleetWindowOnCluster(props: { cluster: string; clusterZone: string; view: WindowView; canWrite: boolean }): VNode {
  const [view, setView] = useState(props.view);
  const fleet = view.fleet as FleetOrigin;
  const parts = patchedParts(fleet);
  const [zoneOn, setZoneOn] = useState(parts.timeZone);
  const [schedulesOn, setSchedulesOn] = useState(parts.schedules);
  const [draft, setDraft] = useState<Draft>(() => {
    const d = draftOf(view.spec, props.clusterZone);
    if (d.schedules.length === 0) d.schedules.push(newSchedule());
    return d;
  });
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The window as the cluster would render it with this patch: checked by the same preview as the window editor.
  const spec = useMemo(() => specOf(draft), [draft]);
  const { problems, checking } = usePreview(zoneOn || schedulesOn ? spec : null);
  const update = (change: (d: Draft) => void): void => {
    const next = structuredClone(draft);
    change(next);
    setDraft(next);
    setResult(null);
  };
  const base = `/api/v1/clusters/${encodeURIComponent(props.cluster)}/windows/${encodeURIComponent(view.name)}/patch`;
  const done = (answer: { commit: string; changed?: boolean; window: WindowView | null }, what: string): void => {
    setResult(`${answer.changed === false ? "Nothing changed; the cluster is at commit" : `${what} as commit`} ${answer.commit}.`);
    setReason("");
    if (answer.window !== null) setView(answer.window);
  };
  const failed = (e: unknown): void =>
    setError(
      e instanceof ApiError
        ? `${e.message}${e.problems.length > 0 ? ` (${e.problems.map((p) => `${p.path}: ${p.message}`).join("; ")})` : ""}`
        : e instanceof Error
          ? e.message
          : String(e),
    );
  const save = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const body = { ...(zoneOn ? { timeZone: spec.timeZone } : {}), ...(schedulesOn ? { schedules: spec.schedules } : {}), reason };
      done((await call<{ commit: string; changed: boolean; window: WindowView | null }>("PUT", base, { body })).body, "Patch saved");
    } catch (e) {
      failed(e);
    } finally {
      setBusy(false);
    }
  };
  const remove = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      done((await call<{ commit: string; window: WindowView | null }>("DELETE", `${base}?reason=${encodeURIComponent(reason)}`)).body, "Patch removed");
      setZoneOn(false);
      setSchedulesOn(false);
    } catch (e) {
      failed(e);
    } finally {
      setBusy(false);
    }
  };
  const nothing = !zoneOn && !schedulesOn;
  const canSave = props.canWrite && !busy && !checking && problems.length === 0 && !nothing && reason.trim() !== "";
  return html`<div class="fleet-on-cluster">
    <h2>Window <code>${view.name}</code> <span class="muted">on ${props.cluster}</span></h2>
    <p>This window is the <${Origin} cluster=${props.cluster} name=${view.name} fleet=${fleet} path=${view.path} />.</p>
    <p class="hint">It is not a file of ${props.cluster}'s own, so it is not saved here as one: change its base for every cluster that includes it, or patch it for this cluster alone (one commit of the cluster's <code>windows/kustomization.yaml</code>).</p>
    <p>As ${props.cluster} runs it: zone <code>${view.timeZone ?? "?"}</code>, ${view.reason}.</p>
    ${fleet.patch !== null ? html`<p>The cluster's patch now (<code>${fleet.patch.file}</code>):</p><pre data-testid="patch-text">${fleet.patch.patch}</pre>` : null}
    ${
      props.canWrite
        ? html`<form class="patch-form" aria-label=${`Patch ${view.name} for ${props.cluster}`} onSubmit=${(e: Event) => (e.preventDefault(), void save())}>
          <h3>Patch for this cluster</h3>
          <label class="check"><input type="checkbox" data-testid="patch-zone-on" checked=${zoneOn} disabled=${parts.timeZone} onChange=${(e: Event) => setZoneOn((e.target as HTMLInputElement).checked)} /> Its own time zone${parts.timeZone ? " (patched now: remove the patch to drop it)" : ""}</label>
          ${zoneOn ? html`<${Field} label="Time zone" path="spec.timeZone" value=${draft.timeZone} problems=${problems} list="patch-zones" hint=${`IANA zone; the cluster's is ${props.clusterZone}`} onInput=${(v: string) => update((d) => void (d.timeZone = v))} /><datalist id="patch-zones">${ZONES.map((z) => html`<option value=${z}></option>`)}</datalist>` : null}
          <label class="check"><input type="checkbox" data-testid="patch-schedules-on" checked=${schedulesOn} disabled=${parts.schedules} onChange=${(e: Event) => setSchedulesOn((e.target as HTMLInputElement).checked)} /> Its own allow schedules${parts.schedules ? " (patched now: remove the patch to drop them)" : ""}</label>
          ${
            schedulesOn
              ? html`<fieldset><legend>Allow schedules of ${props.cluster}</legend>
                ${draft.schedules.map(
                  (s, i) => html`<div class="rule" data-row=${`schedule-${i}`}>
                    <${Select} label="Kind" value=${s.kind} options=${["cron", "recurrence"]} onChange=${(v: string) => update((d) => void ((d.schedules[i] as typeof s).kind = v as "cron" | "recurrence"))} />
                    ${
                      s.kind === "recurrence"
                        ? html`<${RecurrenceFields} path=${`spec.schedules[${i}]`} rule=${s.rule} problems=${problems} change=${(edit: (r: RecurrenceDraft) => void) => update((d) => edit((d.schedules[i] as typeof s).rule))} />`
                        : html`<${Field} label="Start (cron)" path=${`spec.schedules[${i}].start`} value=${s.start} problems=${problems} onInput=${(v: string) => update((d) => void ((d.schedules[i] as typeof s).start = v))} />
                    <${Select} label="Ends by" value=${s.endKind} options=${["end", "duration"]} onChange=${(v: string) => update((d) => void ((d.schedules[i] as typeof s).endKind = v as "end" | "duration"))} />
                    <${Field} label=${s.endKind === "end" ? "End (cron)" : "Duration"} path=${`spec.schedules[${i}].${s.endKind}`} value=${s.end} problems=${problems} onInput=${(v: string) => update((d) => void ((d.schedules[i] as typeof s).end = v))} />`
                    }
                    ${draft.schedules.length > 1 ? html`<button type="button" class="remove" aria-label=${`Remove schedule ${i + 1}`} onClick=${() => update((d) => void d.schedules.splice(i, 1))}>Remove</button>` : null}
                  </div>`,
                )}
                <button type="button" onClick=${() => update((d) => void d.schedules.push(newSchedule()))}>Add schedule</button>
              </fieldset>`
              : null
          }
          <${FieldError} id="patch-problems" messages=${problems.filter((p) => !/^spec\.(timeZone|schedules)/.test(p.path)).map((p) => `${p.path || "window"}: ${p.message}`)} />
          <label class="field"><span class="field-label">Reason (goes into the commit message)</span><input data-testid="patch-reason" value=${reason} onInput=${(e: Event) => setReason((e.target as HTMLInputElement).value)} /></label>
          <button type="submit" class="primary" disabled=${!canSave}>${busy ? "Saving…" : "Save the patch (one commit)"}</button>
          ${fleet.patch !== null ? html` <button type="button" disabled=${busy || reason.trim() === ""} onClick=${() => void remove()}>Remove the patch (take the base as it is)</button>` : null}
          ${nothing ? html`<p class="hint">Choose what this cluster changes: its zone, its schedules, or both.</p>` : checking ? html`<p class="hint">Checking…</p>` : problems.length > 0 ? html`<p class="hint">Fix the problems to save.</p>` : reason.trim() === "" ? html`<p class="hint">Say why to save.</p>` : null}
        </form>`
        : html`<p class="hint">Your token may not change windows (needs role editor).</p>`
    }
    ${result !== null ? html`<p class="ok" role="status" data-testid="patch-result">✓ ${result}</p>` : null}
    ${error !== null ? html`<p class="error" role="alert" data-testid="patch-error">✗ ${error}</p>` : null}
  </div>`;
}
