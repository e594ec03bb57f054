// Writes a cluster's timeline in the compact form of the fleet timeline (timeline-format.ts), from the engine's numbers, reusing what clusters alike share.

import type { TargetSegment } from "../../policy/index.ts";
import { rfc3339 } from "../../schedule/format.ts";
import type { CompiledWindow, OverrideInput, RuleRef, Segment } from "../../schedule/index.ts";
import { repeated, type CompactClusterTimeline, type CompactState, type CompactWindow } from "./timeline-format.ts";
import { causeView, overridesFor, targetLanes, windowIntervals, type CauseView, type TimelineSource, type WindowIntervals } from "./views.ts";

/** A map that keeps its `size` most recently used entries. */
export class Recent<V> {
  private readonly entries = new Map<string, V>();
  private readonly size: number;
  constructor(size: number) {
    this.size = size;
  }
  get(key: string, make: () => V): V {
    const known = this.entries.get(key);
    if (known !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, known);
      return known;
    }
    const made = make();
    this.entries.set(key, made);
    if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value as string);
    return made;
  }
}

/**
 * A fleet's clusters share most of their windows (a fleet window's base, a window copied to every
 * site): a window's intervals, and a target's segments, depend only on the windows and overrides
 * they come from and the range, so clusters alike compute them once. The keys are the inputs as
 * JSON; a compiled window is named by the key it was compiled from.
 */
const windowParts = new Recent<WindowIntervals>(64);
const targetParts = new Recent<TargetSegment[]>(64);
const compiledKeys = new WeakMap<CompiledWindow, string>();

/** Notes the key a compiled window was made from, so its intervals are shared by clusters that have the same window. */
export function keyCompiled(compiled: CompiledWindow, key: string): void {
  compiledKeys.set(compiled, key);
}

function overridesKey(inputs: readonly OverrideInput[]): string {
  return inputs.length === 0 ? "" : JSON.stringify(inputs);
}

function sharedIntervals(compiled: CompiledWindow, inputs: readonly OverrideInput[], from: number, to: number): WindowIntervals {
  const key = compiledKeys.get(compiled);
  if (key === undefined) return windowIntervals(compiled, inputs, from, to);
  return windowParts.get(`${from}\0${to}\0${key}\0${overridesKey(inputs)}`, () => windowIntervals(compiled, inputs, from, to));
}

/** Seconds between two instants, as the compact form writes them. */
function seconds(from: number, to: number): number {
  return (to - from) / 1000;
}

type Kind = Pick<Segment, "overridden" | "cause"> & { state: CompactState["state"]; effect?: CompactState["effect"] };

/** A lane as [length, kind] pairs over its own list of kinds: made once for a lane that clusters alike share. */
const laneCodes = new WeakMap<readonly (Segment | TargetSegment)[], { numbers: number[]; kinds: Kind[] }>();

function laneCode(segs: readonly (Segment | TargetSegment)[]): { numbers: number[]; kinds: Kind[] } {
  const known = laneCodes.get(segs);
  if (known !== undefined) return known;
  const kinds: Kind[] = [];
  const byCause = new Map<RuleRef | null, Map<string, number>>();
  const numbers: number[] = [];
  for (const s of segs) {
    const effect = "effect" in s ? s.effect : undefined;
    let byKey = byCause.get(s.cause);
    if (byKey === undefined) byCause.set(s.cause, (byKey = new Map<string, number>()));
    const key = `${s.state}|${s.overridden}|${effect ?? ""}`;
    let kind = byKey.get(key);
    if (kind === undefined) {
      kind = kinds.push({ state: s.state, overridden: s.overridden, cause: s.cause, ...(effect === undefined ? {} : { effect }) }) - 1;
      byKey.set(key, kind);
    }
    numbers.push(seconds(s.start, s.end), kind);
  }
  // The repeats are found on the lane's own kinds: kinds map one to one to the cluster's states, so repeats stay repeats.
  const code = { numbers: repeated(numbers), kinds };
  laneCodes.set(segs, code);
  return code;
}

/** The compact timeline of a cluster over `[from, to)`: times in seconds from `from`, rules and kinds of stretch listed once. */
export function compactClusterTimeline(source: TimelineSource, from: number, to: number): CompactClusterTimeline {
  const causes: CauseView[] = [];
  const causeIndex = new Map<string, number>();
  const byRef = new Map<RuleRef, number>();
  const states: CompactState[] = [];
  const stateIndex = new Map<string, number>();
  const causeOf = (ref: RuleRef | null): number | null => {
    if (ref === null) return null;
    const known = byRef.get(ref);
    if (known !== undefined) return known;
    const view = causeView(ref) as CauseView;
    const key = JSON.stringify(view);
    let index = causeIndex.get(key);
    if (index === undefined) {
      index = causes.push(view) - 1;
      causeIndex.set(key, index);
    }
    byRef.set(ref, index);
    return index;
  };
  const stateOf = (s: Kind): number => {
    const cause = causeOf(s.cause);
    const key = `${s.state}|${s.overridden}|${cause}|${s.effect ?? ""}`;
    let index = stateIndex.get(key);
    if (index === undefined) {
      index = states.push({ state: s.state, overridden: s.overridden, cause, ...(s.effect === undefined ? {} : { effect: s.effect }) }) - 1;
      stateIndex.set(key, index);
    }
    return index;
  };
  const segmentNumbers = (segs: readonly (Segment | TargetSegment)[]): number[] => {
    // The lane's own kinds of stretch, numbered in this cluster's list; its lengths and kinds as the lane was coded.
    const code = laneCode(segs);
    const index = code.kinds.map(stateOf);
    const out = code.numbers.slice();
    // Lengths are never negative: a negative first number is a repeat, whose second is a count of pairs, not a kind.
    for (let i = 1; i < out.length; i += 2) if ((out[i - 1] as number) >= 0) out[i] = index[out[i] as number] as number;
    return out;
  };
  const by = new Map(source.overrides.map((o) => [o.name, o.requestedBy]));
  const windows = source.windows.map((w): CompactWindow => {
    if (w.compiled === null) return { name: w.name, timeZone: null, valid: false, problems: w.problems, allow: [], freezes: [], overrides: [], segments: [] };
    const parts = sharedIntervals(w.compiled, overridesFor(w.name, source.overrides), from, to);
    const allow: number[] = [];
    let t = from;
    for (const i of parts.allow) {
      allow.push(seconds(t, i.start), seconds(i.start, i.end));
      t = i.end;
    }
    const freezes: number[] = [];
    t = from;
    for (const f of parts.freezes) {
      // Freezes of different rules may overlap: the gap is then negative.
      freezes.push(
        seconds(t, f.start),
        seconds(f.start, f.end),
        causeOf({ window: w.name, kind: "freeze", index: -1, label: f.label, reason: f.reason }) as number,
      );
      t = f.end;
    }
    return {
      name: w.name,
      timeZone: w.compiled.zone.name,
      valid: true,
      allow: repeated(allow),
      freezes,
      overrides: parts.overrides.map((o) => {
        const who = by.get(o.name);
        const band = { start: rfc3339(o.start), end: rfc3339(o.end), name: o.name, action: o.action, reason: o.reason };
        return who === null || who === undefined ? band : { ...band, by: who };
      }),
      segments: segmentNumbers(parts.segments),
    };
  });
  const targets = targetLanes(source, from, to, (selecting, overrides, a, b, compute) => {
    const keys = selecting.map((w) => (w.compiled === null ? undefined : compiledKeys.get(w.compiled)));
    if (keys.some((k) => k === undefined)) return compute();
    const relevant = overrides.filter((o) => selecting.some((w) => w.name === o.window));
    return targetParts.get(`${a}\0${b}\0${selecting.map((w, i) => `${w.mode}:${keys[i] as string}`).join("\0")}\0${overridesKey(relevant)}`, compute);
  }).map((lane) => ({
    kind: lane.kind,
    namespace: lane.namespace,
    name: lane.name,
    declared: lane.declared,
    windows: lane.windows,
    segments: segmentNumbers(lane.segments),
  }));
  return { cluster: source.entry.name, timeZone: source.entry.timeZone, causes, states, windows, targets };
}
