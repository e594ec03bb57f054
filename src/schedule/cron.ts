// Cron expressions exactly as a Kubernetes CronJob accepts them, and their occurrences in wall-clock time.
//
// Why not croner: croner iterates well, but it treats jobs with wildcards in the time fields as
// "interval jobs" that skip a spring-forward gap and run twice in a repeated fall-back hour.
// fluxgate's rule (DESIGN §3) is one rule for every expression: a wall-clock occurrence happens
// once, at its first instant, or at the first instant after a gap. So this module walks
// wall-clock minutes (as UTC-based "wall milliseconds", free of any zone) and `occurrences.ts`
// maps them to instants. The test suite checks this iteration against croner in UTC.

import { DATE_EDGE_MS, utc } from "./calendar.ts";
import { ScheduleError } from "./errors.ts";

/** A parsed cron expression: the allowed values of each field. */
export interface CronSchedule {
  readonly source: string;
  readonly minutes: readonly boolean[]; // 0-59
  readonly hours: readonly boolean[]; // 0-23
  readonly daysOfMonth: readonly boolean[]; // index 1-31
  readonly months: readonly boolean[]; // index 1-12
  readonly daysOfWeek: readonly boolean[]; // 0-6, Sunday = 0
  /**
   * The field is unrestricted: some item is `*` or `?` without a step above 1 (robfig/cron's
   * "star bit"). Days match on both fields when either is unrestricted, on either field otherwise.
   */
  readonly domStar: boolean;
  readonly dowStar: boolean;
}

interface FieldSpec {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const MONTH_NAMES: Readonly<Record<string, number>> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const DAY_NAMES: Readonly<Record<string, number>> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

const FIELDS: readonly FieldSpec[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: MONTH_NAMES },
  // 0-6 as CronJob's parser has it: 7 is refused there, so it is refused here.
  { name: "day of week", min: 0, max: 6, names: DAY_NAMES },
];

/** robfig/cron's descriptors, matched as it matches them: exactly, lower case, nothing around them. */
const DESCRIPTORS: Readonly<Record<string, string>> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

/** Days in each month of a leap year: the most a month can have. */
const MAX_DAYS = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** What Go's strings.Fields splits on (unicode.IsSpace), which is not quite JavaScript's `\s`. */
const GO_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;
/** Go's strconv.Atoi on 64 bits: an optional sign and decimal digits, within int64. */
const GO_INT = /^[+-]?[0-9]+$/;
const INT64_MAX = 9_223_372_036_854_775_807n;

/**
 * Parses a cron expression exactly as a Kubernetes CronJob accepts it (robfig/cron v3's standard
 * parser and the API server's schedule rule), and refuses what CronJob refuses, saying why.
 * Beyond CronJob, it refuses a schedule that can never run (`0 0 30 2 *`): CronJob accepts it
 * and never runs it. Whether a schedule is valid never depends on the current time.
 *
 * @example parseCron("0 8 * * MON-FRI")
 */
export function parseCron(expression: string): CronSchedule {
  const fail = (detail: string): never => {
    throw new ScheduleError(`cron "${expression}": ${detail}`);
  };
  if (expression.trim() === "") fail('is empty: write 5 fields, minute hour day-of-month month day-of-week, e.g. "0 8 * * MON"');
  // The API server refuses "TZ" anywhere in a new CronJob's schedule.
  if (expression.includes("TZ")) fail("time zone prefixes (CRON_TZ=, TZ=) are not supported: set spec.timeZone instead");
  let text = expression;
  if (text.startsWith("@")) {
    if (text.startsWith("@every")) fail("@every is not supported: a window needs wall-clock times, use a 5-field schedule with a duration");
    if (text === "@reboot") fail("@reboot is not supported: a window needs a time");
    const expanded = Object.hasOwn(DESCRIPTORS, text) ? DESCRIPTORS[text] : undefined;
    if (expanded === undefined) {
      fail(`unknown descriptor ${text}: use @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly, exactly so (lower case, nothing around it)`);
    }
    text = expanded as string;
  }
  const fields = text.split(GO_SPACE).filter((f) => f !== "");
  if (fields.length === 6 || fields.length === 7) {
    fail(`has ${fields.length} fields: seconds and years are not supported, a CronJob schedule has 5 fields (minute hour day-of-month month day-of-week)`);
  }
  if (fields.length !== 5) {
    const descriptor = fields.length === 1 && (fields[0] as string).startsWith("@") ? " (a descriptor such as @daily must have nothing around it)" : "";
    fail(`has ${fields.length} field${fields.length === 1 ? "" : "s"}: a CronJob schedule has 5 (minute hour day-of-month month day-of-week)${descriptor}`);
  }
  // A construct of other cron dialects gets a message naming it, when the field is refused anyway
  // (robfig/cron reads "?-L" as "?", so it is not refused for the letter alone).
  const parsed = fields.map((field, i) =>
    parseField(field, FIELDS[i] as FieldSpec, (detail) => {
      rejectUnsupported(field, fail);
      return fail(detail);
    }),
  );
  const [minutes, hours, daysOfMonth, months, daysOfWeek] = parsed.map((p) => p.set) as [boolean[], boolean[], boolean[], boolean[], boolean[]];
  const domStar = (parsed[2] as ParsedField).star;
  const dowStar = (parsed[4] as ParsedField).star;
  const schedule = { source: expression, minutes, hours, daysOfMonth, months, daysOfWeek, domStar, dowStar };
  for (const [set, i] of [
    [minutes, 0],
    [hours, 1],
    [months, 3],
  ] as const) {
    if (!set.includes(true)) fail(`${(FIELDS[i] as FieldSpec).name} field "${fields[i] as string}" names no value, so the schedule never runs`);
  }
  if (!canMatchSomeDay(schedule)) {
    fail("names a date that never exists (no chosen month has the chosen day of month), so the schedule never runs");
  }
  return schedule;
}

/** Whether some day of some year matches: every (month, day) pair falls on every weekday in some year. */
function canMatchSomeDay(c: CronSchedule): boolean {
  const anyDow = c.daysOfWeek.includes(true);
  for (let m = 1; m <= 12; m++) {
    if (!c.months[m]) continue;
    for (let d = 1; d <= (MAX_DAYS[m] as number); d++) {
      const dom = c.daysOfMonth[d] === true;
      if (c.domStar || c.dowStar ? dom && anyDow : dom || anyDow) return true;
    }
  }
  return false;
}

function rejectUnsupported(field: string, fail: (detail: string) => never): void {
  if (field.includes("#")) fail(`"#" (nth weekday of the month) is not supported by CronJob syntax`);
  const stripped = field.toLowerCase().replace(/jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|sun|mon|tue|wed|thu|fri|sat/g, "");
  if (/l/.test(stripped)) fail(`"L" (last day) is not supported by CronJob syntax`);
  if (/w/.test(stripped)) fail(`"W" (nearest weekday) is not supported by CronJob syntax`);
  if (/h/.test(stripped)) fail(`"H" (hashed values) is not supported by CronJob syntax`);
}

interface ParsedField {
  readonly set: boolean[];
  readonly star: boolean;
}

/** One field as robfig/cron's getField reads it; empty list items are dropped, as there. */
function parseField(field: string, spec: FieldSpec, fail: (detail: string) => never): ParsedField {
  const set = new Array<boolean>(spec.max + 1).fill(false);
  let star = false;
  for (const term of field.split(",")) {
    if (term === "") continue;
    const rangeAndStep = term.split("/");
    if (rangeAndStep.length > 2) fail(`${spec.name} field "${term}" has more than one "/"`);
    const [rangePart, stepPart] = rangeAndStep as [string, string | undefined];
    const lowAndHigh = rangePart.split("-");
    let lo: number;
    let hi: number;
    let termStar = false;
    if (lowAndHigh[0] === "*" || lowAndHigh[0] === "?") {
      // As in robfig/cron, whatever follows "*-" is not read: "*-5" is "*".
      lo = spec.min;
      hi = spec.max;
      termStar = true;
    } else {
      if (lowAndHigh.length > 2) fail(`${spec.name} field "${term}" is not a value or a range (too many "-")`);
      lo = parseValue(lowAndHigh[0] as string, spec, term, fail);
      hi = lowAndHigh.length === 2 ? parseValue(lowAndHigh[1] as string, spec, term, fail) : lo;
    }
    let step = 1;
    if (stepPart !== undefined) {
      step = parseNumber(stepPart, `${spec.name} field "${term}": step "${stepPart}"`, fail);
      // "5/15" runs from 5 to the end of the field, as in CronJob.
      if (lowAndHigh.length === 1) hi = spec.max;
      if (step > 1) termStar = false;
    }
    if (lo < spec.min) fail(`${spec.name} field "${term}": ${lo} is out of range ${spec.min}-${spec.max}`);
    if (hi > spec.max) {
      const sunday = spec.name === "day of week" && hi === 7 ? " (Sunday is 0 or SUN; CronJob refuses 7)" : "";
      fail(`${spec.name} field "${term}": ${hi >= 1_000_000 ? "the value" : hi} is out of range ${spec.min}-${spec.max}${sunday}`);
    }
    if (lo > hi) fail(`${spec.name} field "${term}": range goes backwards (${lo} is after ${hi})`);
    if (step === 0) fail(`${spec.name} field "${term}": step must be at least 1`);
    for (let v = lo; v <= hi; v += step) set[v] = true;
    star ||= termStar;
  }
  return { set, star };
}

function parseValue(text: string, spec: FieldSpec, term: string, fail: (detail: string) => never): number {
  // Own properties only: "constructor" or "__proto__" must not find Object.prototype's.
  const key = text.toLowerCase();
  const named = spec.names !== undefined && Object.hasOwn(spec.names, key) ? spec.names[key] : undefined;
  if (named !== undefined) return named;
  const what = spec.names ? "number or name" : "number";
  if (!GO_INT.test(text)) fail(`${spec.name} field "${term}": "${text}" is not a ${what}`);
  return parseNumber(text, `${spec.name} field "${term}": "${text}"`, fail);
}

/** A whole number as CronJob's parser reads one: sign allowed, never negative, within 64 bits. */
function parseNumber(text: string, what: string, fail: (detail: string) => never): number {
  if (!GO_INT.test(text)) fail(`${what} is not a number`);
  const value = BigInt(text);
  if (value < 0n) fail(`${what} is negative`);
  if (value > INT64_MAX) fail(`${what} is too large`);
  // Beyond every field's range anyway; only the comparison with the bounds matters.
  return value > 1_000_000n ? 1_000_000 : Number(value);
}

const MINUTE = 60_000;
const DAY = 86_400_000;
/** How far the iteration looks for a match: 8 years covers Feb 29 across a skipped leap year (2100). */
const SEARCH_YEARS = 9;
/** Walls beyond this are so close to the end of Date's range that a search could leave it: no occurrence there. */
const WALL_EDGE = DATE_EDGE_MS - (SEARCH_YEARS + 1) * 366 * DAY;

/** Whether walls within `margin` of `wall` are all ones nextWall and prevWall search from (further out they answer null). */
export function searchable(wall: number, margin: number): boolean {
  return Math.abs(wall) + margin <= WALL_EDGE;
}

/** Whether the date (month 1-12) is one on which the schedule runs. */
export function dayMatches(c: CronSchedule, year: number, month: number, day: number): boolean {
  return matchesOn(c, month, day, Math.floor(utc(year, month - 1, day) / DAY));
}

/** dayMatches for the day `epochDay` days from 1 January 1970, whose month and day are given. */
function matchesOn(c: CronSchedule, month: number, day: number, epochDay: number): boolean {
  if (!c.months[month]) return false;
  const dom = c.daysOfMonth[day] === true;
  // 1 January 1970 was a Thursday (4); no Date is made, as this runs for every day the engine walks.
  const dow = c.daysOfWeek[(((epochDay + 4) % 7) + 7) % 7] === true;
  return c.domStar || c.dowStar ? dom && dow : dom || dow;
}

/** Whether the schedule runs on the day `epochDay` days from 1 January 1970. */
export function runsOnDay(c: CronSchedule, epochDay: number): boolean {
  const { month, day } = civil(epochDay);
  return matchesOn(c, month, day, epochDay);
}

/** The minutes of a day (0–1439) at which the schedule fires on a day it runs, in order. */
export function minutesOfDay(c: CronSchedule): number[] {
  const out: number[] = [];
  for (let h = 0; h < 24; h++) {
    if (!c.hours[h]) continue;
    for (let m = 0; m < 60; m++) if (c.minutes[m]) out.push(h * 60 + m);
  }
  return out;
}

/** The date of the last epoch day asked for: the engine walks one day's minutes one after another, so most asks are for the same day again. */
const lastCivil = { epochDay: NaN, year: 0, month: 0, day: 0 };

/** The calendar date (month 1–12) of an epoch day (days since 1970-01-01); the object is shared, read it at once. */
function civil(epochDay: number): { readonly year: number; readonly month: number; readonly day: number } {
  if (epochDay !== lastCivil.epochDay) {
    const d = new Date(epochDay * DAY);
    lastCivil.epochDay = epochDay;
    lastCivil.year = d.getUTCFullYear();
    lastCivil.month = d.getUTCMonth() + 1;
    lastCivil.day = d.getUTCDate();
  }
  return lastCivil;
}

function daysInMonth(year: number, month: number): number {
  return new Date(utc(year, month, 0)).getUTCDate();
}

function firstSet(set: readonly boolean[], from: number): number {
  for (let i = from; i < set.length; i++) if (set[i]) return i;
  return -1;
}

function lastSet(set: readonly boolean[], from: number): number {
  for (let i = Math.min(from, set.length - 1); i >= 0; i--) if (set[i]) return i;
  return -1;
}

/**
 * The first matching wall-clock minute at or after `wall` (wall milliseconds: a local date-time
 * written as if it were UTC), or null if none within the search horizon.
 */
export function nextWall(c: CronSchedule, wall: number): number | null {
  if (!(Math.abs(wall) <= WALL_EDGE)) return null;
  let t = Math.ceil(wall / MINUTE) * MINUTE;
  const limit = wall + SEARCH_YEARS * 366 * DAY;
  while (t <= limit) {
    const epochDay = Math.floor(t / DAY);
    const { year, month, day } = civil(epochDay);
    if (!matchesOn(c, month, day, epochDay)) {
      t = nextDayStart(c, year, month, day);
      continue;
    }
    const minuteOfDay = (t - epochDay * DAY) / MINUTE;
    const utcHour = Math.floor(minuteOfDay / 60);
    const hour = firstSet(c.hours, utcHour);
    if (hour < 0) {
      t = utc(year, month - 1, day + 1);
      continue;
    }
    const fromMinute = hour === utcHour ? minuteOfDay % 60 : 0;
    const minute = firstSet(c.minutes, fromMinute);
    if (minute < 0) {
      t = utc(year, month - 1, day, hour + 1);
      continue;
    }
    // utc(year, month - 1, day, hour, minute) without the Date arithmetic: the day of t, and the time on it.
    return Math.floor(t / DAY) * DAY + (hour * 60 + minute) * MINUTE;
  }
  return null;
}

/** Start of the next day whose month is allowed; skips whole months that are not. */
function nextDayStart(c: CronSchedule, year: number, month: number, day: number): number {
  if (!c.months[month] || day >= daysInMonth(year, month)) {
    let y = year;
    let m = month + 1;
    // A parsed schedule always allows some month; the bound keeps a hand-built one from looping forever.
    for (let i = 0; i < 12; i++, m++) {
      if (m > 12) {
        m = 1;
        y++;
      }
      if (c.months[m]) return utc(y, m - 1, 1);
    }
    return Infinity;
  }
  return utc(year, month - 1, day + 1);
}

/** The last matching wall-clock minute at or before `wall`, or null if none within the search horizon. */
export function prevWall(c: CronSchedule, wall: number): number | null {
  if (!(Math.abs(wall) <= WALL_EDGE)) return null;
  let t = Math.floor(wall / MINUTE) * MINUTE;
  const limit = wall - SEARCH_YEARS * 366 * DAY;
  while (t >= limit) {
    const epochDay = Math.floor(t / DAY);
    const { year, month, day } = civil(epochDay);
    if (!matchesOn(c, month, day, epochDay)) {
      t = prevDayEnd(c, year, month, day);
      continue;
    }
    const minuteOfDay = (t - epochDay * DAY) / MINUTE;
    const utcHour = Math.floor(minuteOfDay / 60);
    const hour = lastSet(c.hours, utcHour);
    if (hour < 0) {
      t = utc(year, month - 1, day) - MINUTE;
      continue;
    }
    const fromMinute = hour === utcHour ? minuteOfDay % 60 : 59;
    const minute = lastSet(c.minutes, fromMinute);
    if (minute < 0) {
      t = utc(year, month - 1, day, hour) - MINUTE;
      continue;
    }
    // utc(year, month - 1, day, hour, minute) without the Date arithmetic: the day of t, and the time on it.
    return Math.floor(t / DAY) * DAY + (hour * 60 + minute) * MINUTE;
  }
  return null;
}

/** Last minute of the previous day whose month is allowed. */
function prevDayEnd(c: CronSchedule, year: number, month: number, day: number): number {
  if (!c.months[month] || day <= 1) {
    let y = year;
    let m = month - 1;
    for (let i = 0; i < 12; i++, m--) {
      if (m < 1) {
        m = 12;
        y--;
      }
      if (c.months[m]) return utc(y, m, 1) - MINUTE;
    }
    return -Infinity;
  }
  return utc(year, month - 1, day) - MINUTE;
}
