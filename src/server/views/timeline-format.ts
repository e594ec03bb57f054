// The fleet timeline's compact form (GET /api/v1/timeline) and its expansion into the full form of GET /clusters/{cluster}/timeline; pure, also loaded by the
// dashboard.

import type {
  CauseView,
  ClusterTimeline,
  FreezeView,
  IntervalView,
  OverrideBand,
  SegmentView,
  TargetSegmentView,
  TargetTimeline,
  WindowTimeline,
} from "./views.ts";
import type { FieldProblem } from "../../api/index.ts";
import type { Effect } from "../../policy/index.ts";

/**
 * A kind of stretch a lane is made of, listed once per cluster and named by its index. `cause`
 * is an index into the cluster's `causes`, or null; `effect` is there for target lanes only.
 */
export interface CompactState {
  state: "open" | "closed" | "frozen" | null;
  overridden: boolean;
  cause: number | null;
  effect?: Effect;
}

/**
 * A window in compact form. Times are seconds, each counted from the end of the interval before it
 * (the first from the answer's `from`); in `allow` and `segments`, a pair `[-count, period]` stands
 * for the `period` pairs before it repeated `count` more times (see `repeated`):
 * - `allow`: pairs [gap, length], the merged allow intervals of its schedules;
 * - `freezes`: triples [gap, length, cause], its own freezes (the cause gives label and reason);
 * - `segments`: pairs [length, state], the range cut into stretches of one state, end to end from `from` to `to`.
 * The open intervals of the full form are the open segments, touching ones merged.
 */
export interface CompactWindow {
  name: string;
  timeZone: string | null;
  valid: boolean;
  problems?: FieldProblem[];
  allow: number[];
  freezes: number[];
  overrides: OverrideBand[];
  segments: number[];
}

/** A target's lane in compact form: `segments` pairs [length, state] end to end from `from` to `to`, repeats written short as in a window's. */
export interface CompactTarget {
  kind: string;
  namespace: string;
  name: string;
  declared: boolean;
  windows: string[];
  segments: number[];
}

/** A cluster's timeline in compact form: its rules and kinds of stretch once, its lanes as numbers. */
export interface CompactClusterTimeline {
  cluster: string;
  timeZone: string;
  causes: CauseView[];
  states: CompactState[];
  windows: CompactWindow[];
  targets: CompactTarget[];
}

/** The answer of GET /api/v1/timeline. */
export interface CompactFleetTimeline {
  format: "compact";
  from: string;
  to: string;
  commit: string;
  selector?: string;
  total: number;
  continue: string | null;
  clusters: CompactClusterTimeline[];
}

/**
 * Instants written, by time: the lanes of a fleet name the same few instants again and again (an hourly schedule on every cluster), and the dashboard expands
 * thousands of them as a screen of clusters comes; forgotten all at once now and then, so a long-lived process does not keep every instant it wrote.
 */
const written = new Map<number, string>();

/** As schedule/format.ts writes instants (whole seconds, UTC), without importing it: the browser loads this module as it is. */
function instant(t: number): string {
  let text = written.get(t);
  if (text === undefined) {
    if (written.size >= 50_000) written.clear();
    // toISOString always ends in ".sssZ" (milliseconds, then Z): cut off, as schedule/format.ts writes instants.
    const iso = new Date(t).toISOString();
    text = `${iso.slice(0, -5)}Z`;
    written.set(t, text);
  }
  return text;
}

/** Milliseconds from a count of seconds as the compact form writes them. */
function ms(seconds: number): number {
  return Math.round(seconds * 1000);
}

/** The longest run of pairs a repeat names (a week of hourly stretches repeats with a period of one or two pairs). */
const MAX_PERIOD = 4;

/**
 * Pairs of numbers with repeats written short: where the next pairs are the last `period` pairs
 * again, `count` times over, the pair `[-count, period]` stands for them. Pairs whose numbers are
 * never negative only (lengths, gaps between intervals that do not overlap).
 *
 * @example repeated([1800, 0, 1800, 1, 1800, 0, 1800, 1, 1800, 0, 1800, 1]) // [1800, 0, 1800, 1, -2, 2]
 */
export function repeated(pairs: readonly number[]): number[] {
  const out: number[] = [];
  const same = (a: number, b: number, length: number): boolean => {
    for (let k = 0; k < length; k++) if (pairs[a + k] !== pairs[b + k]) return false;
    return true;
  };
  let i = 0;
  while (i < pairs.length) {
    let best = 0;
    let bestPeriod = 0;
    for (let period = 1; period <= MAX_PERIOD && period * 2 <= i; period++) {
      const width = period * 2;
      let count = 0;
      while (i + (count + 1) * width <= pairs.length && same(i - width, i + count * width, width)) count++;
      if (count * period > best * bestPeriod && count >= 2) {
        best = count;
        bestPeriod = period;
      }
    }
    if (best >= 2) {
      out.push(-best, bestPeriod);
      i += best * bestPeriod * 2;
    } else {
      out.push(pairs[i] as number, pairs[i + 1] as number);
      i += 2;
    }
  }
  return out;
}

/** The pairs `repeated` wrote short, in full. */
export function unrepeated(numbers: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i + 2 <= numbers.length; i += 2) {
    const a = numbers[i] as number;
    const b = numbers[i + 1] as number;
    if (a >= 0) {
      out.push(a, b);
      continue;
    }
    const width = b * 2;
    if (!Number.isInteger(b) || b < 1 || width > out.length) throw new FormatError(`a repeat of ${b} pairs where ${out.length / 2} came before`);
    const start = out.length - width;
    for (let n = 0; n < -a; n++) for (let k = 0; k < width; k++) out.push(out[start + k] as number);
  }
  return out;
}

class FormatError extends Error {
  constructor(message: string) {
    super(`compact timeline: ${message}`);
    this.name = "FormatError";
  }
}

function stateOf(c: CompactClusterTimeline, index: number | undefined): CompactState {
  const s = index === undefined ? undefined : c.states[index];
  if (s === undefined) throw new FormatError(`cluster ${c.cluster} names state ${String(index)}, which it does not list`);
  return s;
}

function causeOf(c: CompactClusterTimeline, index: number | null | undefined): CauseView | null {
  if (index === null) return null;
  const cause = index === undefined ? undefined : c.causes[index];
  if (cause === undefined) throw new FormatError(`cluster ${c.cluster} names cause ${String(index)}, which it does not list`);
  return cause;
}

/** Intervals written as [gap, length, ...rest] groups of `size` numbers; `each` gets the interval and the group's other numbers. */
function intervals<T>(numbers: readonly number[], size: number, from: number, each: (i: IntervalView, rest: number[]) => T): T[] {
  const out: T[] = [];
  let t = from;
  for (let i = 0; i + size <= numbers.length; i += size) {
    const start = t + ms(numbers[i] as number);
    const end = start + ms(numbers[i + 1] as number);
    out.push(each({ start: instant(start), end: instant(end) }, numbers.slice(i + 2, i + size)));
    t = end;
  }
  return out;
}

/** Segments written as [length, state] pairs, end to end from `from`. */
function segments<T>(numbers: readonly number[], from: number, each: (i: IntervalView, state: number) => T): T[] {
  const out: T[] = [];
  let t = from;
  for (let i = 0; i + 2 <= numbers.length; i += 2) {
    const end = t + ms(numbers[i] as number);
    out.push(each({ start: instant(t), end: instant(end) }, numbers[i + 1] as number));
    t = end;
  }
  return out;
}

function expandWindow(c: CompactClusterTimeline, w: CompactWindow, from: number): WindowTimeline {
  const segs = segments(unrepeated(w.segments), from, (i, s): SegmentView => {
    const st = stateOf(c, s);
    return { ...i, state: st.state ?? "closed", overridden: st.overridden, cause: causeOf(c, st.cause) };
  });
  const open: IntervalView[] = [];
  for (const s of segs) {
    if (s.state !== "open") continue;
    const last = open[open.length - 1];
    if (last !== undefined && last.end === s.start) last.end = s.end;
    else open.push({ start: s.start, end: s.end });
  }
  return {
    name: w.name,
    timeZone: w.timeZone,
    valid: w.valid,
    ...(w.problems === undefined ? {} : { problems: w.problems }),
    allow: intervals(unrepeated(w.allow), 2, from, (i) => i),
    freezes: intervals(w.freezes, 3, from, (i, [cause]): FreezeView => {
      const rule = causeOf(c, cause);
      return { ...i, label: rule?.label ?? "", ...(rule?.reason === undefined ? {} : { reason: rule.reason }) };
    }),
    overrides: w.overrides,
    open,
    segments: segs,
  };
}

function expandTarget(c: CompactClusterTimeline, t: CompactTarget, from: number): TargetTimeline {
  return {
    kind: t.kind,
    namespace: t.namespace,
    name: t.name,
    declared: t.declared,
    windows: t.windows,
    segments: segments(unrepeated(t.segments), from, (i, s): TargetSegmentView => {
      const st = stateOf(c, s);
      return { ...i, effect: st.effect ?? "enforce", state: st.state, overridden: st.overridden, cause: causeOf(c, st.cause) };
    }),
  };
}

/**
 * A cluster of the compact fleet timeline in the full form GET /clusters/{cluster}/timeline gives,
 * over the answer's `[from, to)`.
 *
 * @example const full = expandClusterTimeline(answer.clusters[0], Date.parse(answer.from), Date.parse(answer.to));
 */
export function expandClusterTimeline(c: CompactClusterTimeline, from: number, to: number): ClusterTimeline {
  return {
    cluster: c.cluster,
    timeZone: c.timeZone,
    from: instant(from),
    to: instant(to),
    windows: c.windows.map((w) => expandWindow(c, w, from)),
    targets: c.targets.map((t) => expandTarget(c, t, from)),
  };
}
