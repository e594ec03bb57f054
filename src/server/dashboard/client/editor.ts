/// <reference lib="dom" />
// The window editor: schedules, freezes and targets as a form, validated as you type, with a live preview and a save that shows its commit.

import { html } from "htm/preact";
import type { VNode } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import type { WindowView } from "../../views/views.ts";
import { ApiError, listClusters, type ClusterItem } from "./api.ts";
import { draftOf, newFreeze, newSchedule, newTarget, problemsAt, specOf, type Draft, type FreezeDraft, type RecurrenceDraft } from "./draft.ts";
import { TARGET_KINDS } from "./kinds.ts";
import { applyChanges, shown, specDiff, type Change } from "./diff.ts";
import { loadWindow, saveWindow, usePreview, windowHash, type FleetWindowRead, type SavedWindow, type Subject } from "./editor-io.ts";
import { Field, FieldError, Select, ZONES } from "./fields.ts";
import { FleetWindowOnCluster, matching, SelectorField } from "./fleet-patch.ts";
import { RecurrenceFields } from "./recurrence.ts";
import { BandDetails, Lane, type BandInfo } from "./timeline.ts";
import { length, localTime, utcTime } from "./time.ts";

const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** A list of changed fields, `before → after`. */
function Changes(props: { changes: readonly Change[]; testid: string; empty: string }): VNode {
  if (props.changes.length === 0) return html`<p class="muted" data-testid=${props.testid}>${props.empty}</p>`;
  return html`<ul class="diff" data-testid=${props.testid}>${props.changes.map(
    (c) => html`<li><code>${c.path}</code>: <del>${shown(c.before)}</del> → <ins>${shown(c.after)}</ins></li>`,
  )}</ul>`;
}

/** The window as it is upstream after a 412: its spec and version. */
interface Upstream {
  spec: unknown;
  etag: string | null;
}

/** Where a fleet window's base goes: its file, its selector, the clusters that include it and those that patch it. */
function FleetBaseInfo(props: { fleet: FleetWindowRead }): VNode {
  const f = props.fleet;
  const patched = f.clusters.filter((k) => k.patched).map((k) => k.name);
  return html`<p data-testid="fleet-base">Saving changes <code>${f.file}</code>, one commit for the ${f.clusters.length} cluster${f.clusters.length === 1 ? "" : "s"} that include it (selector <code>${f.selector ?? "none recorded"}</code>)${patched.length === 0 ? "" : `; ${patched.length} patch it (${patched.join(", ")}) and keep their patches`}.${f.missing.length === 0 ? "" : ` The selector also matches ${f.missing.join(", ")}, which do not include it.`}</p>`;
}

/**
 * Edits one window of a cluster, or a new one when `name` is null. With `cluster` null it edits a
 * fleet window's base (one commit for every cluster that includes it), or adds a fleet window for
 * the clusters a selector matches. A cluster's window that comes from a fleet window is not
 * changed as the cluster's own: the page offers its base and the cluster's patch instead.
 */
export function WindowEditor(props: { cluster: string | null; clusterZone: string; name: string | null; canWrite: boolean }): VNode {
  const subject: Subject = { cluster: props.cluster, name: props.name };
  const [name, setName] = useState(props.name ?? "");
  const [selector, setSelector] = useState("");
  const [fleet, setFleet] = useState<FleetWindowRead | null>(null);
  const [view, setView] = useState<WindowView | null>(null);
  /** The fleet's clusters, for a new fleet window: which its selector matches. */
  const [clusters, setClusters] = useState<readonly ClusterItem[] | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [etag, setEtag] = useState<string | null>(null);
  /** The spec as loaded (normalised like the draft), to show what a save would change. */
  const [baseSpec, setBaseSpec] = useState<unknown>(null);
  const [upstream, setUpstream] = useState<Upstream | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [reason, setReason] = useState("");
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<SavedWindow | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [chosen, setChosen] = useState<BandInfo | null>(null);

  useEffect(() => {
    setSaved(null);
    setSaveError(null);
    if (props.cluster === null && props.name === null)
      listClusters()
        .then(setClusters)
        .catch((e: unknown) => setLoadError(e instanceof Error ? e.message : String(e)));
    if (props.name === null) {
      setDraft(draftOf({ timeZone: props.clusterZone, schedules: [newSchedule()], targets: [{ kind: "Kustomization", name: "apps-rw" }] }, props.clusterZone));
      setEtag(null);
      return;
    }
    loadWindow({ cluster: props.cluster, name: props.name })
      .then((answer) => {
        const loaded = draftOf(answer.spec, props.clusterZone);
        setDraft(loaded);
        setBaseSpec(specOf(loaded));
        setEtag(answer.etag);
        setView(answer.view);
        setFleet(answer.fleet);
      })
      .catch((e: unknown) => setLoadError(e instanceof Error ? e.message : String(e)));
  }, [props.cluster, props.name]);

  const spec = useMemo(() => (draft === null ? null : specOf(draft)), [draft]);
  const { preview, problems, setProblems, checking } = usePreview(spec);

  if (loadError !== null) return html`<p class="error" role="alert">${loadError}</p>`;
  if (draft === null || spec === null) return html`<p>Loading…</p>`;
  // A fleet window on a cluster: a PUT of it as the cluster's own would be refused (409); its base or the cluster's patch is changed instead.
  if (props.cluster !== null && view?.fleet !== null && view?.fleet !== undefined) {
    return html`<${FleetWindowOnCluster} cluster=${props.cluster} clusterZone=${props.clusterZone} view=${view} canWrite=${props.canWrite} />`;
  }

  const update = (change: (d: Draft) => void): void => {
    const next = structuredClone(draft);
    change(next);
    setDraft(next);
    setSaved(null);
  };
  const nameProblem =
    props.name === null && !NAME.test(name)
      ? `${name === "" ? "give" : `"${name}" is not`} a window name: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit`
      : null;
  const selected = props.cluster === null && props.name === null ? matching(selector, clusters) : null;
  const selectorError = selected?.error ?? null;
  const valid = problems.length === 0 && !checking && nameProblem === null && selectorError === null;
  const canSave = props.canWrite && valid && reason.trim() !== "" && !saving;

  const save = async (): Promise<void> => {
    setSaving(true);
    setSaveError(null);
    try {
      const answer = await saveWindow(subject, name, selector, spec, reason, etag);
      setSaved(answer);
      setEtag(answer.etag);
      setBaseSpec(spec);
      setUpstream(null);
      setReason("");
      if (props.name === null) history.replaceState(null, "", windowHash(subject, name));
    } catch (e) {
      if (e instanceof ApiError && e.problems.length > 0) setProblems(e.problems);
      if (e instanceof ApiError && e.status === 412 && props.name !== null) {
        // Someone changed the window since it was loaded: show what, and offer to carry these edits over.
        try {
          const now = await loadWindow({ cluster: props.cluster, name: props.name });
          setUpstream({ spec: specOf(draftOf(now.spec, props.clusterZone)), etag: now.etag });
          setSaveError("Someone changed this window since you loaded it; nothing was saved. What changed is shown below.");
        } catch (again) {
          setSaveError(again instanceof Error ? again.message : String(again));
        }
        return;
      }
      setSaveError(e instanceof Error ? e.message : String(e));
    } finally {
      setSaving(false);
    }
  };

  const reapply = (): void => {
    if (upstream === null) return;
    const mine = specDiff(baseSpec, spec);
    setDraft(draftOf(applyChanges(upstream.spec, mine), props.clusterZone));
    setBaseSpec(upstream.spec);
    setEtag(upstream.etag);
    setUpstream(null);
    setSaveError(null);
  };
  const pending = props.name === null ? [] : specDiff(baseSpec, spec);
  const P = (path: string, below = false): string[] => problemsAt(problems, path, below);
  const from = preview === null ? 0 : Date.parse(preview.from);
  const to = preview === null ? 0 : Date.parse(preview.to);
  const zone = preview?.timeZone ?? draft.timeZone;

  return html`<div class="editor">
    <form class="editor-form" aria-label="Window" onSubmit=${(e: Event) => e.preventDefault()}>
      ${
        props.cluster === null
          ? html`<h2>${props.name === null ? "New fleet window" : html`Fleet window <code>${props.name}</code>`} <span class="muted">${props.name === null ? "for the clusters a selector matches" : "base, for the whole fleet"}</span></h2>`
          : html`<h2>${props.name === null ? "New window" : html`Window <code>${props.name}</code>`} <span class="muted">on ${props.cluster}</span></h2>`
      }
      ${
        props.name === null
          ? html`<label class="field"><span class="field-label">Name</span>
            <input data-path="metadata.name" value=${name} aria-invalid=${nameProblem !== null} onInput=${(e: Event) => setName((e.target as HTMLInputElement).value)} />
            ${nameProblem !== null ? html`<span class="field-error" role="note">⚠ ${nameProblem}</span>` : null}
          </label>`
          : null
      }
      ${props.cluster === null && props.name === null ? html`<${SelectorField} value=${selector} error=${selector === "" ? null : selectorError} matches=${selector === "" || clusters === null ? null : (selected?.names ?? null)} onInput=${setSelector} />` : null}
      ${fleet !== null ? html`<${FleetBaseInfo} fleet=${fleet} />` : null}
      <${Field} label="Time zone" path="spec.timeZone" value=${draft.timeZone} problems=${problems} list="zones" hint=${props.cluster === null ? "IANA zone; a cluster's patch may give it its own" : `IANA zone; the cluster's is ${props.clusterZone}`} onInput=${(v: string) => update((d) => void (d.timeZone = v))} />
      <datalist id="zones">${ZONES.map((z) => html`<option value=${z}></option>`)}</datalist>

      <fieldset>
        <legend>Allow schedules <span class="hint">open while any is active</span></legend>
        ${draft.schedules.map(
          (s, i) => html`<div class="rule" data-row=${`schedule-${i}`}>
            <${Select} label="Kind" value=${s.kind} options=${["cron", "recurrence"]} onChange=${(v: string) => update((d) => void ((d.schedules[i] as typeof s).kind = v as "cron" | "recurrence"))} />
            ${
              s.kind === "recurrence"
                ? html`<${RecurrenceFields} path=${`spec.schedules[${i}]`} rule=${s.rule} problems=${problems} change=${(edit: (r: RecurrenceDraft) => void) => update((d) => edit((d.schedules[i] as typeof s).rule))} />`
                : html`<${Field} label="Start (cron)" path=${`spec.schedules[${i}].start`} value=${s.start} problems=${problems} placeholder="0 8 * * MON" onInput=${(v: string) => update((d) => void ((d.schedules[i] as typeof s).start = v))} />
            <${Select} label="Ends by" value=${s.endKind} options=${["end", "duration"]} onChange=${(v: string) => update((d) => void ((d.schedules[i] as typeof s).endKind = v as "end" | "duration"))} />
            <${Field} label=${s.endKind === "end" ? "End (cron)" : "Duration"} path=${`spec.schedules[${i}].${s.endKind}`} value=${s.end} problems=${problems} placeholder=${s.endKind === "end" ? "0 17 * * THU" : "2h"} onInput=${(v: string) => update((d) => void ((d.schedules[i] as typeof s).end = v))} />`
            }
            <${FieldError} id=${`schedule-${i}-error`} messages=${P(`spec.schedules[${i}]`)} />
            <button type="button" class="remove" aria-label=${`Remove schedule ${i + 1}`} onClick=${() => update((d) => void d.schedules.splice(i, 1))}>Remove</button>
          </div>`,
        )}
        <button type="button" onClick=${() => update((d) => void d.schedules.push(newSchedule()))}>Add schedule</button>
        <${FieldError} id="schedules-error" messages=${P("spec.schedules")} />
      </fieldset>

      <fieldset>
        <legend>Freezes <span class="hint">beat every allow schedule</span></legend>
        ${draft.freezes.map((f, i) =>
          f.raw !== null
            ? html`<div class="rule" data-row=${`freeze-${i}`}>
                <code class="raw" title="Public holidays: edit them in Git">${JSON.stringify(f.raw)}</code>
                <${FieldError} id=${`freeze-${i}-error`} messages=${P(`spec.freezes[${i}]`, true)} />
                <button type="button" class="remove" aria-label=${`Remove freeze ${i + 1}`} onClick=${() => update((d) => void d.freezes.splice(i, 1))}>Remove</button>
              </div>`
            : html`<div class="rule" data-row=${`freeze-${i}`}>
            <${Select} label="Kind" value=${f.kind} options=${["one-off", "recurring", "recurrence"]} onChange=${(v: string) => update((d) => void ((d.freezes[i] as typeof f).kind = v as FreezeDraft["kind"]))} />
            ${
              f.kind === "one-off"
                ? html`<${Field} label="From (local)" path=${`spec.freezes[${i}].from`} value=${f.from} problems=${problems} placeholder="2026-12-20T00:00" onInput=${(v: string) => update((d) => void ((d.freezes[i] as typeof f).from = v))} />
                  <${Field} label="To (local)" path=${`spec.freezes[${i}].to`} value=${f.to} problems=${problems} placeholder="2027-01-05T00:00" onInput=${(v: string) => update((d) => void ((d.freezes[i] as typeof f).to = v))} />`
                : f.kind === "recurrence"
                  ? html`<${RecurrenceFields} path=${`spec.freezes[${i}]`} rule=${f.rule} problems=${problems} change=${(edit: (r: RecurrenceDraft) => void) => update((d) => edit((d.freezes[i] as typeof f).rule))} />`
                  : html`<${Field} label="Start (cron)" path=${`spec.freezes[${i}].start`} value=${f.start} problems=${problems} placeholder="0 0 * * FRI" onInput=${(v: string) => update((d) => void ((d.freezes[i] as typeof f).start = v))} />
                  <${Select} label="Ends by" value=${f.endKind} options=${["duration", "end"]} onChange=${(v: string) => update((d) => void ((d.freezes[i] as typeof f).endKind = v as "end" | "duration"))} />
                  <${Field} label=${f.endKind === "end" ? "End (cron)" : "Duration"} path=${`spec.freezes[${i}].${f.endKind}`} value=${f.end} problems=${problems} placeholder="24h" onInput=${(v: string) => update((d) => void ((d.freezes[i] as typeof f).end = v))} />`
            }
            <${Field} label="Reason" path=${`spec.freezes[${i}].reason`} value=${f.reason} problems=${problems} placeholder="Holiday freeze" onInput=${(v: string) => update((d) => void ((d.freezes[i] as typeof f).reason = v))} />
            <${FieldError} id=${`freeze-${i}-error`} messages=${P(`spec.freezes[${i}]`)} />
            <button type="button" class="remove" aria-label=${`Remove freeze ${i + 1}`} onClick=${() => update((d) => void d.freezes.splice(i, 1))}>Remove</button>
          </div>`,
        )}
        <button type="button" onClick=${() => update((d) => void d.freezes.push(newFreeze()))}>Add freeze</button>
      </fieldset>

      <fieldset>
        <legend>Targets <span class="hint">what the window governs</span></legend>
        ${draft.targets.map(
          (t, i) => html`<div class="rule" data-row=${`target-${i}`}>
            ${
              t.raw !== null
                ? html`<code class="raw">${JSON.stringify(t.raw)}</code>`
                : html`<${Select} label="Kind" value=${t.kind} options=${TARGET_KINDS} path=${`spec.targets[${i}].kind`} onChange=${(v: string) => update((d) => void ((d.targets[i] as typeof t).kind = v))} />
                  <${Select} label="Select by" value=${t.by} options=${["name", "labels"]} onChange=${(v: string) => update((d) => void ((d.targets[i] as typeof t).by = v as "name" | "labels"))} />
                  ${
                    t.by === "name"
                      ? html`<${Field} label="Name" path=${`spec.targets[${i}].name`} value=${t.name} problems=${problems} placeholder="apps-rw" onInput=${(v: string) => update((d) => void ((d.targets[i] as typeof t).name = v))} />`
                      : html`<${Field} label="Labels" path=${`spec.targets[${i}].labelSelector`} value=${t.labels} problems=${problems} placeholder="fluxgate.io/type=rw" onInput=${(v: string) => update((d) => void ((d.targets[i] as typeof t).labels = v))} />`
                  }
                  <${Field} label="Namespace" path=${`spec.targets[${i}].namespace`} value=${t.namespace} problems=${problems} placeholder="(the window's)" onInput=${(v: string) => update((d) => void ((d.targets[i] as typeof t).namespace = v))} />`
            }
            <${FieldError} id=${`target-${i}-error`} messages=${P(`spec.targets[${i}]`)} />
            <button type="button" class="remove" aria-label=${`Remove target ${i + 1}`} onClick=${() => update((d) => void d.targets.splice(i, 1))}>Remove</button>
          </div>`,
        )}
        <button type="button" onClick=${() => update((d) => void d.targets.push(newTarget()))}>Add target</button>
        <${FieldError} id="targets-error" messages=${P("spec.targets")} />
      </fieldset>

      <fieldset>
        <legend>Enforcement</legend>
        <${Select} label="Mode" value=${draft.mode} options=${["Suspend", "Gate"]} path="spec.mode" onChange=${(v: string) => update((d) => void (d.mode = v as "Suspend" | "Gate"))} />
        ${
          draft.mode === "Gate"
            ? html`<${Select} label="Upstream kind" value=${draft.gateKind} options=${["GitRepository", "OCIRepository"]} onChange=${(v: string) => update((d) => void (d.gateKind = v))} />
              <${Field} label="Upstream name" path="spec.gate.upstream.name" value=${draft.gateName} problems=${problems} onInput=${(v: string) => update((d) => void (d.gateName = v))} />
              <${Field} label="Gated source name" path="spec.gate.gatedName" value=${draft.gatedName} problems=${problems} onInput=${(v: string) => update((d) => void (d.gatedName = v))} />`
            : null
        }
        <${Field} label="Close grace period" path="spec.closeGracePeriod" value=${draft.closeGracePeriod} problems=${problems} placeholder="5m" onInput=${(v: string) => update((d) => void (d.closeGracePeriod = v))} />
      </fieldset>
    </form>

    <aside class="editor-side">
      <section aria-label="Validation" aria-live="polite" class="validation">
        <h3>Check</h3>
        ${
          checking
            ? html`<p class="muted" data-testid="validation">Checking…</p>`
            : problems.length === 0
              ? html`<p class="ok" data-testid="validation">✓ Valid: the controller would accept this window.</p>`
              : html`<div data-testid="validation"><p class="error">✗ ${problems.length} problem${problems.length === 1 ? "" : "s"}:</p>
                <ul class="problems">${problems.map((p) => html`<li><code>${p.path || "window"}</code>: ${p.message}</li>`)}</ul></div>`
        }
      </section>

      <section aria-label="Preview" class="preview">
        <h3>Next openings <span class="muted">(${zone})</span></h3>
        ${
          preview === null
            ? html`<p class="muted">…</p>`
            : preview.nextOpenings.length === 0
              ? html`<p data-testid="next-openings">Never open in the next year.</p>`
              : html`<ol class="openings" data-testid="next-openings">
                ${preview.nextOpenings.map(
                  (o) => html`<li><span class="local">${localTime(o.start, zone)} → ${localTime(o.end, zone)}</span>
                    <span class="utc muted">${utcTime(o.start)} → ${utcTime(o.end)} · ${length(Date.parse(o.end) - Date.parse(o.start))}</span></li>`,
                )}
              </ol>`
        }
        ${
          preview !== null
            ? html`<div class="mini" aria-label="Next 7 days"><${Lane} cluster=${props.cluster ?? "the fleet"} zone=${zone} window=${preview.timeline} from=${from} to=${to} now=${from} onChoose=${setChosen} chosen=${chosen} /></div>
              <${BandDetails} band=${chosen} onClose=${() => setChosen(null)} />`
            : null
        }
      </section>

      <section aria-label="Save" class="save">
        <h3>Save</h3>
        ${
          props.canWrite
            ? html`<label class="field"><span class="field-label">Reason (goes into the commit message)</span>
                <textarea data-testid="reason" rows="2" value=${reason} onInput=${(e: Event) => setReason((e.target as HTMLTextAreaElement).value)}></textarea>
              </label>
              <button type="button" class="primary" disabled=${!canSave} onClick=${() => void save()}>${saving ? "Saving…" : "Save as a commit"}</button>
              ${!valid ? html`<p class="hint">Fix the problems to save${selectorError !== null ? ` (clusters: ${selectorError})` : ""}.</p>` : reason.trim() === "" ? html`<p class="hint">Say why to save.</p>` : null}`
            : html`<p class="hint">Your token may not change windows (needs role editor).</p>`
        }
        ${
          props.canWrite && props.name !== null && upstream === null
            ? html`<h4>What this commit changes</h4><${Changes} changes=${pending} testid="pending-diff" empty="Nothing yet: the form is as loaded." />`
            : null
        }
        ${saveError !== null ? html`<p class="error" role="alert">${saveError}</p>` : null}
        ${
          upstream !== null
            ? html`<div class="conflict" data-testid="conflict">
              <h4>Changed upstream since you loaded it</h4>
              <${Changes} changes=${specDiff(baseSpec, upstream.spec)} testid="upstream-diff" empty="The spec is the same; only the file changed." />
              <h4>Your changes</h4>
              <${Changes} changes=${specDiff(baseSpec, spec)} testid="mine-diff" empty="None." />
              <button type="button" class="primary" onClick=${reapply}>Reload and reapply my changes</button>
            </div>`
            : null
        }
        ${
          saved !== null
            ? html`<p class="ok" role="status">${saved.changed ? "Saved as commit" : "Nothing changed; the window is at commit"} <code data-testid="commit">${saved.commit}</code>${saved.pushed ? " (pushed)" : ""}${saved.note === "" ? "" : ` ${saved.note}`}.</p>`
            : null
        }
      </section>
    </aside>
  </div>`;
}
