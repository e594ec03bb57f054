/// <reference lib="dom" />
// The window editor: schedules, freezes and targets as a form, validated as you type, with a live preview and a save that shows its commit.

import { html } from "htm/preact";
import type { VNode } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { FieldProblem } from "../../../api/index.ts";
import type { IntervalView, WindowTimeline, WindowView } from "../../views.ts";
import { ApiError, call } from "./api.ts";
import { draftOf, newFreeze, newSchedule, newTarget, problemsAt, specOf, type Draft } from "./draft.ts";
import { TARGET_KINDS } from "./kinds.ts";
import { applyChanges, shown, specDiff, type Change } from "./diff.ts";
import { BandDetails, Lane, type BandInfo } from "./timeline.ts";
import { length, localTime, utcTime } from "./time.ts";

interface Preview {
  timeZone: string;
  from: string;
  to: string;
  nextOpenings: IntervalView[];
  timeline: WindowTimeline;
}

interface Saved {
  commit: string;
  changed: boolean;
  pushed: boolean;
  window: WindowView;
}

const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** Messages for a field, tied to it for screen readers. */
function FieldError(props: { id: string; messages: string[] }): VNode | null {
  if (props.messages.length === 0) return null;
  return html`<span class="field-error" id=${props.id} role="note">⚠ ${props.messages.join("; ")}</span>`;
}

/** A labelled text input bound to a spec path. */
function Field(props: { label: string; path: string; value: string; problems: readonly FieldProblem[]; onInput: (v: string) => void; placeholder?: string; list?: string; hint?: string }): VNode {
  const messages = problemsAt(props.problems, props.path);
  const id = `f-${props.path.replace(/[^a-zA-Z0-9]+/g, "-")}`;
  return html`<label class="field">
    <span class="field-label">${props.label}</span>
    <input
      id=${id}
      data-path=${props.path}
      value=${props.value}
      placeholder=${props.placeholder ?? ""}
      list=${props.list}
      aria-invalid=${messages.length > 0}
      aria-describedby=${messages.length > 0 ? `${id}-error` : undefined}
      onInput=${(e: Event) => props.onInput((e.target as HTMLInputElement).value)}
    />
    ${props.hint ? html`<span class="hint">${props.hint}</span>` : null}
    <${FieldError} id=${`${id}-error`} messages=${messages} />
  </label>`;
}

function Select(props: { label: string; value: string; options: readonly string[]; onChange: (v: string) => void; path?: string }): VNode {
  return html`<label class="field">
    <span class="field-label">${props.label}</span>
    <select data-path=${props.path} value=${props.value} onChange=${(e: Event) => props.onChange((e.target as HTMLSelectElement).value)}>
      ${props.options.map((o) => html`<option value=${o} selected=${o === props.value}>${o}</option>`)}
    </select>
  </label>`;
}

const ZONES: string[] = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.("timeZone") ?? [];

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

/** Edits one window of a cluster, or a new one when `name` is null. */
export function WindowEditor(props: { cluster: string; clusterZone: string; name: string | null; canWrite: boolean }): VNode {
  const [name, setName] = useState(props.name ?? "");
  const [draft, setDraft] = useState<Draft | null>(null);
  const [etag, setEtag] = useState<string | null>(null);
  /** The spec as loaded (normalised like the draft), to show what a save would change. */
  const [baseSpec, setBaseSpec] = useState<unknown>(null);
  const [upstream, setUpstream] = useState<Upstream | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [problems, setProblems] = useState<FieldProblem[]>([]);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [checking, setChecking] = useState(false);
  const [reason, setReason] = useState("");
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<Saved | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [chosen, setChosen] = useState<BandInfo | null>(null);
  const sequence = useRef(0);
  const base = `/api/v1/clusters/${encodeURIComponent(props.cluster)}/windows`;

  useEffect(() => {
    setSaved(null);
    setSaveError(null);
    if (props.name === null) {
      setDraft(draftOf({ timeZone: props.clusterZone, schedules: [newSchedule()], targets: [{ kind: "Kustomization", name: "apps-rw" }] }, props.clusterZone));
      setEtag(null);
      return;
    }
    call<WindowView>("GET", `${base}/${encodeURIComponent(props.name)}`)
      .then((answer) => {
        const loaded = draftOf(answer.body.spec, props.clusterZone);
        setDraft(loaded);
        setBaseSpec(specOf(loaded));
        setEtag(answer.etag);
      })
      .catch((e: unknown) => setLoadError(e instanceof Error ? e.message : String(e)));
  }, [props.cluster, props.name]);

  const spec = useMemo(() => (draft === null ? null : specOf(draft)), [draft]);
  const specText = JSON.stringify(spec);

  useEffect(() => {
    if (spec === null) return;
    const mine = ++sequence.current;
    setChecking(true);
    const timer = setTimeout(() => {
      call<Preview>("POST", "/api/v1/preview", { body: { spec } })
        .then((answer) => {
          if (mine !== sequence.current) return;
          setPreview(answer.body);
          setProblems([]);
        })
        .catch((e: unknown) => {
          if (mine !== sequence.current) return;
          setProblems(e instanceof ApiError && e.problems.length > 0 ? e.problems : [{ path: "", message: e instanceof Error ? e.message : String(e) }]);
        })
        .finally(() => {
          if (mine === sequence.current) setChecking(false);
        });
    }, 250);
    return () => clearTimeout(timer);
  }, [specText]);

  if (loadError !== null) return html`<p class="error" role="alert">${loadError}</p>`;
  if (draft === null || spec === null) return html`<p>Loading…</p>`;

  const update = (change: (d: Draft) => void): void => {
    const next = structuredClone(draft);
    change(next);
    setDraft(next);
    setSaved(null);
  };
  const nameProblem = props.name === null && !NAME.test(name) ? "a window name: lower-case letters, digits, '-' and '.'" : null;
  const valid = problems.length === 0 && !checking && nameProblem === null;
  const canSave = props.canWrite && valid && reason.trim() !== "" && !saving;

  const save = async (): Promise<void> => {
    setSaving(true);
    setSaveError(null);
    try {
      const headers: Record<string, string> = etag === null ? { "If-None-Match": "*" } : { "If-Match": `"${etag}"` };
      const answer = await call<Saved>("PUT", `${base}/${encodeURIComponent(name)}`, { body: { spec, reason }, headers });
      setSaved(answer.body);
      setEtag(answer.body.window.etag);
      setBaseSpec(spec);
      setUpstream(null);
      setReason("");
      if (props.name === null) history.replaceState(null, "", `#/c/${encodeURIComponent(props.cluster)}/w/${encodeURIComponent(name)}`);
    } catch (e) {
      if (e instanceof ApiError && e.problems.length > 0) setProblems(e.problems);
      if (e instanceof ApiError && e.status === 412 && props.name !== null) {
        // Someone changed the window since it was loaded: show what, and offer to carry these edits over.
        try {
          const now = await call<WindowView>("GET", `${base}/${encodeURIComponent(props.name)}`);
          setUpstream({ spec: specOf(draftOf(now.body.spec, props.clusterZone)), etag: now.etag });
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
      <h2>${props.name === null ? "New window" : html`Window <code>${props.name}</code>`} <span class="muted">on ${props.cluster}</span></h2>
      ${props.name === null
        ? html`<label class="field"><span class="field-label">Name</span>
            <input data-path="metadata.name" value=${name} aria-invalid=${nameProblem !== null} onInput=${(e: Event) => setName((e.target as HTMLInputElement).value)} />
            ${nameProblem !== null ? html`<span class="field-error" role="note">⚠ ${nameProblem}</span>` : null}
          </label>`
        : null}
      <${Field} label="Time zone" path="spec.timeZone" value=${draft.timeZone} problems=${problems} list="zones" hint=${`IANA zone; the cluster's is ${props.clusterZone}`} onInput=${(v: string) => update((d) => void (d.timeZone = v))} />
      <datalist id="zones">${ZONES.map((z) => html`<option value=${z}></option>`)}</datalist>

      <fieldset>
        <legend>Allow schedules <span class="hint">open while any is active</span></legend>
        ${draft.schedules.map(
          (s, i) => html`<div class="rule" data-row=${`schedule-${i}`}>
            <${Field} label="Start (cron)" path=${`spec.schedules[${i}].start`} value=${s.start} problems=${problems} placeholder="0 8 * * MON" onInput=${(v: string) => update((d) => void ((d.schedules[i] as typeof s).start = v))} />
            <${Select} label="Ends by" value=${s.endKind} options=${["end", "duration"]} onChange=${(v: string) => update((d) => void ((d.schedules[i] as typeof s).endKind = v as "end" | "duration"))} />
            <${Field} label=${s.endKind === "end" ? "End (cron)" : "Duration"} path=${`spec.schedules[${i}].${s.endKind}`} value=${s.end} problems=${problems} placeholder=${s.endKind === "end" ? "0 17 * * THU" : "2h"} onInput=${(v: string) => update((d) => void ((d.schedules[i] as typeof s).end = v))} />
            <${FieldError} id=${`schedule-${i}-error`} messages=${P(`spec.schedules[${i}]`)} />
            <button type="button" class="remove" aria-label=${`Remove schedule ${i + 1}`} onClick=${() => update((d) => void d.schedules.splice(i, 1))}>Remove</button>
          </div>`,
        )}
        <button type="button" onClick=${() => update((d) => void d.schedules.push(newSchedule()))}>Add schedule</button>
        <${FieldError} id="schedules-error" messages=${P("spec.schedules")} />
      </fieldset>

      <fieldset>
        <legend>Freezes <span class="hint">beat every allow schedule</span></legend>
        ${draft.freezes.map(
          (f, i) => html`<div class="rule" data-row=${`freeze-${i}`}>
            <${Select} label="Kind" value=${f.kind} options=${["one-off", "recurring"]} onChange=${(v: string) => update((d) => void ((d.freezes[i] as typeof f).kind = v as "one-off" | "recurring"))} />
            ${f.kind === "one-off"
              ? html`<${Field} label="From (local)" path=${`spec.freezes[${i}].from`} value=${f.from} problems=${problems} placeholder="2026-12-20T00:00" onInput=${(v: string) => update((d) => void ((d.freezes[i] as typeof f).from = v))} />
                  <${Field} label="To (local)" path=${`spec.freezes[${i}].to`} value=${f.to} problems=${problems} placeholder="2027-01-05T00:00" onInput=${(v: string) => update((d) => void ((d.freezes[i] as typeof f).to = v))} />`
              : html`<${Field} label="Start (cron)" path=${`spec.freezes[${i}].start`} value=${f.start} problems=${problems} placeholder="0 0 * * FRI" onInput=${(v: string) => update((d) => void ((d.freezes[i] as typeof f).start = v))} />
                  <${Select} label="Ends by" value=${f.endKind} options=${["duration", "end"]} onChange=${(v: string) => update((d) => void ((d.freezes[i] as typeof f).endKind = v as "end" | "duration"))} />
                  <${Field} label=${f.endKind === "end" ? "End (cron)" : "Duration"} path=${`spec.freezes[${i}].${f.endKind}`} value=${f.end} problems=${problems} placeholder="24h" onInput=${(v: string) => update((d) => void ((d.freezes[i] as typeof f).end = v))} />`}
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
            ${t.raw !== null
              ? html`<code class="raw">${JSON.stringify(t.raw)}</code>`
              : html`<${Select} label="Kind" value=${t.kind} options=${TARGET_KINDS} path=${`spec.targets[${i}].kind`} onChange=${(v: string) => update((d) => void ((d.targets[i] as typeof t).kind = v))} />
                  <${Select} label="Select by" value=${t.by} options=${["name", "labels"]} onChange=${(v: string) => update((d) => void ((d.targets[i] as typeof t).by = v as "name" | "labels"))} />
                  ${t.by === "name"
                    ? html`<${Field} label="Name" path=${`spec.targets[${i}].name`} value=${t.name} problems=${problems} placeholder="apps-rw" onInput=${(v: string) => update((d) => void ((d.targets[i] as typeof t).name = v))} />`
                    : html`<${Field} label="Labels" path=${`spec.targets[${i}].labelSelector`} value=${t.labels} problems=${problems} placeholder="fluxgate.io/type=rw" onInput=${(v: string) => update((d) => void ((d.targets[i] as typeof t).labels = v))} />`}
                  <${Field} label="Namespace" path=${`spec.targets[${i}].namespace`} value=${t.namespace} problems=${problems} placeholder="(the window's)" onInput=${(v: string) => update((d) => void ((d.targets[i] as typeof t).namespace = v))} />`}
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
        ${draft.mode === "Gate"
          ? html`<${Select} label="Upstream kind" value=${draft.gateKind} options=${["GitRepository", "OCIRepository"]} onChange=${(v: string) => update((d) => void (d.gateKind = v))} />
              <${Field} label="Upstream name" path="spec.gate.upstream.name" value=${draft.gateName} problems=${problems} onInput=${(v: string) => update((d) => void (d.gateName = v))} />
              <${Field} label="Gated source name" path="spec.gate.gatedName" value=${draft.gatedName} problems=${problems} onInput=${(v: string) => update((d) => void (d.gatedName = v))} />`
          : null}
        <${Field} label="Close grace period" path="spec.closeGracePeriod" value=${draft.closeGracePeriod} problems=${problems} placeholder="5m" onInput=${(v: string) => update((d) => void (d.closeGracePeriod = v))} />
      </fieldset>
    </form>

    <aside class="editor-side">
      <section aria-label="Validation" aria-live="polite" class="validation">
        <h3>Check</h3>
        ${checking
          ? html`<p class="muted" data-testid="validation">Checking…</p>`
          : problems.length === 0
            ? html`<p class="ok" data-testid="validation">✓ Valid: the controller would accept this window.</p>`
            : html`<div data-testid="validation"><p class="error">✗ ${problems.length} problem${problems.length === 1 ? "" : "s"}:</p>
                <ul class="problems">${problems.map((p) => html`<li><code>${p.path || "window"}</code>: ${p.message}</li>`)}</ul></div>`}
      </section>

      <section aria-label="Preview" class="preview">
        <h3>Next openings <span class="muted">(${zone})</span></h3>
        ${preview === null
          ? html`<p class="muted">…</p>`
          : preview.nextOpenings.length === 0
            ? html`<p data-testid="next-openings">Never open in the next year.</p>`
            : html`<ol class="openings" data-testid="next-openings">
                ${preview.nextOpenings.map(
                  (o) => html`<li><span class="local">${localTime(o.start, zone)} → ${localTime(o.end, zone)}</span>
                    <span class="utc muted">${utcTime(o.start)} → ${utcTime(o.end)} · ${length(Date.parse(o.end) - Date.parse(o.start))}</span></li>`,
                )}
              </ol>`}
        ${preview !== null
          ? html`<div class="mini" aria-label="Next 7 days"><${Lane} cluster=${props.cluster} zone=${zone} window=${preview.timeline} from=${from} to=${to} now=${from} onChoose=${setChosen} chosen=${chosen} /></div>
              <${BandDetails} band=${chosen} onClose=${() => setChosen(null)} />`
          : null}
      </section>

      <section aria-label="Save" class="save">
        <h3>Save</h3>
        ${props.canWrite
          ? html`<label class="field"><span class="field-label">Reason (goes into the commit message)</span>
                <textarea data-testid="reason" rows="2" value=${reason} onInput=${(e: Event) => setReason((e.target as HTMLTextAreaElement).value)}></textarea>
              </label>
              <button type="button" class="primary" disabled=${!canSave} onClick=${() => void save()}>${saving ? "Saving…" : "Save as a commit"}</button>
              ${!valid ? html`<p class="hint">Fix the problems to save.</p>` : reason.trim() === "" ? html`<p class="hint">Say why to save.</p>` : null}`
          : html`<p class="hint">Your token may not change windows (needs role editor).</p>`}
        ${props.canWrite && props.name !== null && upstream === null
          ? html`<h4>What this commit changes</h4><${Changes} changes=${pending} testid="pending-diff" empty="Nothing yet: the form is as loaded." />`
          : null}
        ${saveError !== null ? html`<p class="error" role="alert">${saveError}</p>` : null}
        ${upstream !== null
          ? html`<div class="conflict" data-testid="conflict">
              <h4>Changed upstream since you loaded it</h4>
              <${Changes} changes=${specDiff(baseSpec, upstream.spec)} testid="upstream-diff" empty="The spec is the same; only the file changed." />
              <h4>Your changes</h4>
              <${Changes} changes=${specDiff(baseSpec, spec)} testid="mine-diff" empty="None." />
              <button type="button" class="primary" onClick=${reapply}>Reload and reapply my changes</button>
            </div>`
          : null}
        ${saved !== null
          ? html`<p class="ok" role="status">${saved.changed ? "Saved as commit" : "Nothing changed; the window is at commit"} <code data-testid="commit">${saved.commit}</code>${saved.pushed ? " (pushed)" : ""}.</p>`
          : null}
      </section>
    </aside>
  </div>`;
}
