// What the API shows of windows: state now, next transitions and timelines, computed by the time engine from the fleet.

import { modeOf, timeZoneOf, type FieldProblem } from "../../api/index.ts";
import { rfc3339 } from "../../schedule/format.ts";
import { FLUX_NAMESPACE } from "../../gitops/layout.ts";
import { FLEET_OVERRIDE_LABEL } from "../../gitops/fleet/layout.ts";
import {
  overrideOver,
  overrideStage,
  reasonOf,
  targetSegments,
  windowsSelecting,
  type Effect,
  type OverrideView,
  type TargetSegment,
  type TargetSelector,
  type WindowView as PlanningWindow,
} from "../../policy/index.ts";
import { Evaluator, type CompiledWindow, type Interval, type OverrideInput, type RuleRef, type Segment } from "../../schedule/index.ts";
import type { FleetOrigin, OverrideRecord, TargetRecord, WindowRecord } from "../model/model.ts";

/** How far ahead the next openings are looked for: a year, as the editor says ("Never open in the next year"). */
const OPENINGS_HORIZON_MS = 366 * 86_400_000;

/**
 * The next `count` stretches in which targets may take changes, from `from` on (the first may have begun already), within a year.
 * Transitions are read in batches until `count` openings are found: freezes between openings (a daily freeze, a freeze every
 * other Tuesday) add transitions, and a fixed number of them would cut the answer short.
 */
export function nextOpenings(evaluator: Evaluator, from: number, count: number): IntervalView[] {
  const out: IntervalView[] = [];
  const until = from + OPENINGS_HORIZON_MS;
  let start: number | null = evaluator.stateAt(from).state === "open" ? from : null;
  let cursor = from;
  while (out.length < count) {
    const batch = evaluator.transitions(cursor, count * 4 + 2, until);
    for (const t of batch) {
      if (t.state === "open" && start === null) start = t.at;
      else if (t.state !== "open" && start !== null) {
        out.push(interval({ start, end: t.at }));
        start = null;
        if (out.length >= count) break;
      }
    }
    const last = batch[batch.length - 1];
    if (last === undefined) break;
    cursor = last.at;
  }
  return out;
}

/** How a rule is shown: what it is, as written, and its reason. */
export interface CauseView {
  kind: RuleRef["kind"];
  /** The window the rule belongs to (an override's window for an override). */
  window: string;
  label: string;
  reason?: string;
}

export interface TransitionView {
  at: string;
  state: "open" | "closed" | "frozen";
  overridden: boolean;
}

/** A window with its state now and its next change. */
export interface WindowView {
  name: string;
  path: string;
  /** The file's blob id; send it back in If-Match to change exactly this version. */
  etag: string;
  valid: boolean;
  /** Why the file is not a valid window, by field path. */
  problems: FieldProblem[];
  timeZone: string | null;
  mode: "Suspend" | "Gate" | null;
  /** The spec as committed (even when invalid, as far as it is an object). */
  spec: unknown;
  /** `invalid` when the file is not a valid window: the controller then leaves its targets as they are. */
  state: "open" | "closed" | "frozen" | "invalid";
  overridden: boolean;
  /** Why, in a sentence. */
  reason: string;
  cause: CauseView | null;
  since: string | null;
  nextTransition: TransitionView | null;
  /** The next time the window opens (strictly after now). */
  nextOpen: string | null;
  /** The next time it stops being open: closes or freezes. */
  nextClose: string | null;
  /**
   * Null for a window of the cluster's own; for a fleet window, its base (edited for the whole
   * fleet with PUT /fleet/windows/{name}) and the cluster's patch of it (PUT .../windows/{name}/patch).
   */
  fleet: FleetOrigin | null;
}

/** What the engine needs of an override: a fleet folder freeze with a windowSelector acts on each window it picks (`folderFreeze.windows`). */
export type OverrideSource = Pick<OverrideRecord, "input" | "folderFreeze">;

/** The windows an override acts on: the one it names, or those a fleet folder freeze's windowSelector picks. */
function windowsOf(o: OverrideSource): readonly string[] {
  if (o.input === null) return [];
  return o.folderFreeze?.windows ?? [o.input.window];
}

/** Overrides of the named window, as the engine takes them. */
export function overridesFor(window: string, overrides: readonly OverrideSource[]): OverrideInput[] {
  return overrides.flatMap((o) => (o.input !== null && windowsOf(o).includes(window) ? [{ ...o.input, window }] : []));
}

export function causeView(cause: RuleRef | null): CauseView | null {
  if (cause === null) return null;
  return { kind: cause.kind, window: cause.window, label: cause.label, ...(cause.reason === undefined ? {} : { reason: cause.reason }) };
}

const LOOK_AHEAD = 64;

/**
 * The view of one window at `now`. `lookAhead` bounds the transitions looked at for `nextOpen`
 * and `nextClose`: a view that needs only the state and the next transition (a fleet page) asks for 1.
 */
export function windowView(record: WindowRecord, overrides: readonly OverrideRecord[], now: number, lookAhead = LOOK_AHEAD): WindowView {
  const spec = (record.manifest as { spec?: unknown } | null)?.spec ?? null;
  const base = { name: record.name, path: record.path, etag: record.etag, problems: record.problems, spec, fleet: record.fleet };
  if (record.window === null || record.compiled === null) {
    return {
      ...base,
      valid: false,
      timeZone: null,
      mode: null,
      state: "invalid",
      overridden: false,
      reason: `Invalid: ${record.problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join("; ")}`,
      cause: null,
      since: null,
      nextTransition: null,
      nextOpen: null,
      nextClose: null,
    };
  }
  const evaluator = new Evaluator([record.compiled], overridesFor(record.name, overrides));
  const decision = evaluator.stateAt(now);
  const transitions = evaluator.transitions(now, lookAhead);
  const first = transitions[0];
  const nextOpen = transitions.find((t) => t.state === "open");
  const nextClose = transitions.find((t) => t.state !== "open");
  return {
    ...base,
    valid: true,
    timeZone: timeZoneOf(record.window.spec),
    mode: modeOf(record.window.spec),
    state: decision.state,
    overridden: decision.overridden,
    reason: reasonOf(decision, record.compiled.zone, first !== undefined && first.at === decision.until ? first.state : null),
    cause: causeView(decision.cause),
    since: decision.since === null ? null : rfc3339(decision.since),
    nextTransition: first === undefined ? null : { at: rfc3339(first.at), state: first.state, overridden: first.overridden },
    nextOpen: nextOpen === undefined ? null : rfc3339(nextOpen.at),
    nextClose: nextClose === undefined ? null : rfc3339(nextClose.at),
  };
}

export interface IntervalView {
  start: string;
  end: string;
}

export interface FreezeView extends IntervalView {
  label: string;
  reason?: string;
}

export interface OverrideBand extends IntervalView {
  name: string;
  action: "Open" | "Freeze";
  reason: string;
  /** Who asked for it, when the service committed it. */
  by?: string;
}

export interface SegmentView extends IntervalView {
  state: "open" | "closed" | "frozen";
  overridden: boolean;
  cause: CauseView | null;
}

/** One window over a range: its allow and freeze intervals, its overrides, and what results. */
export interface WindowTimeline {
  name: string;
  timeZone: string | null;
  valid: boolean;
  /** Why the window is not valid (only for an invalid one): the dashboard draws it as invalid with this. */
  problems?: FieldProblem[];
  /** Merged allow intervals (schedules alone). */
  allow: IntervalView[];
  /** Frozen intervals of the window's own freezes, with their reasons. */
  freezes: FreezeView[];
  overrides: OverrideBand[];
  /** When targets may take changes: allow minus freezes, with overrides. */
  open: IntervalView[];
  /** The range cut into stretches of one state. */
  segments: SegmentView[];
}

function interval(i: { start: number; end: number }): IntervalView {
  return { start: rfc3339(i.start), end: rfc3339(i.end) };
}

function segmentView(s: Segment): SegmentView {
  return { ...interval(s), state: s.state, overridden: s.overridden, cause: causeView(s.cause) };
}

/** A window's intervals within `[from, to)` as epoch milliseconds: what its timeline (full or compact) is written from. */
export interface WindowIntervals {
  allow: Interval[];
  freezes: Array<Interval & { label: string; reason?: string }>;
  overrides: Array<Interval & Pick<OverrideInput, "name" | "action" | "reason">>;
  segments: Segment[];
}

/** A valid window's allow and freeze intervals, overrides and the segments that result, within `[from, to)`. */
export function windowIntervals(compiled: CompiledWindow, inputs: readonly OverrideInput[], from: number, to: number): WindowIntervals {
  const allow = new Evaluator([{ ...compiled, freeze: [] }]).openIntervals(from, to);
  // Each freeze on its own, so touching freezes keep their own reasons; cut by rule, so each day of
  // a holiday freeze names its holiday.
  const freezes = compiled.freeze
    .flatMap((rule) =>
      new Evaluator([{ ...compiled, allow: [rule], freeze: [] }])
        .segments(from, to, { byRule: true })
        .filter((s) => s.state === "open")
        .map((s) => {
          const ref = s.cause ?? rule.ref;
          return { start: s.start, end: s.end, label: ref.label, ...(ref.reason === undefined ? {} : { reason: ref.reason }) };
        }),
    )
    .sort((a, b) => a.start - b.start);
  return {
    allow,
    freezes,
    overrides: inputs
      .filter((o) => o.end > from && o.start < to)
      .map((o) => ({ start: Math.max(o.start, from), end: Math.min(o.end, to), name: o.name, action: o.action, reason: o.reason })),
    segments: new Evaluator([compiled], inputs).segments(from, to),
  };
}

/** The open stretches of a window's segments, touching ones merged (as Evaluator.openIntervals gives them). */
export function openOf(segments: readonly Segment[]): Interval[] {
  const out: Interval[] = [];
  for (const s of segments) {
    if (s.state !== "open") continue;
    const last = out[out.length - 1];
    if (last !== undefined && last.end === s.start) last.end = s.end;
    else out.push({ start: s.start, end: s.end });
  }
  return out;
}

/** A window's timeline within `[from, to)`; `compiled` is null for an invalid window. */
export function windowTimeline(name: string, compiled: CompiledWindow | null, inputs: readonly OverrideInput[], from: number, to: number): WindowTimeline {
  if (compiled === null) {
    return { name, timeZone: null, valid: false, allow: [], freezes: [], overrides: [], open: [], segments: [] };
  }
  const parts = windowIntervals(compiled, inputs, from, to);
  return {
    name,
    timeZone: compiled.zone.name,
    valid: true,
    allow: parts.allow.map(interval),
    freezes: parts.freezes.map((f): FreezeView => ({ ...interval(f), label: f.label, ...(f.reason === undefined ? {} : { reason: f.reason }) })),
    overrides: parts.overrides.map((o) => ({ ...interval(o), name: o.name, action: o.action, reason: o.reason })),
    open: openOf(parts.segments).map(interval),
    segments: parts.segments.map(segmentView),
  };
}

/** A stretch of a target's lane: its combined decision from every window and override that selects it. */
export interface TargetSegmentView extends IntervalView {
  /** enforce (spec.suspend follows), gate (the revision does), hold (an invalid window: left as it is). */
  effect: Effect;
  /** Null while held as it is. */
  state: "open" | "closed" | "frozen" | null;
  overridden: boolean;
  cause: CauseView | null;
}

/**
 * One target's lane: what the controller decides for it over the range, from all its windows and
 * their overrides (a freeze of one window beats the allow of another), as `fluxgate explain` does.
 */
export interface TargetTimeline {
  kind: string;
  namespace: string;
  name: string;
  /** False for a target a window names that no file of the cluster's directory declares (its labels are then unknown). */
  declared: boolean;
  /** The windows that select it, by name. */
  windows: string[];
  segments: TargetSegmentView[];
}

/** A cluster's timeline: every window of it, and every target a window selects. */
export interface ClusterTimeline {
  cluster: string;
  timeZone: string;
  from: string;
  to: string;
  windows: WindowTimeline[];
  targets: TargetTimeline[];
}

/** A window as per-target lanes need it: its targets (read as the controller reads them, even when invalid) and mode. */
export interface WindowTargets {
  name: string;
  compiled: CompiledWindow | null;
  mode: "Suspend" | "Gate";
  targets: readonly TargetSelector[];
}

/** What a cluster's timeline is made from: a ClusterModel, or the part of one a worker thread is sent (timeline.ts). */
export interface TimelineSource {
  entry: { name: string; timeZone: string };
  windows: readonly (Pick<WindowRecord, "name" | "compiled" | "problems"> & Omit<WindowTargets, "compiled">)[];
  overrides: readonly Pick<OverrideRecord, "name" | "input" | "requestedBy" | "folderFreeze">[];
  targets: readonly Pick<TargetRecord, "kind" | "namespace" | "name" | "labels">[];
}

/** The windows of a cluster as the planner sees them: all in the namespace the layout puts them in. */
export function planningWindows(windows: readonly WindowTargets[]): PlanningWindow[] {
  return windows.map((w) => ({
    key: `${FLUX_NAMESPACE}/${w.name}`,
    namespace: FLUX_NAMESPACE,
    name: w.name,
    mode: w.mode,
    compiled: w.compiled,
    targets: w.targets,
    closeGracePeriodMs: 0,
    gatedSource: null,
    onRevert: "Hold",
    deleting: false,
  }));
}

/** The overrides of a cluster as the planner sees them. */
export function planningOverrides(overrides: readonly OverrideSource[]): OverrideView[] {
  return overrides.flatMap((o) =>
    o.input === null ? [] : windowsOf(o).map((window) => ({ ...(o.input as OverrideInput), window, namespace: FLUX_NAMESPACE })),
  );
}

/** A target's lane as epoch milliseconds: what its timeline (full or compact) is written from. */
export interface TargetLane extends Omit<TargetTimeline, "segments"> {
  segments: TargetSegment[];
}

/** How a target's segments are had: `compute` computes them; a caller may give the same segments it computed for the same windows and overrides before. */
export type SegmentsOf = (
  selecting: readonly PlanningWindow[],
  overrides: readonly OverrideView[],
  from: number,
  to: number,
  compute: () => TargetSegment[],
) => TargetSegment[];

/**
 * Every target some window of the cluster selects: those declared in the cluster's directory, and
 * those a window names that none declares. Each with its combined decision over `[from, to)`.
 */
export function targetLanes(
  source: Pick<TimelineSource, "windows" | "overrides" | "targets">,
  from: number,
  to: number,
  segmentsOf: SegmentsOf = (_s, _o, _f, _t, compute) => compute(),
): TargetLane[] {
  const windows = planningWindows(source.windows);
  const overrides = planningOverrides(source.overrides);
  const known = new Map(source.targets.map((t) => [`${t.kind}/${t.namespace}/${t.name}`, { ...t, declared: true }]));
  for (const w of windows) {
    for (const t of w.targets) {
      const key = `${t.kind}/${t.namespace ?? w.namespace}/${t.name ?? ""}`;
      if (t.name !== undefined && !known.has(key))
        known.set(key, { kind: t.kind, namespace: t.namespace ?? w.namespace, name: t.name, labels: {}, declared: false });
    }
  }
  const out: TargetLane[] = [];
  for (const t of [...known.values()].sort((a, b) => `${a.kind}/${a.namespace}/${a.name}`.localeCompare(`${b.kind}/${b.namespace}/${b.name}`))) {
    const selecting = windowsSelecting(t, windows);
    if (selecting.length === 0) continue;
    const segments = segmentsOf(selecting, overrides, from, to, () => targetSegments(selecting, overrides, from, to));
    out.push({ kind: t.kind, namespace: t.namespace, name: t.name, declared: t.declared, windows: selecting.map((w) => w.name), segments });
  }
  return out;
}

/** Every target some window of the cluster selects, with its combined decision over `[from, to)` (see targetLanes). */
export function targetTimelines(source: Pick<TimelineSource, "windows" | "overrides" | "targets">, from: number, to: number): TargetTimeline[] {
  return targetLanes(source, from, to).map((t) => ({
    ...t,
    segments: t.segments.map((seg) => ({ ...interval(seg), effect: seg.effect, state: seg.state, overridden: seg.overridden, cause: causeView(seg.cause) })),
  }));
}

export function clusterTimeline(cluster: TimelineSource, from: number, to: number): ClusterTimeline {
  return {
    cluster: cluster.entry.name,
    timeZone: cluster.entry.timeZone,
    from: rfc3339(from),
    to: rfc3339(to),
    windows: cluster.windows.map((w) => {
      const timeline = windowTimeline(w.name, w.compiled, overridesFor(w.name, cluster.overrides), from, to);
      const by = new Map(cluster.overrides.map((o) => [o.name, o.requestedBy]));
      const overrides = timeline.overrides.map((o) => {
        const who = by.get(o.name);
        return who === null || who === undefined ? o : { ...o, by: who };
      });
      return timeline.valid ? { ...timeline, overrides } : { ...timeline, problems: w.problems };
    }),
    targets: targetTimelines(cluster, from, to),
  };
}

export interface OverrideFileView {
  name: string;
  path: string;
  valid: boolean;
  problems: OverrideRecord["problems"];
  window: string | null;
  action: "Open" | "Freeze" | null;
  reason: string | null;
  until: string | null;
  requestedAt: string | null;
  active: boolean;
  expired: boolean;
  requestedBy: string | null;
  /** The fleet override (fleet freeze) it is part of (label fluxgate.io/fleet-override), or null for one of the cluster's own. */
  fleetOverride: string | null;
  /**
   * True for a freeze of the fleet folder (`path` is fleet/freezes/<name>.yaml): one object for every cluster its clusterSelector
   * matches, ended for all of them with DELETE /fleet/overrides/{fleetOverride}. Then `window` is "*" when it freezes the windows its
   * windowSelector picks, and `windows` names them on this cluster.
   */
  fleetFolder: boolean;
  windows: readonly string[] | null;
  etag: string;
}

/** The fleet override an override file's manifest belongs to (its label), or null. */
function fleetOverrideOf(manifest: unknown): string | null {
  const labels = (manifest as { metadata?: { labels?: Record<string, unknown> } } | null)?.metadata?.labels;
  const value = labels?.[FLEET_OVERRIDE_LABEL];
  return typeof value === "string" ? value : null;
}

/** An override as the API shows it: `active` between its request and its end, `expired` after. */
export function overrideView(o: OverrideRecord, now: number): OverrideFileView {
  return {
    name: o.name,
    path: o.path,
    valid: o.override !== null,
    problems: o.problems,
    window: (o.folderFreeze?.windows ?? null) !== null ? "*" : (o.input?.window ?? null),
    action: o.input?.action ?? null,
    reason: o.input?.reason ?? null,
    until: o.override?.spec.until ?? null,
    requestedAt: o.input === null ? null : rfc3339(o.input.start),
    // As the controller's phases have it (policy/override.ts): a cancelled override is over too.
    active: o.input !== null && overrideStage(o.input, now) === "active",
    expired: o.input !== null && overrideOver(o.input, now),
    requestedBy: o.requestedBy,
    fleetOverride: o.folderFreeze?.name ?? fleetOverrideOf(o.manifest),
    fleetFolder: o.folderFreeze !== undefined,
    windows: o.folderFreeze?.windows ?? null,
    etag: o.etag,
  };
}
