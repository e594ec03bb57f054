// The decision for a target at an instant: open, closed or frozen, why, since when and until when.
//
// Rules are stacked in layers by precedence (DESIGN §3), highest first: Freeze override, Open
// override, scheduled freeze, scheduled allow. The first layer active at an instant decides; with
// none, the target is closed. A state lasts from the start of its layer's merged run of intervals
// (or the end of a higher layer) until that run ends (or a higher layer starts).

import { ScheduleError } from "./errors.ts";
import { FixedRule, type CompiledWindow, type Interval, type Rule, type RuleRef } from "./window.ts";

export type WindowState = "open" | "closed" | "frozen";

/** A WindowOverride as the engine sees it: a one-off interval that opens or freezes a window. */
export interface OverrideInput {
  name: string;
  window: string;
  action: "Open" | "Freeze";
  /** When it took effect (epoch ms): its creation time, usually. */
  start: number;
  /** `spec.until` (epoch ms). */
  end: number;
  reason: string;
}

/** The engine's answer for one instant. */
export interface Decision {
  state: WindowState;
  /** True when an override decides. */
  overridden: boolean;
  /** The rule that decided; null when closed. */
  cause: RuleRef | null;
  /** Start of this state; null when it began beyond the look-back horizon. */
  since: number | null;
  /** Next change; null when none is due within the horizon. */
  until: number | null;
}

/** A change of decision. */
export interface Transition {
  at: number;
  state: WindowState;
  overridden: boolean;
  cause: RuleRef | null;
}

/** The open and the frozen stretches of a range (Evaluator.stretches), each as instants `[start, end, …]`. */
export interface Stretches {
  /** Merged, as openIntervals merges them. */
  open: number[];
  /** The frozen segments, as segments cuts them (an override's beside a scheduled freeze's). */
  frozen: number[];
  /** Asked for (`frozenByRule`): the frozen stretches cut as segments by rule cuts them (a run of holidays, each day's); else null. */
  frozenByRule: Segment[] | null;
}

/** A stretch of time with one decision. */
export interface Segment extends Interval {
  state: WindowState;
  overridden: boolean;
  cause: RuleRef | null;
}

/**
 * How far a merged run is followed before it is taken as endless: ten years, longer than any gap
 * a schedule has (Feb 29 skips eight years around 2100). A run of `* * * * *` for 1m in UTC, say,
 * never ends; a run that does end within ten years is always followed to its end.
 */
const HORIZON_MS = 3653 * 86_400_000;
/**
 * Steps a run may take. Duration schedules jump a day's run of touching occurrences at once, so
 * ten years take a few thousand steps; this bounds `end` schedules whose every interval touches
 * the next (say `* * * * *` until `*\/2 * * * *`), which are followed one by one. Reaching it is
 * an error that says so, never a guessed answer.
 */
const MAX_RUN_STEPS = 2_000_000;
/** Most segments one answer holds: a year of a window that opens and closes every minute has 1,054,080. */
export const MAX_SEGMENTS = 1_100_000;

/** What a layer's scan finds at an instant. */
interface Scan {
  rule: Rule | null;
  cause: RuleRef | null;
  start: number;
  end: number;
  lastEnd: number;
}

/**
 * A layer of rules. Its loops over them are indexed: the evaluator runs them hundreds of thousands
 * of times in a preview of a year, mostly before V8 has optimized them, and a for-of loop over an
 * array then makes an object for each step.
 */
class Layer {
  readonly rules: readonly Rule[];
  readonly state: WindowState;
  readonly overridden: boolean;
  /** Whether each merged run is one segment by rule too: one rule, whose intervals all say the same (not a holiday calendar's). */
  readonly onePerRun: boolean;
  /** What scan returns, made once: a preview of a year scans half a million times, and the answer is read before the next scan. */
  private readonly found: Scan = { rule: null, cause: null, start: Infinity, end: -Infinity, lastEnd: -Infinity };
  /** The latest end of the intervals nextIntervals found (a field, not a pair made for each of a year's runs). */
  private nextEnd = -Infinity;

  constructor(rules: readonly Rule[], state: WindowState, overridden: boolean) {
    this.rules = rules;
    this.state = state;
    this.overridden = overridden;
    this.onePerRun = rules.length === 1 && rules[0]?.namesEachInterval !== true;
  }

  /**
   * The first rule active at `t` and the run end so far, or null. Also the latest end at or before `t`.
   * The object is the layer's own, overwritten by its next scan: read it at once.
   */
  scan(t: number): Scan {
    const found = this.found;
    found.rule = null;
    found.cause = null;
    found.start = Infinity;
    found.end = -Infinity;
    found.lastEnd = -Infinity;
    for (let i = 0; i < this.rules.length; i++) {
      const r = this.rules[i] as Rule;
      const iv = r.atOrBefore(t);
      if (iv === null) continue;
      if (iv.end > t) {
        if (found.rule === null) {
          found.rule = r;
          found.cause = iv.ref ?? r.ref;
        }
        if (iv.start < found.start) found.start = iv.start;
        if (iv.end > found.end) found.end = iv.end;
      } else if (iv.end > found.lastEnd) {
        found.lastEnd = iv.end;
      }
    }
    return found;
  }

  /**
   * End of the merged run that reaches `end`: intervals that overlap or touch it extend it. A run
   * followed to `limit` (where a higher layer takes over) need not be followed further.
   */
  runEnd(t: number, end: number, limit = Infinity): number {
    let e = end;
    for (let step = 0; step < MAX_RUN_STEPS; step++) {
      if (e >= limit) return e;
      let next = e;
      for (let i = 0; i < this.rules.length; i++) {
        const r = this.rules[i] as Rule;
        const reach = r.reach(e);
        if (reach > next) next = reach;
      }
      if (next === e) return e;
      e = next;
      if (e - t > HORIZON_MS) return Infinity;
    }
    throw tooManySteps(t);
  }

  /** Start of the merged run that reaches back to `start`; not followed back past `floor` (where a higher layer ended). */
  runStart(t: number, start: number, floor = -Infinity): number {
    let s = start;
    for (let step = 0; step < MAX_RUN_STEPS; step++) {
      if (s <= floor) return s;
      let prev = s;
      for (let i = 0; i < this.rules.length; i++) {
        const r = this.rules[i] as Rule;
        const back = r.reachBack(s);
        if (back < prev) prev = back;
      }
      if (prev === s) return s;
      s = prev;
      if (t - s > HORIZON_MS) return -Infinity;
    }
    throw tooManySteps(t);
  }

  /**
   * Where `rule`, which decides `t` in this layer, stops deciding: the end of its interval at `t`,
   * or earlier, where a rule listed before it (which wins a tie) starts.
   */
  ruleEnd(t: number, rule: Rule): number {
    let end = rule.atOrBefore(t)?.end ?? t;
    for (let i = 0; i < this.rules.length; i++) {
      const r = this.rules[i] as Rule;
      if (r === rule) break;
      const iv = r.after(t);
      if (iv !== null && iv.start < end) end = iv.start;
    }
    return end;
  }

  /**
   * The layer's merged runs within `[from, to)`, clipped to it, as instants `[start, end, …]`: what
   * decides when nothing above it does. A run's end is a bound at which no rule of the layer is
   * active, so the next run is the next start after it.
   */
  runs(from: number, to: number): number[] {
    const atOnce = this.runsAtOnce(from, to);
    if (atOnce !== null) return atOnce;
    const out: number[] = [];
    // A run at `from`, or the intervals that start first after it.
    const first = this.scan(from);
    let t = first.rule !== null ? from : this.nextIntervals(from);
    let end = first.rule !== null ? first.end : this.nextEnd;
    while (t < to) {
      const e = Math.min(this.runEnd(t, end, to), to);
      if (e > t) out.push(t, e);
      // Nothing is active at a run's end, nor until the next start after it: the intervals that start there begin the next run.
      t = this.nextIntervals(e);
      end = this.nextEnd;
    }
    return out;
  }

  /**
   * `runs` from each rule's runs found at once (Rule.runsIn), joined; null when a rule cannot find its own so, and for
   * what the walk answers otherwise: bounds within a millisecond, and a range longer than HORIZON_MS (where the walk
   * takes a run that long to reach on to the range's end).
   */
  private runsAtOnce(from: number, to: number): number[] | null {
    if (!Number.isInteger(from) || !Number.isInteger(to) || to - from > HORIZON_MS) return null;
    let out: number[] = [];
    for (let i = 0; i < this.rules.length; i++) {
      const own = (this.rules[i] as Rule).runsIn?.(from, to) ?? null;
      if (own === null) return null;
      out = union(out, own);
    }
    return out;
  }

  /** The earliest start strictly after `t` (Infinity when none), and in nextEnd the latest end of the intervals that start then. */
  private nextIntervals(t: number): number {
    let start = Infinity;
    let end = -Infinity;
    for (let i = 0; i < this.rules.length; i++) {
      const iv = (this.rules[i] as Rule).after(t);
      if (iv === null || iv.start > start) continue;
      if (iv.start < start) end = iv.end;
      else if (iv.end > end) end = iv.end;
      start = iv.start;
    }
    this.nextEnd = end;
    return start;
  }

  /** Earliest start strictly after `t`. */
  nextStart(t: number): number {
    return this.nextIntervals(t);
  }
}

/** Segments computed at a time for eachSegment: a slice of a long range, made without a generator's step for each. */
const SLICE = 1024;

/** Where a computation of segments has come to: the next instant to decide, and (by rule) the segment that may still grow. */
class Walk {
  readonly from: number;
  readonly to: number;
  readonly byRule: boolean;
  t: number;
  steps = 0;
  held: Segment | null = null;

  constructor(from: number, to: number, byRule: boolean) {
    this.from = from;
    this.to = to;
    this.byRule = byRule;
    this.t = from;
  }
}

/**
 * Evaluates the windows and overrides that select one target (or one window with its overrides).
 *
 * @example new Evaluator([compileWindow("w", spec)]).stateAt(Date.now())
 */
export class Evaluator {
  private readonly layers: readonly Layer[];

  constructor(windows: readonly CompiledWindow[], overrides: readonly OverrideInput[] = []) {
    const overrideRule = (o: OverrideInput): Rule =>
      new FixedRule(
        { window: o.window, kind: o.action === "Open" ? "override-open" : "override-freeze", index: -1, label: o.name, reason: o.reason },
        { start: o.start, end: o.end },
      );
    const valid = overrides.filter((o) => o.end > o.start);
    this.layers = [
      new Layer(valid.filter((o) => o.action === "Freeze").map(overrideRule), "frozen", true),
      new Layer(valid.filter((o) => o.action === "Open").map(overrideRule), "open", true),
      new Layer(
        windows.flatMap((w) => w.freeze),
        "frozen",
        false,
      ),
      new Layer(
        windows.flatMap((w) => w.allow),
        "open",
        false,
      ),
      // A layer without rules decides nothing and moves no bound: left out, not asked at every instant.
    ].filter((layer) => layer.rules.length > 0);
  }

  /** The decision at instant `t`, with the interval over which it holds. */
  stateAt(t: number): Decision {
    return this.decide(t, true);
  }

  /** The next `count` changes of decision strictly after `from` (and before `until`, when given). */
  transitions(from: number, count: number, until = Infinity): Transition[] {
    const out: Transition[] = [];
    let t = from;
    while (out.length < count) {
      const d = this.decide(t, false);
      if (d.until === null || d.until >= until) break;
      const next = this.decide(d.until, false);
      out.push({ at: d.until, state: next.state, overridden: next.overridden, cause: next.cause });
      t = d.until;
    }
    return out;
  }

  /**
   * The range `[from, to)` cut into segments of constant decision, in order. Adjacent segments differ.
   * With `byRule`, a segment is also cut where the rule that decides changes inside a merged run
   * (two touching schedules): each segment then names the rule that decides every instant of it.
   */
  segments(from: number, to: number, options: { byRule?: boolean } = {}): Segment[] {
    const out: Segment[] = [];
    this.walk(new Walk(from, to, options.byRule === true), out, Infinity);
    return out;
  }

  /**
   * Each of `ranges` cut as `segments(start, end, { byRule: true })` cuts it, in one array: the
   * frozen stretches of a long range, say, each cut where the freeze that decides changes.
   */
  segmentsByRule(ranges: Iterable<Interval>): Segment[] {
    const out: Segment[] = [];
    for (const r of ranges) this.walk(new Walk(r.start, r.end, true), out, Infinity);
    return out;
  }

  /**
   * The segments of `[from, to)` one at a time, so that a server can compute a long range in
   * slices. Throws a ScheduleError when the range holds more than MAX_SEGMENTS of them.
   */
  *eachSegment(from: number, to: number, options: { byRule?: boolean } = {}): Generator<Segment, void, undefined> {
    const walk = new Walk(from, to, options.byRule === true);
    const slice: Segment[] = [];
    do {
      slice.length = 0;
      this.walk(walk, slice, SLICE);
      for (let i = 0; i < slice.length; i++) yield slice[i] as Segment;
    } while (slice.length > 0);
  }

  /**
   * Appends the next segments of `walk` to `out`, until it holds `max` or the range is done. Two
   * loops, not one with a branch: V8 compiles a long walk's loop while it runs (on-stack
   * replacement) and keeps that code, so a branch only the other kind of walk takes, or a line after
   * the loop that had not yet run, sent each later call back to the interpreter (a year's preview:
   * 296 times; docs/performance-history.md, "A walk in two loops").
   */
  private walk(walk: Walk, out: Segment[], max: number): void {
    if (walk.byRule) this.walkByRule(walk, out, max);
    else this.walkMerged(walk, out, max);
  }

  /** walk's segments of constant decision. */
  private walkMerged(walk: Walk, out: Segment[], max: number): void {
    const to = walk.to;
    while (walk.t < to && out.length < max) {
      const t = walk.t;
      const d = this.step(walk, t, false);
      const end = Math.min(d.until ?? Infinity, to);
      out.push({ start: t, end, state: d.state, overridden: d.overridden, cause: d.cause });
      walk.t = end;
    }
  }

  /** walk's segments cut where the rule that decides changes; the last is held until the next touches it or the range ends. */
  private walkByRule(walk: Walk, out: Segment[], max: number): void {
    const to = walk.to;
    while (out.length < max) {
      if (walk.t >= to) {
        if (walk.held !== null) out.push(walk.held);
        walk.held = null;
        return;
      }
      const t = walk.t;
      const d = this.step(walk, t, true);
      const end = Math.min(d.until ?? Infinity, to);
      const segment: Segment = { start: t, end, state: d.state, overridden: d.overridden, cause: d.cause };
      walk.t = end;
      // The same rule again (its next occurrence touches this one): one segment.
      const held = walk.held;
      if (held !== null && held.state === segment.state && held.overridden === segment.overridden && sameRule(held.cause, segment.cause)) {
        held.end = end;
        continue;
      }
      if (held !== null) out.push(held);
      walk.held = segment;
    }
  }

  /** The decision at `t`, counted against MAX_SEGMENTS. */
  private step(walk: Walk, t: number, byRule: boolean): Decision {
    if (walk.steps++ >= MAX_SEGMENTS) throw tooManySegments(walk.from, walk.to);
    return this.decide(t, false, byRule);
  }

  /**
   * What `segments(from, to)` says of each instant's state, without the rules that decide: the open
   * stretches merged (as openIntervals) and the frozen segments (adjacent ones are those of an
   * override and of a scheduled freeze), each as instants `[start, end, …]`. Computed a layer at a
   * time, each layer's runs less the time the layers above it take: a layer is asked once per run of
   * its own, not once for every change of state (a year of a minute-level window with an hourly
   * freeze: 8,760 runs of the freeze, one of the schedule, against 17,520 decisions). Throws as
   * segments does when the range holds more than MAX_SEGMENTS changes of state. With `frozenByRule`,
   * also the frozen stretches cut where the rule that decides changes, as segmentsByRule cuts them.
   */
  stretches(from: number, to: number, options: { frozenByRule: true }): Stretches & { frozenByRule: Segment[] };
  stretches(from: number, to: number, options?: { frozenByRule?: boolean }): Stretches;
  stretches(from: number, to: number, options: { frozenByRule?: boolean } = {}): Stretches {
    if (to <= from) return { open: [], frozen: [], frozenByRule: options.frozenByRule === true ? [] : null };
    let taken: number[] = [];
    const open: number[][] = [];
    const frozen: number[][] = [];
    const cuts: Segment[][] = [];
    let pieces = 0;
    for (let i = 0; i < this.layers.length; i++) {
      const layer = this.layers[i] as Layer;
      const runs = layer.runs(from, to);
      const own = taken.length === 0 ? runs : minus(runs, taken);
      pieces += own.length / 2;
      (layer.state === "open" ? open : frozen).push(own);
      if (options.frozenByRule === true && layer.state === "frozen") cuts.push(this.byRule(layer, own));
      taken = union(taken, runs);
    }
    // And a closed segment in each gap between what the layers take.
    if (pieces + gapsIn(taken, from, to) > MAX_SEGMENTS) throw tooManySegments(from, to);
    // An override's and a schedule's open stretches, which may touch, joined.
    const cut = cuts.filter((l) => l.length > 0);
    return {
      open: open.reduce((a, b) => union(a, b), []),
      frozen: mergeSorted(frozen),
      frozenByRule: options.frozenByRule === true ? (cut.length > 1 ? cut.flat().sort((a, b) => a.start - b.start) : (cut[0] ?? [])) : null,
    };
  }

  /** The stretches `pieces` that `layer` decides, cut as segments by rule cuts them: a run of a layer of one rule is one segment. */
  private byRule(layer: Layer, pieces: readonly number[]): Segment[] {
    const out: Segment[] = [];
    const cause = layer.onePerRun ? (layer.rules[0] as Rule).ref : null;
    for (let k = 0; k < pieces.length; k += 2) {
      const start = pieces[k] as number;
      const end = pieces[k + 1] as number;
      if (cause !== null) out.push({ start, end, state: layer.state, overridden: layer.overridden, cause });
      else this.walk(new Walk(start, end, true), out, Infinity);
    }
    return out;
  }

  /**
   * The merged intervals within `[from, to)` during which targets may take changes (allow minus
   * freeze, with overrides), clipped to the range, sorted and disjoint.
   */
  openIntervals(from: number, to: number): Interval[] {
    const out: Interval[] = [];
    for (const s of this.segments(from, to)) {
      if (s.state !== "open") continue;
      const last = out[out.length - 1];
      if (last !== undefined && last.end === s.start) last.end = s.end;
      else out.push({ start: s.start, end: s.end });
    }
    return out;
  }

  /** The decision at `t`; `byRule`: until the rule that decides changes, not the end of the merged run. */
  private decide(t: number, withSince: boolean, byRule = false): Decision {
    let since = -Infinity;
    let until = Infinity;
    // Indexed, as Layer's loops are.
    for (let i = 0; i < this.layers.length; i++) {
      const layer = this.layers[i] as Layer;
      const scan = layer.scan(t);
      if (scan.rule !== null) {
        until = Math.min(until, byRule ? layer.ruleEnd(t, scan.rule) : layer.runEnd(t, scan.end, until));
        if (withSince) since = Math.max(since, layer.runStart(t, scan.start, since));
        return finish(layer.state, layer.overridden, scan.cause, since, until);
      }
      since = Math.max(since, scan.lastEnd);
      until = Math.min(until, layer.nextStart(t));
    }
    return finish("closed", false, null, withSince ? since : -Infinity, until);
  }
}

function sameRule(a: RuleRef | null, b: RuleRef | null): boolean {
  if (a === null || b === null) return a === b;
  return a.window === b.window && a.kind === b.kind && a.index === b.index && a.label === b.label && a.reason === b.reason;
}

function finish(state: WindowState, overridden: boolean, cause: RuleRef | null, since: number, until: number): Decision {
  return {
    state,
    overridden,
    cause,
    since: Number.isFinite(since) ? since : null,
    until: Number.isFinite(until) ? until : null,
  };
}

function tooManySegments(from: number, to: number): ScheduleError {
  return new ScheduleError(
    `the range ${new Date(from).toISOString()} to ${new Date(to).toISOString()} holds more than ${MAX_SEGMENTS.toLocaleString("en-US")} changes of state, the most one answer holds: ask for a shorter range`,
  );
}

/** The stretches of `a` that `b` does not cover; each sorted and disjoint, as instants `[start, end, …]`. */
function minus(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let j = 0;
  for (let i = 0; i < a.length; i += 2) {
    let start = a[i] as number;
    const end = a[i + 1] as number;
    // Stretches of b that end at or before this one's start cover none of it, nor of any after it.
    while (j < b.length && (b[j + 1] as number) <= start) j += 2;
    for (let k = j; k < b.length && (b[k] as number) < end; k += 2) {
      if ((b[k] as number) > start) out.push(start, b[k] as number);
      start = Math.max(start, b[k + 1] as number);
    }
    if (start < end) out.push(start, end);
  }
  return out;
}

/** The union of `a` and `b` (each sorted and disjoint), overlapping and touching stretches joined. */
function union(a: readonly number[], b: readonly number[]): number[] {
  if (a.length === 0) return b as number[];
  if (b.length === 0) return a as number[];
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    // The stretch that starts first of the two lists' next.
    let start: number;
    let end: number;
    if (j >= b.length || (i < a.length && (a[i] as number) <= (b[j] as number))) {
      start = a[i] as number;
      end = a[i + 1] as number;
      i += 2;
    } else {
      start = b[j] as number;
      end = b[j + 1] as number;
      j += 2;
    }
    if (out.length > 0 && (out[out.length - 1] as number) >= start) {
      if (end > (out[out.length - 1] as number)) out[out.length - 1] = end;
    } else {
      out.push(start, end);
    }
  }
  return out;
}

/** The stretches of every list in `lists` (each sorted and disjoint, none overlapping another's) in one list, sorted by start. */
function mergeSorted(lists: ReadonlyArray<readonly number[]>): number[] {
  const nonEmpty = lists.filter((l) => l.length > 0);
  if (nonEmpty.length === 0) return [];
  if (nonEmpty.length === 1) return nonEmpty[0] as number[];
  const at = nonEmpty.map(() => 0);
  const out: number[] = [];
  for (;;) {
    let best = -1;
    for (let l = 0; l < nonEmpty.length; l++) {
      const i = at[l] as number;
      const list = nonEmpty[l] as readonly number[];
      if (i < list.length && (best < 0 || (list[i] as number) < ((nonEmpty[best] as readonly number[])[at[best] as number] as number))) best = l;
    }
    if (best < 0) return out;
    const list = nonEmpty[best] as readonly number[];
    const i = at[best] as number;
    out.push(list[i] as number, list[i + 1] as number);
    at[best] = i + 2;
  }
}

/** How many stretches of `[from, to)` `taken` (sorted, disjoint, within it) leaves uncovered. */
function gapsIn(taken: readonly number[], from: number, to: number): number {
  if (taken.length === 0) return 1;
  let gaps = 0;
  let t = from;
  for (let i = 0; i < taken.length; i += 2) {
    if ((taken[i] as number) > t) gaps++;
    t = taken[i + 1] as number;
  }
  return t < to ? gaps + 1 : gaps;
}

function tooManySteps(t: number): ScheduleError {
  return new ScheduleError(
    `the intervals around ${new Date(t).toISOString()} touch one another more than ${MAX_RUN_STEPS.toLocaleString("en-US")} times in a row: use a duration instead of an end for a schedule that runs this often`,
  );
}
