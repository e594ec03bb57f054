// What the evaluator asks of every source of intervals (cron schedules, recurrences, one-off freezes, overrides).

/** Half-open interval `[start, end)` of epoch milliseconds. */
export interface Interval {
  start: number;
  end: number;
  /** What this one interval is, when it differs from its rule's `ref` (a holiday's name as its reason). */
  ref?: RuleRef | undefined;
}

/** What a rule is, for reasons shown to people. */
export interface RuleRef {
  /** Name of the window (or override) the rule belongs to. */
  window: string;
  kind: "allow" | "freeze" | "override-open" | "override-freeze";
  /** Position in `spec.schedules` or `spec.freezes`; -1 for overrides. */
  index: number;
  /** The rule as written, e.g. `0 8 * * MON → 0 17 * * THU` or `2026-12-20T00:00 → 2027-01-05T00:00`. */
  label: string;
  /** The freeze's or override's reason, when given. */
  reason?: string | undefined;
}

/** A source of intervals: recurring (cron or recurrence rule) or one-off. Interval ends are monotone in their starts. */
export interface Rule {
  readonly ref: RuleRef;
  /**
   * True when its intervals carry refs of their own (Interval.ref: each holiday its name), so that a walk by rule cuts
   * where one touches the next; otherwise every interval is the rule's `ref`.
   */
  readonly namesEachInterval?: boolean;
  /**
   * This rule's intervals that meet `[from, to)`, joined where they overlap or touch and clipped to it, as instants
   * `[start, end, …]`, found at once; null (or absent) when the rule has no such shortcut, and the evaluator follows
   * its intervals a run at a time with the methods below.
   */
  runsIn?(from: number, to: number): number[] | null;
  /** The interval with the latest start at or before `t`, or null. */
  atOrBefore(t: number): Interval | null;
  /** The interval with the earliest start strictly after `t`, or null. */
  after(t: number): Interval | null;
  /**
   * How far this rule's intervals reach without a break from the interval with the latest start
   * at or before `t`: at least that interval's end, further when the intervals after it touch
   * or overlap (found arithmetically, not one by one); -Infinity when no interval starts by `t`.
   */
  reach(t: number): number;
  /**
   * The earliest start of a run of this rule's intervals, without a break, up to the interval with
   * the latest start before `s` when that one reaches `s`; Infinity when it does not.
   */
  reachBack(s: number): number;
}
