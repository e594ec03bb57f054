// RFC 5545 recurrence rules (RRULE) at day precision: parsing, with refusals that name the part, and the days a rule picks.
//
// A window's recurrence starts once on each day it picks, at one local time of day (`at`), so the
// rule is walked in whole days (epoch day numbers, free of any zone); `recurrence.ts` puts the time
// of day on them and maps them to instants. Each period of the rule (a year, month, week or day)
// is expanded to its days, which every BYxxx part then filters, as in RFC 5545 §3.3.10's tables.

import { utc } from "./calendar.ts";
import { ScheduleError } from "./errors.ts";

export type Frequency = "DAILY" | "WEEKLY" | "MONTHLY" | "YEARLY";

/** A weekday of BYDAY, Monday = 0 … Sunday = 6 (RFC 5545's order), with its ordinal (`2SU`, `-1FR`) or 0 for every one. */
export interface WeekdayNum {
  readonly weekday: number;
  readonly ordinal: number;
}

/** A parsed rule. UNTIL is kept as written: it needs the window's zone (recurrence.ts). */
export interface RecurrenceRule {
  readonly source: string;
  readonly freq: Frequency;
  readonly interval: number;
  readonly count: number | null;
  readonly until: { text: string; wall: number; utc: boolean } | null;
  readonly byMonth: readonly number[];
  readonly byWeekNo: readonly number[];
  readonly byYearDay: readonly number[];
  readonly byMonthDay: readonly number[];
  readonly byDay: readonly WeekdayNum[];
  readonly bySetPos: readonly number[];
  /** Week start, Monday = 0 (the default, MO). */
  readonly wkst: number;
}

/** The refusal of a rule that matches no day of any year; the CRD's admission rules say the same of the cases they can see. */
export const NEVER_OCCURS = "never occurs: no day of any year matches all of its parts (e.g. BYMONTH=2 with BYMONTHDAY=30)";

/** Most occurrences a COUNT may ask for: a rule is walked from dtstart to its last one. */
export const MAX_COUNT = 10_000;
/** The years a rule is walked in (RFC 5545 date-times have four-digit years). */
export const FIRST_YEAR = 1;
export const LAST_YEAR = 9999;

const WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"];
const FREQUENCIES = ["SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY"];
const PARTS = [
  "FREQ",
  "UNTIL",
  "COUNT",
  "INTERVAL",
  "BYSECOND",
  "BYMINUTE",
  "BYHOUR",
  "BYDAY",
  "BYMONTHDAY",
  "BYYEARDAY",
  "BYWEEKNO",
  "BYMONTH",
  "BYSETPOS",
  "WKST",
];

/**
 * Parses an RFC 5545 RRULE value (`FREQ=MONTHLY;BYDAY=2SU`, optionally prefixed `RRULE:`) for a
 * window: FREQ DAILY, WEEKLY, MONTHLY or YEARLY with INTERVAL, COUNT, UNTIL and every BYxxx part
 * that picks days. What a window cannot mean is refused with a message that names the part:
 * sub-minute parts (FREQ=SECONDLY, BYSECOND), parts that pick times of day (the time is the
 * window's `at`), combinations RFC 5545 leaves undefined, and a rule that matches no day at all.
 *
 * @example parseRecurrence("FREQ=MONTHLY;BYDAY=-1FR") // the last Friday of each month
 */
export function parseRecurrence(text: string): RecurrenceRule {
  const fail = (detail: string): never => {
    throw new ScheduleError(detail);
  };
  const body = text.trim().replace(/^RRULE:/i, "");
  if (body === "") fail('is empty: write a rule such as "FREQ=MONTHLY;BYDAY=2SU"');
  const seen = new Map<string, string>();
  for (const item of body.split(";")) {
    const eq = item.indexOf("=");
    const name = (eq < 0 ? item : item.slice(0, eq)).trim().toUpperCase();
    const value =
      eq < 0
        ? ""
        : item
            .slice(eq + 1)
            .trim()
            .toUpperCase();
    if (name === "DTSTART") fail('DTSTART is not a rule part here: give the first date as dtstart (e.g. dtstart: "2026-01-06") and the time as at');
    if (!PARTS.includes(name)) fail(`"${item.trim()}" is not a part of an RFC 5545 rule: parts are NAME=VALUE separated by ";", e.g. FREQ=WEEKLY;BYDAY=TU`);
    if (eq < 0 || value === "") fail(`${name} has no value: write ${name}=…`);
    if (seen.has(name)) fail(`${name} is given twice`);
    seen.set(name, value);
  }
  if (seen.has("BYSECOND")) fail("BYSECOND is not allowed: a window is at minute precision");
  const freqText = seen.get("FREQ") ?? fail('FREQ is required, e.g. "FREQ=WEEKLY;BYDAY=TU"');
  if (!FREQUENCIES.includes(freqText)) fail(`FREQ=${freqText} is not a frequency: use DAILY, WEEKLY, MONTHLY or YEARLY`);
  if (freqText === "SECONDLY") fail("FREQ=SECONDLY is not allowed: a window is at minute precision");
  if (freqText === "MINUTELY" || freqText === "HOURLY") {
    fail(
      `FREQ=${freqText} is not supported: a recurrence starts at most once a day, at its time "at"; use a cron schedule (e.g. "0 * * * *") for windows that recur within a day`,
    );
  }
  for (const name of ["BYHOUR", "BYMINUTE"]) {
    if (seen.has(name)) fail(`${name} is not supported: the time of day is the entry's "at" (one start a day); use a cron schedule for several starts a day`);
  }
  const freq = freqText as Frequency;
  const ints = (name: string, min: number, max: number, zero = false): number[] => {
    const value = seen.get(name);
    if (value === undefined) return [];
    const out = value.split(",").map((v) => {
      if (!/^[+-]?\d{1,4}$/.test(v)) fail(`${name}=${value}: "${v}" is not a whole number`);
      const n = Number(v);
      if (Math.abs(n) < min || Math.abs(n) > max || (n === 0 && !zero)) {
        fail(`${name}=${value}: ${v} is out of range (${min === 0 ? "0" : `${min}`} to ${max}${min > 0 ? ` or -${max} to -${min}` : ""})`);
      }
      return n;
    });
    return [...new Set(out)].sort((a, b) => a - b);
  };
  const positive = (name: string, max: number): number | null => {
    const value = seen.get(name);
    if (value === undefined) return null;
    if (!/^\d{1,6}$/.test(value) || Number(value) < 1) fail(`${name}=${value}: must be a whole number from 1`);
    if (Number(value) > max) fail(`${name}=${value}: at most ${max.toLocaleString("en-US")}`);
    return Number(value);
  };
  const interval = positive("INTERVAL", 100_000) ?? 1;
  const count = positive("COUNT", MAX_COUNT);
  const untilText = seen.get("UNTIL");
  if (count !== null && untilText !== undefined) fail("COUNT and UNTIL are both given: RFC 5545 allows one of them");
  const until = untilText === undefined ? null : parseUntil(untilText, fail);
  const byMonth = ints("BYMONTH", 1, 12).map((n) => (n < 0 ? fail(`BYMONTH=${seen.get("BYMONTH")}: months are 1 to 12`) : n));
  const byWeekNo = ints("BYWEEKNO", 1, 53);
  const byYearDay = ints("BYYEARDAY", 1, 366);
  const byMonthDay = ints("BYMONTHDAY", 1, 31);
  const bySetPos = ints("BYSETPOS", 1, 366);
  const byDay = parseByDay(seen.get("BYDAY"), fail);
  const wkstText = seen.get("WKST");
  if (wkstText !== undefined && !WEEKDAYS.includes(wkstText)) fail(`WKST=${wkstText}: must be a day such as MO or SU`);
  const wkst = wkstText === undefined ? 0 : WEEKDAYS.indexOf(wkstText);

  // RFC 5545 §3.3.10: the parts each frequency leaves undefined (N/A in its table).
  if (byWeekNo.length > 0 && freq !== "YEARLY") fail(`BYWEEKNO is only defined with FREQ=YEARLY, not FREQ=${freq}`);
  if (byYearDay.length > 0 && freq !== "YEARLY") fail(`BYYEARDAY is only defined with FREQ=YEARLY (RFC 5545 leaves it undefined with FREQ=${freq})`);
  if (byMonthDay.length > 0 && freq === "WEEKLY") fail("BYMONTHDAY is not defined with FREQ=WEEKLY: use FREQ=MONTHLY, or BYDAY");
  const ordinal = byDay.find((d) => d.ordinal !== 0);
  if (ordinal !== undefined) {
    const written = `${ordinal.ordinal}${WEEKDAYS[ordinal.weekday]}`;
    if (freq !== "MONTHLY" && freq !== "YEARLY") fail(`BYDAY=${written}: a numbered weekday needs FREQ=MONTHLY or FREQ=YEARLY, not FREQ=${freq}`);
    if (freq === "YEARLY" && byWeekNo.length > 0) fail(`BYDAY=${written}: a numbered weekday cannot be combined with BYWEEKNO`);
    const limit = freq === "MONTHLY" || byMonth.length > 0 ? 5 : 53;
    const tooFar = byDay.find((d) => Math.abs(d.ordinal) > limit);
    if (tooFar !== undefined) {
      fail(`BYDAY=${tooFar.ordinal}${WEEKDAYS[tooFar.weekday]}: a ${limit === 5 ? "month" : "year"} has at most ${limit} of each weekday`);
    }
  }
  const anyBy = byMonth.length + byWeekNo.length + byYearDay.length + byMonthDay.length + byDay.length > 0;
  if (bySetPos.length > 0 && !anyBy) fail("BYSETPOS needs another BYxxx part to pick among (e.g. BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1)");

  const rule: RecurrenceRule = { source: text, freq, interval, count, until, byMonth, byWeekNo, byYearDay, byMonthDay, byDay, bySetPos, wkst };
  if (!matchesSomeDay(rule)) {
    fail(NEVER_OCCURS);
  }
  return rule;
}

function parseUntil(value: string, fail: (d: string) => never): { text: string; wall: number; utc: boolean } {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?$/.exec(value);
  if (!m) fail(`UNTIL=${value}: write a date-time such as 20271231T235959Z (UTC) or 20271231T235959 (local)`);
  const [y, mo, d] = [Number(m?.[1]), Number(m?.[2]), Number(m?.[3])];
  if (m?.[4] === undefined) fail(`UNTIL=${value}: a window's rule ends at a date-time (e.g. ${value}T235959Z), not a date: its starts have a time of day`);
  const [h, mi, s] = [Number(m?.[4]), Number(m?.[5]), Number(m?.[6])];
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) fail(`UNTIL=${value}: no such date-time`);
  return { text: value, wall: utc(y, mo - 1, d, h, mi, s), utc: m?.[7] === "Z" };
}

function parseByDay(value: string | undefined, fail: (d: string) => never): WeekdayNum[] {
  if (value === undefined) return [];
  const out: WeekdayNum[] = [];
  for (const v of value.split(",")) {
    const m = /^([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/.exec(v);
    if (!m) fail(`BYDAY=${value}: "${v}" is not a weekday such as MO, 2SU or -1FR`);
    const ordinal = m?.[1] === undefined ? 0 : Number(m[1]);
    if (m?.[1] !== undefined && (ordinal === 0 || Math.abs(ordinal) > 53)) fail(`BYDAY=${value}: "${v}": the number counts weekdays, 1 to 53 or -53 to -1`);
    const weekday = WEEKDAYS.indexOf(m?.[2] as string);
    if (!out.some((d) => d.weekday === weekday && d.ordinal === ordinal)) out.push({ weekday, ordinal });
  }
  return out;
}

/** Whether the rule needs a first date: INTERVAL and COUNT count from it, and a rule without day parts takes its day from it. */
export function needsStart(rule: RecurrenceRule): string | null {
  if (rule.interval > 1) return `INTERVAL=${rule.interval} counts periods from it`;
  if (rule.count !== null) return `COUNT=${rule.count} counts occurrences from it`;
  const days = rule.byWeekNo.length + rule.byYearDay.length + rule.byMonthDay.length + rule.byDay.length > 0;
  if (days) return null;
  if (rule.freq === "WEEKLY") return "FREQ=WEEKLY without BYDAY takes its weekday from it";
  if (rule.freq === "MONTHLY") return "FREQ=MONTHLY without BYDAY or BYMONTHDAY takes its day of the month from it";
  if (rule.freq === "YEARLY") return "FREQ=YEARLY without a day part (BYDAY, BYMONTHDAY, BYYEARDAY, BYWEEKNO) takes its day from it";
  return null;
}

// ---- Calendar of epoch days (day 0 is 1970-01-01, a Thursday) ----

// Integer arithmetic (H. Hinnant's days_from_civil and civil_from_days, proleptic Gregorian):
// a rule's days are matched one by one, so no Date is made per day.

/** The epoch day of a date; the day may overflow its month, as in Date.UTC. */
export function dayOf(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** The date of an epoch day: [year, month 1-12, day 1-31]. */
export function ymdOf(day: number): [number, number, number] {
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [era * 400 + yoe + (m <= 2 ? 1 : 0), m, d];
}

/** Monday = 0 … Sunday = 6. */
export function weekdayOf(day: number): number {
  return (((day + 3) % 7) + 7) % 7;
}

function daysInMonth(year: number, month: number): number {
  return dayOf(month === 12 ? year + 1 : year, month === 12 ? 1 : month + 1, 1) - dayOf(year, month, 1);
}

/** The first day of week 1 of `year`: the week (starting on `wkst`) that holds at least four days of the year. */
function weekOneStart(year: number, wkst: number): number {
  const jan1 = dayOf(year, 1, 1);
  const back = (weekdayOf(jan1) - wkst + 7) % 7;
  return back <= 3 ? jan1 - back : jan1 - back + 7;
}

/**
 * The days a rule picks, from its first date on (or from the beginning, for a rule that needs
 * none), in order. `dtstart` is an epoch day; null when the rule has none.
 */
export class RecurrenceDays {
  readonly rule: RecurrenceRule;
  readonly start: number | null;
  private readonly byMonth: readonly number[];
  private readonly byMonthDay: readonly number[];
  private readonly byDay: readonly WeekdayNum[];
  private readonly plainDays: readonly boolean[];

  constructor(rule: RecurrenceRule, start: number | null) {
    this.rule = rule;
    this.start = start;
    // RFC 5545: what the rule does not say is taken from its start.
    let byMonth = rule.byMonth;
    let byMonthDay = rule.byMonthDay;
    let byDay = rule.byDay;
    if (start !== null && rule.byWeekNo.length + rule.byYearDay.length + rule.byMonthDay.length + rule.byDay.length === 0) {
      const [, m, d] = ymdOf(start);
      if (rule.freq === "YEARLY") {
        if (byMonth.length === 0) byMonth = [m];
        byMonthDay = [d];
      } else if (rule.freq === "MONTHLY") {
        byMonthDay = [d];
      } else if (rule.freq === "WEEKLY") {
        byDay = [{ weekday: weekdayOf(start), ordinal: 0 }];
      }
    }
    this.byMonth = byMonth;
    this.byMonthDay = byMonthDay;
    this.byDay = byDay;
    this.plainDays = WEEKDAYS.map((_, i) => byDay.some((d) => d.ordinal === 0 && d.weekday === i));
  }

  /** The period (year, month, week or day) holding `day`, as an index that counts periods. */
  periodOf(day: number): number {
    const [y, m] = ymdOf(day);
    switch (this.rule.freq) {
      case "YEARLY":
        return y;
      case "MONTHLY":
        return y * 12 + (m - 1);
      case "WEEKLY":
        // Day 4 (1970-01-05) is a Monday: weeks start on WKST.
        return Math.floor((day - 4 - this.rule.wkst) / 7);
      case "DAILY":
        return day;
    }
  }

  /** First day and the day after the last of period `p`. */
  periodRange(p: number): [number, number] {
    switch (this.rule.freq) {
      case "YEARLY":
        return [dayOf(p, 1, 1), dayOf(p + 1, 1, 1)];
      case "MONTHLY": {
        const y = Math.floor(p / 12);
        const m = p - y * 12 + 1;
        return [dayOf(y, m, 1), m === 12 ? dayOf(y + 1, 1, 1) : dayOf(y, m + 1, 1)];
      }
      case "WEEKLY": {
        const first = p * 7 + 4 + this.rule.wkst;
        return [first, first + 7];
      }
      case "DAILY":
        return [p, p + 1];
    }
  }

  /** Whether period `p` is one the rule visits (every INTERVAL-th from the start's). */
  visits(p: number): boolean {
    if (this.rule.interval === 1 || this.start === null) return true;
    const k = p - this.periodOf(this.start);
    return ((k % this.rule.interval) + this.rule.interval) % this.rule.interval === 0;
  }

  /** The days period `p` picks, BYSETPOS applied, before the start is taken into account. */
  periodDays(p: number): number[] {
    const [from, to] = this.periodRange(p);
    const out: number[] = [];
    for (let d = from; d < to; d++) if (this.matches(d)) out.push(d);
    const setPos = this.rule.bySetPos;
    if (setPos.length === 0) return out;
    const picked = new Set<number>();
    for (const pos of setPos) {
      const d = pos > 0 ? out[pos - 1] : out[out.length + pos];
      if (d !== undefined) picked.add(d);
    }
    return [...picked].sort((a, b) => a - b);
  }

  /** The days the rule picks in calendar year `year`, from the start on, in order (COUNT aside). */
  yearDays(year: number): number[] {
    const first = dayOf(year, 1, 1);
    const end = dayOf(year + 1, 1, 1);
    const out: number[] = [];
    const step = this.start === null ? 1 : this.rule.interval;
    let p = this.periodOf(first);
    // The first period the rule visits, found arithmetically: INTERVAL may be large.
    if (this.start !== null) p += (((this.periodOf(this.start) - p) % step) + step) % step;
    for (; this.periodRange(p)[0] < end; p += step) {
      for (const d of this.periodDays(p)) {
        if (d >= first && d < end && (this.start === null || d >= this.start)) out.push(d);
      }
    }
    return out;
  }

  private matches(day: number): boolean {
    const r = this.rule;
    const [y, m, d] = ymdOf(day);
    if (this.byMonth.length > 0 && !this.byMonth.includes(m)) return false;
    if (r.byWeekNo.length > 0 && !this.weekMatches(day, y)) return false;
    if (r.byYearDay.length > 0) {
      const doy = day - dayOf(y, 1, 1) + 1;
      const len = dayOf(y + 1, 1, 1) - dayOf(y, 1, 1);
      if (!r.byYearDay.includes(doy) && !r.byYearDay.includes(doy - len - 1)) return false;
    }
    if (this.byMonthDay.length > 0) {
      const len = daysInMonth(y, m);
      if (!this.byMonthDay.includes(d) && !this.byMonthDay.includes(d - len - 1)) return false;
    }
    if (this.byDay.length > 0) {
      const wd = weekdayOf(day);
      if (!this.plainDays[wd] && !this.ordinalMatches(day, wd, y, m)) return false;
    }
    return true;
  }

  /** A day's week of its week-numbering year (RFC 5545 BYWEEKNO with WKST), counted from either end. */
  private weekMatches(day: number, year: number): boolean {
    const wkst = this.rule.wkst;
    let wy = year;
    let w1 = weekOneStart(year, wkst);
    const next = weekOneStart(year + 1, wkst);
    if (day >= next) {
      wy = year + 1;
      w1 = next;
    } else if (day < w1) {
      wy = year - 1;
      w1 = weekOneStart(year - 1, wkst);
    }
    const weeks = (weekOneStart(wy + 1, wkst) - w1) / 7;
    const n = Math.floor((day - w1) / 7) + 1;
    return this.rule.byWeekNo.includes(n) || this.rule.byWeekNo.includes(n - weeks - 1);
  }

  /** `2SU`, `-1FR`: the n-th such weekday of the month (MONTHLY, or YEARLY with BYMONTH) or of the year. */
  private ordinalMatches(day: number, wd: number, y: number, m: number): boolean {
    const inMonth = this.rule.freq === "MONTHLY" || this.byMonth.length > 0;
    const from = inMonth ? dayOf(y, m, 1) : dayOf(y, 1, 1);
    const to = inMonth ? from + daysInMonth(y, m) : dayOf(y + 1, 1, 1);
    const nth = Math.floor((day - from) / 7) + 1;
    const nthLast = -(Math.floor((to - 1 - day) / 7) + 1);
    return this.byDay.some((b) => b.weekday === wd && (b.ordinal === nth || b.ordinal === nthLast));
  }
}

/** Whether any day of a 400-year cycle (the Gregorian calendar's, weekdays included) matches the rule's day parts. */
function matchesSomeDay(rule: RecurrenceRule): boolean {
  const days = new RecurrenceDays({ ...rule, interval: 1, count: null, until: null }, null);
  for (let y = 2000; y < 2400; y++) if (days.yearDays(y).length > 0) return true;
  return false;
}
