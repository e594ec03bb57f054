// Schedules and freezes given by an RFC 5545 recurrence rule: its starts as instants in the window's zone, and the intervals they open.
//
// A local time that does not exist or exists twice is read as RFC 5545 §3.3.5 says (and calendar
// programs show): twice, its first instant; skipped by a gap, with the offset before the gap. That
// differs from the cron rule (DESIGN §3) only in a gap: a cron start at 02:30 on a day without
// 02:30 happens at 03:00, a recurrence's at 03:30 (docs/schedules.md).

import { parseDuration } from "./duration.ts";
import { ScheduleError } from "./errors.ts";
import { FIRST_YEAR, LAST_YEAR, needsStart, parseRecurrence, RecurrenceDays, ymdOf, dayOf, type RecurrenceRule } from "./rrule.ts";
import type { Interval, Rule, RuleRef } from "./rule.ts";
import { describeRecurrence } from "./rrule-words.ts";
import type { ZoneRules } from "./zone.ts";

/** A schedule or freeze by recurrence rule: `{recurrence: "FREQ=MONTHLY;BYDAY=2SU", at: "02:00", duration: "4h"}`. */
export interface RecurrenceSpec {
  recurrence?: string | undefined;
  /** Local time of day each occurrence starts, "HH:MM". */
  at?: string | undefined;
  /** Elapsed length of each occurrence. Exactly one of duration and endAt. */
  duration?: string | undefined;
  /** Local time of day each occurrence ends: the first such time after its start. */
  endAt?: string | undefined;
  /** First date (local), from which INTERVAL and COUNT count. */
  dtstart?: string | undefined;
  /** Local dates (every start that day) or date-times (that start) left out. */
  exdates?: readonly string[] | undefined;
  reason?: string | undefined;
}

const MINUTE = 60_000;
const DAY = 86_400_000;
/** How far a run of touching intervals is followed: beyond the evaluator's ten-year horizon. */
const HORIZON_MS = 3660 * DAY;
/** A rule that picks some day picks one in every 400 years (times its INTERVAL): the calendar repeats. */
const CYCLE_YEARS = 400;
const TIME_OF_DAY = /^([01]\d|2[0-3]):([0-5]\d)$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):([0-5]\d)$/;

/** Parses "HH:MM" into minutes of the day. */
export function parseTimeOfDay(text: string): number {
  const m = TIME_OF_DAY.exec(text.trim());
  if (!m) throw new ScheduleError(`"${text}" is not a time of day: write it like "02:00" or "17:30" (24-hour, local to the window's time zone)`);
  return Number(m[1]) * 60 + Number(m[2]);
}

/** Parses a local date "2026-01-06" into an epoch day. */
export function parseDate(text: string): number {
  const m = DATE.exec(text.trim());
  if (!m) throw new ScheduleError(`"${text}" is not a date: write it like "2026-01-06" (the time of day is at)`);
  return checkedDay(text, Number(m[1]), Number(m[2]), Number(m[3]));
}

function checkedDay(text: string, y: number, mo: number, d: number): number {
  if (y < FIRST_YEAR) throw new ScheduleError(`"${text}": years start at 0001`);
  const day = dayOf(y, mo, d);
  const [yy, mm, dd] = ymdOf(day);
  if (mo < 1 || mo > 12 || yy !== y || mm !== mo || dd !== d) throw new ScheduleError(`"${text}": no such date`);
  return day;
}

/** Starts of a recurrence: instants, found a calendar year at a time and kept. */
export class RecurrenceStarts {
  readonly days: RecurrenceDays;
  readonly zone: ZoneRules;
  readonly minuteOfDay: number;
  private readonly until: number;
  private readonly skipDays: ReadonlySet<number>;
  private readonly skipWalls: ReadonlySet<number>;
  /** With COUNT: every start, found once from dtstart. */
  private readonly counted: number[] | null = null;
  private readonly years = new Map<number, number[]>();
  private readonly firstYear: number;
  private lastYear: number;

  constructor(
    rule: RecurrenceRule,
    start: number | null,
    minuteOfDay: number,
    zone: ZoneRules,
    exdates: { days: ReadonlySet<number>; walls: ReadonlySet<number> },
  ) {
    this.days = new RecurrenceDays(rule, start);
    this.zone = zone;
    this.minuteOfDay = minuteOfDay;
    this.skipDays = exdates.days;
    this.skipWalls = exdates.walls;
    // UNTIL in UTC is an instant; written without Z, a local time in the zone.
    this.until = rule.until === null ? Infinity : rule.until.utc ? rule.until.wall : zone.resolveRfc5545(rule.until.wall);
    this.firstYear = start === null ? FIRST_YEAR : ymdOf(start)[0];
    this.lastYear = Number.isFinite(this.until) ? Math.min(LAST_YEAR, new Date(this.until).getUTCFullYear() + 1) : LAST_YEAR;
    if (rule.count !== null && start !== null) {
      this.counted = this.countFrom(start, rule.count);
      const last = this.counted[this.counted.length - 1];
      if (last !== undefined) this.lastYear = Math.min(this.lastYear, ymdOf(last)[0] + 1);
    }
  }

  /** The first start strictly after `t`, or null when none is within CYCLE_YEARS (times INTERVAL) of it. */
  after(t: number): number | null {
    const from = Math.max(this.firstYear, yearOf(t) - 1);
    const to = Math.min(this.lastYear, from + CYCLE_YEARS * this.days.rule.interval + 2);
    for (let y = from; y <= to; y++) {
      const list = this.year(y);
      const i = firstAbove(list, t);
      if (i < list.length) return list[i] as number;
    }
    return null;
  }

  /** The last start at or before `t`, or null when none is within CYCLE_YEARS (times INTERVAL) of it. */
  atOrBefore(t: number): number | null {
    const from = Math.min(this.lastYear, yearOf(t) + 1);
    const to = Math.max(this.firstYear, from - CYCLE_YEARS * this.days.rule.interval - 2);
    for (let y = from; y >= to; y--) {
      const list = this.year(y);
      const i = firstAbove(list, t);
      if (i > 0) return list[i - 1] as number;
    }
    return null;
  }

  private year(y: number): number[] {
    const cached = this.years.get(y);
    if (cached) return cached;
    let days: number[];
    if (this.counted !== null) {
      const [from, to] = [dayOf(y, 1, 1), dayOf(y + 1, 1, 1)];
      days = this.counted.filter((d) => d >= from && d < to);
    } else {
      days = y < FIRST_YEAR || y > LAST_YEAR ? [] : this.days.yearDays(y);
    }
    const out: number[] = [];
    for (const d of days) {
      const wall = d * DAY + this.minuteOfDay * MINUTE;
      if (this.skipDays.has(d) || this.skipWalls.has(wall)) continue;
      const t = this.zone.resolveRfc5545(wall);
      if (t > this.until) continue;
      // Two local days that resolve to one instant (a day a zone skipped): one start.
      if (out.length > 0 && (out[out.length - 1] as number) >= t) continue;
      out.push(t);
    }
    if (this.years.size > 2000) this.years.clear();
    this.years.set(y, out);
    return out;
  }

  /** The first `count` days from `start` (COUNT counts the rule's days, before EXDATE takes any away). */
  private countFrom(start: number, count: number): number[] {
    const out: number[] = [];
    const days = this.days;
    const endDay = dayOf(LAST_YEAR + 1, 1, 1);
    for (let p = days.periodOf(start); out.length < count; p += days.rule.interval) {
      if (days.periodRange(p)[0] >= endDay) break;
      for (const d of days.periodDays(p)) {
        if (d < start || d >= endDay) continue;
        out.push(d);
        if (out.length === count) break;
      }
    }
    return out;
  }
}

function yearOf(t: number): number {
  if (t === -Infinity || t < -62e12) return FIRST_YEAR - 1;
  if (t === Infinity || t > 2.6e14) return LAST_YEAR + 1;
  return new Date(t).getUTCFullYear();
}

/** Index of the first element greater than `t` in a sorted list. */
function firstAbove(list: readonly number[], t: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((list[mid] as number) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A recurrence's intervals: each start lasts `duration`, or until the first `endAt` time of day after it. */
export class RecurrenceRuleIntervals implements Rule {
  readonly ref: RuleRef;
  readonly starts: RecurrenceStarts;
  private readonly duration: number;
  private readonly endMinute: number | null;

  constructor(ref: RuleRef, starts: RecurrenceStarts, length: { duration: number } | { endMinute: number }) {
    this.ref = ref;
    this.starts = starts;
    this.duration = "duration" in length ? length.duration : 0;
    this.endMinute = "endMinute" in length ? length.endMinute : null;
  }

  atOrBefore(t: number): Interval | null {
    const s = this.starts.atOrBefore(t);
    return s === null ? null : this.interval(s);
  }

  after(t: number): Interval | null {
    const s = this.starts.after(t);
    return s === null ? null : this.interval(s);
  }

  reach(t: number): number {
    const iv = this.atOrBefore(t);
    if (iv === null) return -Infinity;
    let end = iv.end;
    let cur = iv.start;
    while (end - iv.start <= HORIZON_MS) {
      const next = this.after(cur);
      if (next === null || next.start > end) break;
      end = Math.max(end, next.end);
      cur = next.start;
    }
    return end;
  }

  reachBack(s: number): number {
    const iv = this.atOrBefore(s - 1);
    if (iv === null || iv.end < s) return Infinity;
    let start = iv.start;
    while (iv.start - start <= HORIZON_MS) {
      const prev = this.atOrBefore(start - 1);
      if (prev === null || prev.end < start) break;
      start = prev.start;
    }
    return start;
  }

  private interval(start: number): Interval {
    if (this.endMinute === null) return { start, end: start + this.duration };
    // The first endAt wall-clock time after the start's: the same day when later, else the next.
    const zone = this.starts.zone;
    const startWall = Math.floor(zone.wallAt(start) / MINUTE) * MINUTE;
    const dayStart = Math.floor(startWall / DAY) * DAY;
    let endWall = dayStart + this.endMinute * MINUTE;
    if (endWall <= dayStart + this.starts.minuteOfDay * MINUTE) endWall += DAY;
    // A start moved past a gap may pass its end that day: the interval is then empty.
    return { start, end: Math.max(start, zone.resolveRfc5545(endWall)) };
  }
}

/**
 * Compiles a recurrence entry of `spec.schedules` or `spec.freezes`. Throws a ScheduleError at the
 * field (`…recurrence`, `…at`, `…dtstart`, `…exdates[0]`) that is wrong.
 */
export function compileRecurrence(spec: RecurrenceSpec, zone: ZoneRules, ref: Omit<RuleRef, "label">, path: string): Rule {
  const field = <T>(name: string, parse: () => T): T => {
    try {
      return parse();
    } catch (e) {
      throw e instanceof ScheduleError ? e.at(`${path}.${name}`) : e;
    }
  };
  const text = spec.recurrence as string;
  const rule = field("recurrence", () => parseRecurrence(text));
  if (typeof spec.at !== "string") throw new ScheduleError('is required with recurrence: the local time each occurrence starts, e.g. "02:00"', `${path}.at`);
  const at = spec.at;
  const minute = field("at", () => parseTimeOfDay(at));
  const hasEnd = spec.endAt !== undefined;
  const hasDuration = spec.duration !== undefined;
  if (hasEnd === hasDuration) {
    throw new ScheduleError(
      hasEnd ? "has both endAt and duration: give exactly one" : 'needs a duration (e.g. "4h") or an endAt time of day (e.g. "06:00")',
      path,
    );
  }
  const length = hasDuration
    ? { duration: field("duration", () => parseDuration(spec.duration as string)) }
    : { endMinute: field("endAt", () => parseTimeOfDay(spec.endAt as string)) };
  const start = spec.dtstart === undefined ? null : field("dtstart", () => parseDate(spec.dtstart as string));
  const why = needsStart(rule);
  if (start === null && why !== null) throw new ScheduleError(`needs dtstart, the first date: ${why}`, `${path}.dtstart`);
  const days = new Set<number>();
  const walls = new Set<number>();
  (spec.exdates ?? []).forEach((x, i) =>
    field(`exdates[${i}]`, () => {
      const dt = DATE_TIME.exec(x.trim());
      if (dt) {
        walls.add(checkedDay(x, Number(dt[1]), Number(dt[2]), Number(dt[3])) * DAY + (Number(dt[4]) * 60 + Number(dt[5])) * MINUTE);
        return;
      }
      if (!DATE.test(x.trim()))
        throw new ScheduleError(`"${x}" is not a date or a local date-time: write "2026-12-13" (that day's start) or "2026-12-13T02:00"`);
      days.add(parseDate(x));
    }),
  );
  const starts = new RecurrenceStarts(rule, start, minute, zone, { days, walls });
  const first = start === null ? starts.atOrBefore(Infinity) : starts.after(zone.resolveRfc5545(start * DAY) - 1);
  if (first === null) {
    const from = spec.dtstart === undefined ? "" : ` from dtstart ${spec.dtstart}`;
    const until = rule.until === null ? "" : ` until UNTIL=${rule.until.text}`;
    const count = rule.count === null ? "" : " (COUNT is counted before exdates)";
    throw new ScheduleError(`never occurs: no day${from}${until} matches it${spec.exdates?.length ? " that exdates leave" : ""}${count}`, `${path}.recurrence`);
  }
  const label = `${rule.source.trim()} at ${at} → ${hasEnd ? (spec.endAt as string) : `+${spec.duration as string}`}`;
  return new RecurrenceRuleIntervals({ ...ref, label, reason: spec.reason }, starts, length);
}

/** A compiled rule's recurrence in words ("the second Sunday of each month"); null for a cron or one-off rule. */
export function recurrenceWords(rule: Rule): string | null {
  return rule instanceof RecurrenceRuleIntervals ? describeRecurrence(rule.starts.days.rule.source) : null;
}
