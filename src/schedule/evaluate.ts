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

/** A stretch of time with one decision. */
export interface Segment extends Interval {
  state: WindowState;
  overridden: boolean;
  cause: RuleRef | null;
}

/** How far merged runs are followed before giving up: a little over a year, in time and in steps. */
const HORIZON_MS = 400 * 86_400_000;
const MAX_CHAIN_STEPS = 20_000;
const MAX_INTERVALS = 200_000;

class Layer {
  readonly rules: readonly Rule[];
  readonly state: WindowState;
  readonly overridden: boolean;

  constructor(rules: readonly Rule[], state: WindowState, overridden: boolean) {
    this.rules = rules;
    this.state = state;
    this.overridden = overridden;
  }

  /** The first rule active at `t` and the run end so far, or null. Also the latest end at or before `t`. */
  scan(t: number): { rule: Rule | null; start: number; end: number; lastEnd: number } {
    let rule: Rule | null = null;
    let start = Infinity;
    let end = -Infinity;
    let lastEnd = -Infinity;
    for (const r of this.rules) {
      const iv = r.atOrBefore(t);
      if (iv === null) continue;
      if (iv.end > t) {
        rule ??= r;
        if (iv.start < start) start = iv.start;
        if (iv.end > end) end = iv.end;
      } else if (iv.end > lastEnd) {
        lastEnd = iv.end;
      }
    }
    return { rule, start, end, lastEnd };
  }

  /**
   * End of the merged run that reaches `end`: intervals that overlap or touch it extend it. A run
   * followed to `limit` (where a higher layer takes over) need not be followed further.
   */
  runEnd(t: number, end: number, limit = Infinity): number {
    let e = end;
    for (let step = 0; step < MAX_CHAIN_STEPS; step++) {
      if (e >= limit) return e;
      let next = e;
      for (const r of this.rules) {
        const iv = r.atOrBefore(e);
        if (iv !== null && iv.end > next) next = iv.end;
      }
      if (next === e) return e;
      e = next;
      if (e - t > HORIZON_MS) return Infinity;
    }
    return Infinity;
  }

  /** Start of the merged run that reaches back to `start`; not followed back past `floor` (where a higher layer ended). */
  runStart(t: number, start: number, floor = -Infinity): number {
    let s = start;
    for (let step = 0; step < MAX_CHAIN_STEPS; step++) {
      if (s <= floor) return s;
      let prev = s;
      for (const r of this.rules) {
        const iv = r.atOrBefore(s - 1);
        if (iv !== null && iv.end >= s && iv.start < prev) prev = iv.start;
      }
      if (prev === s) return s;
      s = prev;
      if (t - s > HORIZON_MS) return -Infinity;
    }
    return -Infinity;
  }

  /** Earliest start strictly after `t`. */
  nextStart(t: number): number {
    let next = Infinity;
    for (const r of this.rules) {
      const iv = r.after(t);
      if (iv !== null && iv.start < next) next = iv.start;
    }
    return next;
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
      new Layer(windows.flatMap((w) => w.freeze), "frozen", false),
      new Layer(windows.flatMap((w) => w.allow), "open", false),
    ];
  }

  /** The decision at instant `t`, with the interval over which it holds. */
  stateAt(t: number): Decision {
    return this.decide(t, true);
  }

  /** The next `count` changes of decision strictly after `from`. */
  transitions(from: number, count: number): Transition[] {
    const out: Transition[] = [];
    let t = from;
    while (out.length < count) {
      const d = this.decide(t, false);
      if (d.until === null) break;
      const next = this.decide(d.until, false);
      out.push({ at: d.until, state: next.state, overridden: next.overridden, cause: next.cause });
      t = d.until;
    }
    return out;
  }

  /**
   * The range `[from, to)` cut into segments of constant decision, in order. Adjacent segments differ.
   */
  segments(from: number, to: number): Segment[] {
    const out: Segment[] = [];
    let t = from;
    for (let i = 0; t < to && i < MAX_INTERVALS; i++) {
      const d = this.decide(t, false);
      const end = Math.min(d.until ?? Infinity, to);
      out.push({ start: t, end, state: d.state, overridden: d.overridden, cause: d.cause });
      t = end;
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

  private decide(t: number, withSince: boolean): Decision {
    let since = -Infinity;
    let until = Infinity;
    for (const layer of this.layers) {
      const scan = layer.scan(t);
      if (scan.rule !== null) {
        until = Math.min(until, layer.runEnd(t, scan.end, until));
        if (withSince) since = Math.max(since, layer.runStart(t, scan.start, since));
        return finish(layer.state, layer.overridden, scan.rule.ref, since, until);
      }
      since = Math.max(since, scan.lastEnd);
      until = Math.min(until, layer.nextStart(t));
    }
    return finish("closed", false, null, withSince ? since : -Infinity, until);
  }
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

/** How far ahead an allow schedule must open at least once (DESIGN §3). */
export const MUST_OPEN_WITHIN_MS = 366 * 86_400_000;

/**
 * Checks what can only be checked against a clock: every allow schedule opens within 366 days
 * of `now`, and every `end` expression occurs after its start.
 */
export function checkWindowOpens(window: CompiledWindow, now: number, path = "spec"): void {
  window.allow.forEach((rule, i) => {
    const current = rule.atOrBefore(now);
    if (current !== null && current.end > now) return;
    const next = rule.after(now);
    if (next === null || next.start - now > MUST_OPEN_WITHIN_MS) {
      throw new ScheduleError(
        `schedule "${rule.ref.label}" never opens within 366 days of ${new Date(now).toISOString()}: check the start expression`,
        `${path}.schedules[${i}].start`,
      );
    }
  });
}
