// A window's timing (zone, allow schedules, freezes) compiled into interval rules the evaluator can query.

import { parseCron } from "./cron.ts";
import { parseDuration } from "./duration.ts";
import { ScheduleError } from "./errors.ts";
import { parseLocalDateTime } from "./localtime.ts";
import { Occurrences } from "./occurrences.ts";
import { zoneRules, type ZoneRules } from "./zone.ts";

/** A recurring interval: starts at each `start` occurrence, lasts `duration` or until the next `end` occurrence. */
export interface RecurringSpec {
  start: string;
  end?: string | undefined;
  duration?: string | undefined;
  reason?: string | undefined;
}

/**
 * A freeze: recurring (`start` with `end` or `duration`) or one-off (`from`, `to`: date-times local
 * to the window's zone unless an offset is written).
 */
export interface FreezeSpec {
  start?: string | undefined;
  end?: string | undefined;
  duration?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  reason?: string | undefined;
}

/** The part of a ReconciliationWindow spec that decides time (DESIGN §2). */
export interface WindowTiming {
  timeZone?: string | undefined;
  schedules?: readonly RecurringSpec[] | undefined;
  freezes?: readonly FreezeSpec[] | undefined;
}

/** Half-open interval `[start, end)` of epoch milliseconds. */
export interface Interval {
  start: number;
  end: number;
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

/** A source of intervals: recurring (cron) or one-off. Interval ends are monotone in their starts. */
export interface Rule {
  readonly ref: RuleRef;
  /** The interval with the latest start at or before `t`, or null. */
  atOrBefore(t: number): Interval | null;
  /** The interval with the earliest start strictly after `t`, or null. */
  after(t: number): Interval | null;
}

/** A window ready for evaluation. */
export interface CompiledWindow {
  readonly name: string;
  readonly zone: ZoneRules;
  readonly allow: readonly Rule[];
  readonly freeze: readonly Rule[];
}

class RecurringRule implements Rule {
  readonly ref: RuleRef;
  private readonly starts: Occurrences;
  private readonly ends: Occurrences | null;
  private readonly duration: number;

  constructor(ref: RuleRef, starts: Occurrences, ends: Occurrences | null, duration: number) {
    this.ref = ref;
    this.starts = starts;
    this.ends = ends;
    this.duration = duration;
  }

  atOrBefore(t: number): Interval | null {
    const start = this.starts.atOrBefore(t);
    return start === null ? null : this.interval(start);
  }

  after(t: number): Interval | null {
    const start = this.starts.after(t);
    return start === null ? null : this.interval(start);
  }

  private interval(start: number): Interval | null {
    if (this.ends === null) return { start, end: start + this.duration };
    const end = this.ends.after(start);
    return end === null ? null : { start, end };
  }
}

/** A one-off interval, e.g. a holiday freeze or an override. */
export class FixedRule implements Rule {
  readonly ref: RuleRef;
  private readonly interval: Interval;

  constructor(ref: RuleRef, interval: Interval) {
    this.ref = ref;
    this.interval = interval;
  }

  atOrBefore(t: number): Interval | null {
    return this.interval.start <= t ? this.interval : null;
  }

  after(t: number): Interval | null {
    return this.interval.start > t ? this.interval : null;
  }
}

/**
 * Compiles a window's timing. Throws a ScheduleError whose path names the field
 * (`spec.schedules[1].duration`) for any invalid part.
 *
 * @example compileWindow("weekday-changes", { timeZone: "Europe/Berlin", schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }] })
 */
export function compileWindow(name: string, timing: WindowTiming, path = "spec"): CompiledWindow {
  const zoneName = timing.timeZone ?? "UTC";
  let zone: ZoneRules;
  try {
    zone = zoneRules(zoneName);
  } catch (e) {
    throw e instanceof ScheduleError ? e.at(`${path}.timeZone`) : e;
  }
  const allow = (timing.schedules ?? []).map((s, i) =>
    compileRecurring(s, zone, { window: name, kind: "allow", index: i }, `${path}.schedules[${i}]`),
  );
  const freeze = (timing.freezes ?? []).map((f, i) => {
    const at = `${path}.freezes[${i}]`;
    const ref = { window: name, kind: "freeze" as const, index: i };
    if (f.from !== undefined || f.to !== undefined) return compileAbsolute(f, zone, ref, at);
    return compileRecurring(f, zone, ref, at);
  });
  return { name, zone, allow, freeze };
}

function compileRecurring(
  spec: FreezeSpec,
  zone: ZoneRules,
  ref: Omit<RuleRef, "label">,
  path: string,
): Rule {
  const field = <T>(name: string, parse: () => T): T => {
    try {
      return parse();
    } catch (e) {
      throw e instanceof ScheduleError ? e.at(`${path}.${name}`) : e;
    }
  };
  if (typeof spec.start !== "string") throw new ScheduleError("is required: a cron expression such as \"0 8 * * MON\"", `${path}.start`);
  const hasEnd = spec.end !== undefined;
  const hasDuration = spec.duration !== undefined;
  if (hasEnd === hasDuration) {
    throw new ScheduleError(
      hasEnd ? "has both end and duration: give exactly one" : "needs an end (cron) or a duration (e.g. \"2h\")",
      path,
    );
  }
  const start = spec.start;
  const starts = new Occurrences(field("start", () => parseCron(start)), zone);
  const ends = hasEnd ? new Occurrences(field("end", () => parseCron(spec.end as string)), zone) : null;
  const duration = hasDuration ? field("duration", () => parseDuration(spec.duration as string)) : 0;
  const label = `${spec.start} → ${hasEnd ? spec.end : `+${spec.duration}`}`;
  return new RecurringRule({ ...ref, label, reason: spec.reason }, starts, ends, duration);
}

function compileAbsolute(spec: FreezeSpec, zone: ZoneRules, ref: Omit<RuleRef, "label">, path: string): Rule {
  if (typeof spec.from !== "string") throw new ScheduleError("is required with to: a date-time such as \"2026-12-20T00:00\"", `${path}.from`);
  if (typeof spec.to !== "string") throw new ScheduleError("is required with from: a date-time such as \"2027-01-05T00:00\"", `${path}.to`);
  const parse = (name: "from" | "to"): number => {
    try {
      return parseLocalDateTime(spec[name] as string, zone);
    } catch (e) {
      throw e instanceof ScheduleError ? e.at(`${path}.${name}`) : e;
    }
  };
  const from = parse("from");
  const to = parse("to");
  if (to <= from) {
    throw new ScheduleError(`"${spec.to}" is ${to === from ? "the same time as" : "before"} from "${spec.from}": a freeze must end after it starts`, `${path}.to`);
  }
  return new FixedRule({ ...ref, label: `${spec.from} → ${spec.to}`, reason: spec.reason }, { start: from, end: to });
}
