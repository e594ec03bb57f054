/// <reference lib="dom" />
// The window editor's form state: a spec as rows of text fields, and back; rows keep their indices so field paths match.

import type { FieldProblem } from "../../../api/index.ts";

/** The fields of an entry given by an RFC 5545 recurrence rule (`recurrence`, `at`, `endAt` or `duration`, `dtstart`, `exdates`). */
export interface RecurrenceDraft {
  recurrence: string;
  at: string;
  /** How each interval ends: a local time of day, or elapsed time. */
  lengthKind: "endAt" | "duration";
  length: string;
  dtstart: string;
  /** `2026-12-13, 2027-01-10T02:00`: dates or local date-times, by commas or spaces. */
  exdates: string;
}

export interface ScheduleDraft {
  /** A cron `start` with `end` or `duration`, or a recurrence rule. */
  kind: "cron" | "recurrence";
  start: string;
  endKind: "end" | "duration";
  end: string;
  rule: RecurrenceDraft;
}

export interface FreezeDraft {
  kind: "recurring" | "one-off" | "recurrence";
  /** An entry of public holidays, kept as it is: the form edits the other kinds. */
  raw: Record<string, unknown> | null;
  start: string;
  endKind: "end" | "duration";
  end: string;
  from: string;
  to: string;
  rule: RecurrenceDraft;
  reason: string;
  /** The calendar event it was imported from (fluxgate freeze import): kept, so the next import updates it. */
  uid: string;
}

export interface TargetDraft {
  kind: string;
  by: "name" | "labels";
  name: string;
  /** `key=value, key2=value2` */
  labels: string;
  namespace: string;
  /** A selector with matchExpressions, kept as it is. */
  raw: Record<string, unknown> | null;
}

export interface Draft {
  timeZone: string;
  schedules: ScheduleDraft[];
  freezes: FreezeDraft[];
  targets: TargetDraft[];
  mode: "Suspend" | "Gate";
  gateKind: string;
  gateName: string;
  gatedName: string;
  closeGracePeriod: string;
  /** Spec fields the form does not know, kept as they are. */
  extra: Record<string, unknown>;
}

type Obj = Record<string, unknown>;
const text = (v: unknown): string => (typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : "");
const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

export function newRule(): RecurrenceDraft {
  return { recurrence: "", at: "", lengthKind: "duration", length: "", dtstart: "", exdates: "" };
}

export function newSchedule(): ScheduleDraft {
  return { kind: "cron", start: "0 8 * * MON", endKind: "end", end: "0 17 * * THU", rule: newRule() };
}

export function newFreeze(): FreezeDraft {
  return { kind: "one-off", raw: null, start: "", endKind: "duration", end: "", from: "", to: "", rule: newRule(), reason: "", uid: "" };
}

/** The recurrence fields of an entry as form fields. */
function ruleOf(r: Obj): RecurrenceDraft {
  return {
    recurrence: text(r.recurrence),
    at: text(r.at),
    lengthKind: r.endAt !== undefined ? "endAt" : "duration",
    length: text(r.endAt ?? (r.recurrence !== undefined ? r.duration : undefined)),
    dtstart: text(r.dtstart),
    exdates: (Array.isArray(r.exdates) ? r.exdates : []).map(text).join(", "),
  };
}

/** The recurrence fields of an entry; optional ones only when given. */
function ruleSpec(r: RecurrenceDraft): Obj {
  const exdates = r.exdates.split(/[\s,]+/).filter((x) => x !== "");
  return {
    recurrence: r.recurrence,
    at: r.at,
    [r.lengthKind]: r.length,
    ...(r.dtstart.trim() === "" ? {} : { dtstart: r.dtstart.trim() }),
    ...(exdates.length === 0 ? {} : { exdates }),
  };
}

export function newTarget(): TargetDraft {
  return { kind: "Kustomization", by: "name", name: "", labels: "", namespace: "", raw: null };
}

/** The form state of a spec. */
export function draftOf(spec: unknown, defaultZone: string): Draft {
  const s = (typeof spec === "object" && spec !== null ? spec : {}) as Obj;
  const known = new Set(["timeZone", "schedules", "freezes", "targets", "mode", "gate", "closeGracePeriod"]);
  const gate = (s.gate ?? {}) as { upstream?: { kind?: string; name?: string }; gatedName?: string };
  return {
    timeZone: text(s.timeZone ?? defaultZone),
    schedules: list(s.schedules).map((r) => ({
      kind: r.recurrence !== undefined ? "recurrence" : "cron",
      start: text(r.start),
      endKind: r.duration !== undefined ? "duration" : "end",
      end: text(r.duration ?? r.end),
      rule: ruleOf(r),
    })),
    freezes: list(s.freezes).map((r) => ({
      kind: r.recurrence !== undefined ? "recurrence" : r.from !== undefined || r.to !== undefined ? "one-off" : "recurring",
      raw: r.holidays !== undefined ? r : null,
      rule: ruleOf(r),
      start: text(r.start),
      endKind: r.duration !== undefined ? "duration" : "end",
      end: text(r.duration ?? r.end),
      from: text(r.from),
      to: text(r.to),
      reason: text(r.reason),
      uid: text(r.uid),
    })),
    targets: list(s.targets).map((r): TargetDraft => {
      const selector = r.labelSelector as { matchLabels?: Record<string, string>; matchExpressions?: unknown } | undefined;
      if (selector?.matchExpressions !== undefined) return { ...newTarget(), kind: text(r.kind), raw: r };
      return {
        kind: text(r.kind),
        by: selector !== undefined ? "labels" : "name",
        name: text(r.name),
        labels: Object.entries(selector?.matchLabels ?? {})
          .map(([k, v]) => `${k}=${v}`)
          .join(", "),
        namespace: text(r.namespace),
        raw: null,
      };
    }),
    mode: s.mode === "Gate" ? "Gate" : "Suspend",
    gateKind: text(gate.upstream?.kind ?? "GitRepository"),
    gateName: text(gate.upstream?.name),
    gatedName: text(gate.gatedName),
    closeGracePeriod: text(s.closeGracePeriod),
    extra: Object.fromEntries(Object.entries(s).filter(([k]) => !known.has(k))),
  };
}

function labelsOf(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(",")) {
    const trimmed = part.trim();
    if (trimmed === "") continue;
    const at = trimmed.indexOf("=");
    if (at < 0) out[trimmed] = "";
    else out[trimmed.slice(0, at).trim()] = trimmed.slice(at + 1).trim();
  }
  return out;
}

/** The spec of a form state. Every row is kept, even an empty one, so a problem's index is the row's. */
export function specOf(d: Draft): Obj {
  const spec: Obj = { ...d.extra };
  if (d.timeZone.trim() !== "") spec.timeZone = d.timeZone.trim();
  if (d.schedules.length > 0) spec.schedules = d.schedules.map((r) => (r.kind === "recurrence" ? ruleSpec(r.rule) : { start: r.start, [r.endKind]: r.end }));
  if (d.freezes.length > 0) {
    spec.freezes = d.freezes.map((r) => {
      if (r.raw !== null) return r.raw;
      const reason = { ...(r.reason.trim() === "" ? {} : { reason: r.reason }), ...(r.uid === "" ? {} : { uid: r.uid }) };
      if (r.kind === "recurrence") return { ...ruleSpec(r.rule), ...reason };
      return r.kind === "one-off" ? { from: r.from, to: r.to, ...reason } : { start: r.start, [r.endKind]: r.end, ...reason };
    });
  }
  spec.targets = d.targets.map((t) => {
    if (t.raw !== null) return t.raw;
    const namespace = t.namespace.trim() === "" ? {} : { namespace: t.namespace.trim() };
    return t.by === "name" ? { kind: t.kind, name: t.name, ...namespace } : { kind: t.kind, labelSelector: { matchLabels: labelsOf(t.labels) }, ...namespace };
  });
  if (d.mode === "Gate") {
    spec.mode = "Gate";
    spec.gate = { upstream: { kind: d.gateKind, name: d.gateName }, gatedName: d.gatedName };
  }
  if (d.closeGracePeriod.trim() !== "") spec.closeGracePeriod = d.closeGracePeriod.trim();
  return spec;
}

/** Problems at `path` exactly, or (with `below`) at it and under it. */
export function problemsAt(problems: readonly FieldProblem[], path: string, below = false): string[] {
  return problems.filter((p) => p.path === path || (below && (p.path.startsWith(`${path}.`) || p.path.startsWith(`${path}[`)))).map((p) => p.message);
}
