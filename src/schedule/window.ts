// A window's timing (zone, allow schedules, freezes) compiled into interval rules the evaluator can query.

import { dayMatches, minutesOfDay, parseCron, runsOnDay, searchable, type CronSchedule } from "./cron.ts";
import { parseDuration } from "./duration.ts";
import { ScheduleError } from "./errors.ts";
import { HolidayRule, resolveHolidays, type ClusterContext, type HolidaysSpec } from "./holidays.ts";
import { parseLocalDateTime } from "./localtime.ts";
import { Occurrences } from "./occurrences.ts";
import { compileRecurrence, type RecurrenceSpec } from "./recurrence.ts";
import type { Interval, Rule, RuleRef } from "./rule.ts";
import { zoneRules, type ZoneRules } from "./zone.ts";

/**
 * A recurring interval: starts at each `start` (cron) occurrence, lasts `duration` or until the next
 * `end` occurrence; or starts on each day of a `recurrence` rule (RFC 5545) at `at` (recurrence.ts).
 */
export interface RecurringSpec extends RecurrenceSpec {
  start?: string | undefined;
  end?: string | undefined;
  duration?: string | undefined;
  reason?: string | undefined;
}

/**
 * A freeze: recurring (`start` with `end` or `duration`, or a `recurrence`), one-off (`from`,
 * `to`: date-times local to the window's zone unless an offset is written), or the public
 * holidays of a country or subdivision (`holidays`: whole local days, holidays.ts).
 */
export interface FreezeSpec extends RecurrenceSpec {
  holidays?: HolidaysSpec | undefined;
  start?: string | undefined;
  end?: string | undefined;
  duration?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  reason?: string | undefined;
}

export type { Interval, Rule, RuleRef } from "./rule.ts";

/** The part of a ReconciliationWindow spec that decides time (DESIGN §2). */
export interface WindowTiming {
  timeZone?: string | undefined;
  schedules?: readonly RecurringSpec[] | undefined;
  freezes?: readonly FreezeSpec[] | undefined;
}

/** What compiling may need besides the timing: the cluster a fleet window is evaluated for (its labels place its holidays). */
export interface CompileOptions {
  cluster?: ClusterContext | undefined;
}

/** A window ready for evaluation. */
export interface CompiledWindow {
  readonly name: string;
  readonly zone: ZoneRules;
  readonly allow: readonly Rule[];
  readonly freeze: readonly Rule[];
}

const MINUTE = 60_000;
const DAY = 86_400_000;

/**
 * Runs of a schedule's occurrences within a day: for each matching minute of the day, the first
 * and last matching minute of its run, where a run is a stretch whose consecutive occurrences are
 * at most `duration` apart (so their intervals touch or overlap). The minutes a cron expression
 * allows are the same on every matching day, so one table serves every day.
 */
class DayRuns {
  readonly first = new Int16Array(1440).fill(-1);
  readonly last = new Int16Array(1440).fill(-1);
  /** The runs of a day in order, as their first and last minutes: `[first, last, …]`. */
  readonly runs: number[] = [];

  constructor(cron: CronSchedule, duration: number) {
    const minutes = minutesOfDay(cron);
    let runStart = 0;
    for (let i = 0; i < minutes.length; i++) {
      const next = minutes[i + 1];
      if (next === undefined || (next - (minutes[i] as number)) * MINUTE > duration) {
        for (let j = runStart; j <= i; j++) {
          this.first[minutes[j] as number] = minutes[runStart] as number;
          this.last[minutes[j] as number] = minutes[i] as number;
        }
        this.runs.push(minutes[runStart] as number, minutes[i] as number);
        runStart = i + 1;
      }
    }
  }
}

/** Ten years of wall-clock time, as far as the evaluator follows a run (evaluate.ts). */
const HORIZON_WALL_MS = 3654 * DAY;

/** Minutes of the day at which `end` runs (`all`), and those at which `end` runs and `start` does not (`shared`: days both run). */
function endOnlyMinutes(start: CronSchedule, end: CronSchedule): { all: number[]; shared: number[] } {
  const all: number[] = [];
  const shared: number[] = [];
  for (let h = 0; h < 24; h++) {
    for (let m = 0; m < 60; m++) {
      if (!end.hours[h] || !end.minutes[m]) continue;
      all.push(h * 60 + m);
      if (!start.hours[h] || !start.minutes[m]) shared.push(h * 60 + m);
    }
  }
  return { all, shared };
}

class RecurringRule implements Rule {
  readonly ref: RuleRef;
  private readonly starts: Occurrences;
  private readonly ends: Occurrences | null;
  private readonly duration: number;
  private runs: DayRuns | null = null;
  private endOnly: { all: number[]; shared: number[] } | null = null;

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

  /**
   * Without an `end` schedule, every interval lasts `duration`, and a day's runs (DayRuns) are the same on every day
   * the schedule runs: each run of a day is one stretch from its first occurrence to its last plus `duration`, found
   * by resolving those two, unless the clocks change within it (then its occurrences are listed one by one). A year of
   * a minute-level window is 365 stretches, not 525,600 intervals.
   */
  runsIn(from: number, to: number): number[] | null {
    if (this.ends !== null) return null;
    const d = this.duration;
    const zone = this.starts.zone;
    // The walls of the occurrences whose intervals meet the range: those that start after from - d and before to.
    const first = zone.maxWallUpTo(from - d) + 1;
    const last = zone.maxWallUpTo(to - 1);
    if (!(last >= first)) return [];
    if (!searchable(first, 2 * DAY) || !searchable(last, 2 * DAY)) return null;
    const runs = (this.runs ??= new DayRuns(this.starts.cron, d)).runs;
    const out: number[] = [];
    let runStart = 0;
    let runEnd = -Infinity;
    // A stretch [s, e) of the rule's intervals, in order of start: joined to the one before when they meet.
    const close = (): void => {
      const s = Math.max(runStart, from);
      const e = Math.min(runEnd, to);
      if (s < e) out.push(s, e);
    };
    const add = (s: number, e: number): void => {
      if (s <= runEnd) {
        if (e > runEnd) runEnd = e;
        return;
      }
      close();
      runStart = s;
      runEnd = e;
    };
    for (let day = Math.floor(first / DAY); day * DAY <= last; day++) {
      if (!runsOnDay(this.starts.cron, day)) continue;
      for (let k = 0; k < runs.length; k += 2) {
        const a = day * DAY + (runs[k] as number) * MINUTE;
        const b = day * DAY + (runs[k + 1] as number) * MINUTE;
        if (b < first) continue;
        if (a > last) break;
        const s = zone.resolve(a);
        const e = a === b ? s : zone.resolve(b);
        if (zone.transitionsIn(s, e).length === 0) {
          add(s, e + d);
          continue;
        }
        const listed = this.starts.between(s, e + 1);
        if (listed === null) return null;
        for (let i = 0; i < listed.length; i++) add(listed[i] as number, (listed[i] as number) + d);
      }
    }
    close();
    return out;
  }

  reach(t: number): number {
    const iv = this.atOrBefore(t);
    if (iv === null) return -Infinity;
    if (this.ends !== null) return this.endRunEnd(iv.end);
    const run = this.runAround(iv.start);
    if (run === null || run.last <= iv.start) return iv.end;
    // Between the start and the run's last occurrence the clock does not change (runAround
    // stops at a change), so consecutive occurrences stay at most `duration` apart in time too.
    return Math.max(iv.end, run.last + this.duration);
  }

  reachBack(s: number): number {
    const iv = this.atOrBefore(s - 1);
    if (iv === null || iv.end < s) return Infinity;
    if (this.ends !== null) {
      // An interval reaches s when no end occurs between its start and s: every start from the
      // last end before s on does. The run goes back further through each end occurrence at
      // which a start also occurs (the intervals touch there), to the last at which none does.
      const zone = this.ends.zone;
      let p = this.ends.atOrBefore(s - 1);
      if (p === null) return iv.start;
      let wall = zone.maxWallUpTo(p);
      const limit = wall - HORIZON_WALL_MS;
      while (this.starts.atOrBefore(p) === p) {
        const w = this.prevEndOnlyWall(wall - 1, limit);
        if (w === null) return -Infinity;
        p = zone.resolve(w);
        wall = w;
      }
      const earliest = this.starts.after(p);
      return earliest !== null && earliest < iv.start ? earliest : iv.start;
    }
    const run = this.runAround(iv.start);
    return run === null ? iv.start : Math.min(iv.start, run.first);
  }

  /**
   * For an `end` schedule: where the run that reaches end occurrence `end` stops. Every start
   * between two end occurrences lasts until the second, so the run goes on through each end
   * occurrence at which a start also occurs, and stops at the first at which none does. Those
   * are looked for among the wall-clock minutes that match `end` and not `start`, a day at a time.
   */
  private endRunEnd(end: number): number {
    const ends = this.ends as Occurrences;
    const zone = ends.zone;
    let e = end;
    let wall = zone.maxWallUpTo(e);
    const limit = wall + HORIZON_WALL_MS;
    for (;;) {
      if (this.starts.atOrBefore(e) !== e) return e;
      const w = this.nextEndOnlyWall(wall + 1, limit);
      if (w === null) return Infinity;
      e = zone.resolve(w);
      wall = w;
    }
  }

  /** The first wall-clock minute at or after `wall` that matches `end` but not `start`, before `limit`. */
  private nextEndOnlyWall(wall: number, limit: number): number | null {
    const start = this.starts.cron;
    const end = (this.ends as Occurrences).cron;
    this.endOnly ??= endOnlyMinutes(start, end);
    let day = Math.floor(wall / DAY) * DAY;
    let fromMinute = Math.ceil((wall - day) / MINUTE);
    for (; day < limit; day += DAY, fromMinute = 0) {
      const d = new Date(day);
      const [y, m, dd] = [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()];
      if (!dayMatches(end, y, m, dd)) continue;
      const minutes = dayMatches(start, y, m, dd) ? this.endOnly.shared : this.endOnly.all;
      const found = minutes.find((x) => x >= fromMinute);
      if (found !== undefined) return day + found * MINUTE;
    }
    return null;
  }

  /** The last wall-clock minute at or before `wall` that matches `end` but not `start`, after `limit`. */
  private prevEndOnlyWall(wall: number, limit: number): number | null {
    const start = this.starts.cron;
    const end = (this.ends as Occurrences).cron;
    this.endOnly ??= endOnlyMinutes(start, end);
    let day = Math.floor(wall / DAY) * DAY;
    let toMinute = Math.floor((wall - day) / MINUTE);
    for (; day + DAY > limit; day -= DAY, toMinute = 1439) {
      const d = new Date(day);
      const [y, m, dd] = [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()];
      if (!dayMatches(end, y, m, dd)) continue;
      const minutes = dayMatches(start, y, m, dd) ? this.endOnly.shared : this.endOnly.all;
      const found = minutes.findLast((x) => x <= toMinute);
      if (found !== undefined) return day + found * MINUTE;
    }
    return null;
  }

  /**
   * The first and last occurrences (instants) of the run within one day that holds the occurrence
   * at `start`, cut at any change of the zone's offset; null for `end` schedules, whose intervals
   * are followed one by one.
   */
  private runAround(start: number): { first: number; last: number } | null {
    if (this.ends !== null) return null;
    this.runs ??= new DayRuns(this.starts.cron, this.duration);
    const zone = this.starts.zone;
    // The wall-clock minute that fired at `start` (the last one, when several skipped ones resolve to it).
    const wall = this.starts.firedWall(start);
    if (wall === null) return null;
    const dayStart = Math.floor(wall / DAY) * DAY;
    const minute = (wall - dayStart) / MINUTE;
    const firstMinute = this.runs.first[minute] as number;
    const lastMinute = this.runs.last[minute] as number;
    if (firstMinute < 0) return null;
    // A run of one minute (the schedule's next occurrence is more than `duration` later, say an hourly freeze): the
    // occurrence itself, which its minute resolves to; the zone need not be asked (a preview of a year asks 17,520 times).
    if (firstMinute === minute && lastMinute === minute) return { first: start, last: start };
    let first = zone.resolve(dayStart + firstMinute * MINUTE);
    let last = zone.resolve(dayStart + lastMinute * MINUTE);
    const before = zone.transitionsIn(first - 1, start);
    if (before.length > 0) first = this.starts.after((before[before.length - 1] as number) - 1) ?? start;
    const afterChanges = zone.transitionsIn(start, last);
    if (afterChanges.length > 0) last = this.starts.atOrBefore((afterChanges[0] as number) - 1) ?? start;
    return { first: Math.min(first, start), last: Math.max(last, start) };
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

  runsIn(from: number, to: number): number[] {
    const start = Math.max(this.interval.start, from);
    const end = Math.min(this.interval.end, to);
    return start < end ? [start, end] : [];
  }

  reach(t: number): number {
    return this.interval.start <= t ? this.interval.end : -Infinity;
  }

  reachBack(s: number): number {
    return this.interval.start < s && this.interval.end >= s ? this.interval.start : Infinity;
  }
}

/**
 * Compiles a window's timing. Throws a ScheduleError that names every invalid field at once
 * (`spec.schedules[1].duration`, `spec.freezes[0].to`, ...), each with its problem.
 *
 * @example compileWindow("weekday-changes", { timeZone: "Europe/Berlin", schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }] })
 */
export function compileWindow(name: string, timing: WindowTiming, path = "spec", options: CompileOptions = {}): CompiledWindow {
  const { window, problems } = compileParts(name, timing, path, () => false, options);
  if (window === null) throw ScheduleError.all(problems);
  return window;
}

/**
 * The problems of a timing that only the engine finds (a `to` that is not after its `from` in
 * the window's zone, say), in every part of it but those where `known` (field paths) already
 * found something wrong: such a part may not even have the right types. `timing` is the
 * manifest's, unchecked.
 */
export function timingProblems(
  name: string,
  timing: { timeZone?: unknown; schedules?: unknown; freezes?: unknown },
  path: string,
  known: readonly string[],
  options: CompileOptions = {},
): ScheduleError[] {
  const under = (inner: string, outer: string): boolean => outer === "" || inner === outer || inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`);
  // A list is left out when it is wrong itself; an item or the zone when anything in it is.
  const listWrong = (at: string): boolean => known.some((k) => under(at, k));
  const partWrong = (at: string): boolean => known.some((k) => under(at, k) || under(k, at));
  const list = <T>(value: unknown, at: string): Array<T | undefined> | undefined =>
    listWrong(at) || !Array.isArray(value) ? undefined : value.map((v: unknown, i) => (partWrong(`${at}[${i}]`) ? undefined : (v as T)));
  const zoneAt = `${path}.timeZone`;
  const zone = typeof timing.timeZone === "string" ? timing.timeZone : undefined;
  const zoneWrong = (timing.timeZone !== undefined && zone === undefined) || partWrong(zoneAt);
  return compileParts(
    name,
    { timeZone: zone, schedules: list<RecurringSpec>(timing.schedules, `${path}.schedules`), freezes: list<FreezeSpec>(timing.freezes, `${path}.freezes`) },
    path,
    (at) => at === zoneAt && zoneWrong,
    options,
  ).problems;
}

/**
 * Compiles every part it can: the window when all are valid, and the problem of each part that is
 * not. A part `skip` names, or left undefined in a list, is not looked at.
 */
function compileParts(
  name: string,
  timing: {
    timeZone?: string | undefined;
    schedules?: ReadonlyArray<RecurringSpec | undefined> | undefined;
    freezes?: ReadonlyArray<FreezeSpec | undefined> | undefined;
  },
  path: string,
  skip: (path: string) => boolean,
  options: CompileOptions,
): { window: CompiledWindow | null; problems: ScheduleError[] } {
  const problems: ScheduleError[] = [];
  const attempt = <T>(work: () => T): T | null => {
    try {
      return work();
    } catch (e) {
      if (!(e instanceof ScheduleError)) throw e;
      problems.push(e);
      return null;
    }
  };
  const zoneName = timing.timeZone ?? "UTC";
  // Without a zone, the rest is still checked (crons, durations, date-times), but not whether a `to` comes after its `from`: that depends on the zone.
  const zone = skip(`${path}.timeZone`)
    ? null
    : attempt(() => {
        try {
          return zoneRules(zoneName);
        } catch (e) {
          throw e instanceof ScheduleError ? e.at(`${path}.timeZone`) : e;
        }
      });
  const allow: Array<Rule | null> = (timing.schedules ?? []).map((s, i) => {
    const at = `${path}.schedules[${i}]`;
    if (s === undefined || skip(at)) return null;
    return attempt(() => compileRecurring(s, zone ?? zoneRules("UTC"), { window: name, kind: "allow", index: i }, at));
  });
  const freeze: Array<Rule | null> = (timing.freezes ?? []).map((f, i) => {
    const at = `${path}.freezes[${i}]`;
    if (f === undefined || skip(at)) return null;
    const ref = { window: name, kind: "freeze" as const, index: i };
    if (f.holidays !== undefined) return attempt(() => compileHolidays(f, zone ?? zoneRules("UTC"), ref, at, options.cluster));
    if (f.from !== undefined || f.to !== undefined) return attempt(() => compileAbsolute(f, zone ?? zoneRules("UTC"), ref, at, zone !== null));
    return attempt(() => compileRecurring(f, zone ?? zoneRules("UTC"), ref, at));
  });
  if (problems.length > 0 || zone === null) return { window: null, problems };
  return { window: { name, zone, allow: allow as Rule[], freeze: freeze as Rule[] }, problems };
}

function compileRecurring(spec: FreezeSpec, zone: ZoneRules, ref: Omit<RuleRef, "label">, path: string): Rule {
  const field = <T>(name: string, parse: () => T): T => {
    try {
      return parse();
    } catch (e) {
      throw e instanceof ScheduleError ? e.at(`${path}.${name}`) : e;
    }
  };
  if (spec.recurrence !== undefined) {
    if (spec.start !== undefined || spec.end !== undefined) {
      throw new ScheduleError("mixes a cron schedule (start, end) with a recurrence: give one kind", path);
    }
    return compileRecurrence(spec, zone, ref, path);
  }
  const cronOnly = (["at", "endAt", "dtstart", "exdates"] as const).find((k) => spec[k] !== undefined);
  if (cronOnly !== undefined) throw new ScheduleError("is only used with recurrence", `${path}.${cronOnly}`);
  if (typeof spec.start !== "string") {
    throw new ScheduleError(
      'is required: a cron expression such as "0 8 * * MON" (or give a recurrence such as "FREQ=MONTHLY;BYDAY=2SU" with at)',
      `${path}.start`,
    );
  }
  const hasEnd = spec.end !== undefined;
  const hasDuration = spec.duration !== undefined;
  if (hasEnd === hasDuration) {
    throw new ScheduleError(hasEnd ? "has both end and duration: give exactly one" : 'needs an end (cron) or a duration (e.g. "2h")', path);
  }
  const start = spec.start;
  const starts = new Occurrences(
    field("start", () => parseCron(start)),
    zone,
  );
  const ends = hasEnd
    ? new Occurrences(
        field("end", () => parseCron(spec.end as string)),
        zone,
      )
    : null;
  const duration = hasDuration ? field("duration", () => parseDuration(spec.duration as string)) : 0;
  const label = `${spec.start} → ${hasEnd ? spec.end : `+${spec.duration}`}`;
  return new RecurringRule({ ...ref, label, reason: spec.reason }, starts, ends, duration);
}

/** A freeze of public holidays: whole local days of the window's zone, each named by its holiday. */
function compileHolidays(spec: FreezeSpec, zone: ZoneRules, ref: Omit<RuleRef, "label">, path: string, cluster: ClusterContext | undefined): Rule {
  const other = (["start", "end", "duration", "from", "to", "recurrence", "at", "endAt", "dtstart", "exdates"] as const).find((k) => spec[k] !== undefined);
  if (other !== undefined) {
    throw new ScheduleError(
      "mixes a holiday freeze with another kind (start, end, duration, recurrence, from, to): a holiday freeze is whole days, give holidays alone",
      path,
    );
  }
  const h = resolveHolidays(spec.holidays as HolidaysSpec, `${path}.holidays`, cluster);
  return new HolidayRule({ ...ref, label: h.label, reason: spec.reason }, zone, h.country, h.subdivision, h.types);
}

/** A one-off freeze; `ordered` false leaves out whether `to` comes after `from` (the zone that decides it is not known). */
function compileAbsolute(spec: FreezeSpec, zone: ZoneRules, ref: Omit<RuleRef, "label">, path: string, ordered = true): Rule {
  if (typeof spec.from !== "string") throw new ScheduleError('is required with to: a date-time such as "2026-12-20T00:00"', `${path}.from`);
  if (typeof spec.to !== "string") throw new ScheduleError('is required with from: a date-time such as "2027-01-05T00:00"', `${path}.to`);
  const parse = (name: "from" | "to"): number => {
    try {
      return parseLocalDateTime(spec[name] as string, zone);
    } catch (e) {
      throw e instanceof ScheduleError ? e.at(`${path}.${name}`) : e;
    }
  };
  const from = parse("from");
  const to = parse("to");
  if (ordered && to <= from) {
    throw new ScheduleError(
      `"${spec.to}" is ${to === from ? "the same time as" : "before"} from "${spec.from}": a freeze must end after it starts`,
      `${path}.to`,
    );
  }
  return new FixedRule({ ...ref, label: `${spec.from} → ${spec.to}`, reason: spec.reason }, { start: from, end: to });
}
