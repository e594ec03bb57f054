// Instants written for people (in a window's zone and in UTC) and for machines (RFC 3339 UTC): the one way every surface writes a time.

import type { ZoneRules } from "./zone.ts";

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

const pad = (n: number): string => String(n).padStart(2, "0");

const DAY = 86_400_000;
/** The largest distance from 1970 a Date holds. */
const DATE_EDGE = 8.64e15;
const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => pad(i));
/** The date part of the last day written (a preview writes half a million times, most on a day already written). */
let lastDay = NaN;
let lastDate = "";
/** The same for localTime (its day in the zone's wall clock: `Mon 2026-11-23 `) and utcTime (`2026-11-23 `). */
let lastLocalDay = NaN;
let lastLocalDate = "";
let lastUtcDay = NaN;
let lastUtcDate = "";

/** RFC 3339 in UTC, to the second: `2026-03-29T01:00:00Z`. */
export function rfc3339(t: number): string {
  if (!Number.isInteger(t) || Math.abs(t) > DATE_EDGE) return rfc3339ByDate(t);
  const day = Math.floor(t / DAY);
  if (day !== lastDay) {
    const date = rfc3339ByDate(day * DAY);
    lastDate = date.slice(0, date.indexOf("T") + 1);
    lastDay = day;
  }
  const second = Math.floor((t - day * DAY) / 1000);
  return `${lastDate}${TWO_DIGITS[Math.floor(second / 3600)] ?? ""}:${TWO_DIGITS[Math.floor(second / 60) % 60] ?? ""}:${TWO_DIGITS[second % 60] ?? ""}Z`;
}

function rfc3339ByDate(t: number): string {
  const d = new Date(t);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}Z`;
}

/** RFC 3339 in UTC, to the second, and to the millisecond when `t` falls within a second (as a window of 500ms ends): `2026-03-29T01:00:00.500Z`. */
export function rfc3339Exact(t: number): string {
  const ms = Number.isInteger(t) && Math.abs(t) <= DATE_EDGE ? ((t % 1000) + 1000) % 1000 : new Date(t).getUTCMilliseconds();
  return ms === 0 ? rfc3339(t) : `${rfc3339(t).slice(0, -1)}.${String(ms).padStart(3, "0")}Z`;
}

/** How finely a time for people is written: to the second, or also to the millisecond when it has one (a window of 500ms ends within a second). */
export interface Precision {
  milliseconds?: boolean;
}

/** `:05`, `:00.500` (with `milliseconds`) or nothing: the seconds of a time for people, when it has any. */
function secondsOf(d: Date, precision: Precision): string {
  const ms = precision.milliseconds === true ? d.getUTCMilliseconds() : 0;
  if (ms !== 0) return `:${pad(d.getUTCSeconds())}.${String(ms).padStart(3, "0")}`;
  return d.getUTCSeconds() === 0 ? "" : `:${pad(d.getUTCSeconds())}`;
}

/** `Mon 2026-11-23 08:00 CET`: the wall-clock time in the zone, with its abbreviation (seconds when it has them). */
export function localTime(t: number, zone: ZoneRules, precision: Precision = {}): string {
  const wall = zone.wallAt(t);
  if (!Number.isInteger(wall) || Math.abs(wall) > DATE_EDGE) return localTimeByDate(t, wall, zone, precision);
  const day = Math.floor(wall / DAY);
  return `${localDate(day)}${clock(wall - day * DAY, precision)} ${abbreviation(t, zone)}`;
}

/**
 * `localTime(t, zone, precision).length`, without the string: what a table measures to line up a
 * column of times before it writes them (a preview of a year has tens of thousands).
 */
export function localTimeWidth(t: number, zone: ZoneRules, precision: Precision = {}): number {
  const wall = zone.wallAt(t);
  if (!Number.isInteger(wall) || Math.abs(wall) > DATE_EDGE) return localTimeByDate(t, wall, zone, precision).length;
  const day = Math.floor(wall / DAY);
  return localDate(day).length + clockWidth(wall - day * DAY, precision) + 1 + abbreviation(t, zone).length;
}

/** `Mon 2026-11-23 `: the date part of localTime for the wall-clock day `day` (days since 1970-01-01). */
function localDate(day: number): string {
  if (day !== lastLocalDay) {
    const d = new Date(day * DAY);
    lastLocalDate = `${WEEKDAYS[d.getUTCDay()]} ${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} `;
    lastLocalDay = day;
  }
  return lastLocalDate;
}

function localTimeByDate(t: number, wall: number, zone: ZoneRules, precision: Precision): string {
  const d = new Date(wall);
  const seconds = secondsOf(d, precision);
  return `${WEEKDAYS[d.getUTCDay()]} ${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}${seconds} ${abbreviation(t, zone)}`;
}

/** `08:00` for each minute of the day, made as it is first written. */
const CLOCKS: string[] = [];

/** `08:00`, `08:00:05` or `08:00:05.500` (with `milliseconds`): the time of day of `ms` milliseconds into a day, as secondsOf writes its seconds. */
function clock(ms: number, precision: Precision): string {
  const second = Math.floor(ms / 1000);
  const minute = Math.floor(second / 60);
  const hhmm = (CLOCKS[minute] ??= `${TWO_DIGITS[Math.floor(minute / 60)] ?? ""}:${TWO_DIGITS[minute % 60] ?? ""}`);
  const milli = precision.milliseconds === true ? ms % 1000 : 0;
  if (milli !== 0) return `${hhmm}:${TWO_DIGITS[second % 60] ?? ""}.${String(milli).padStart(3, "0")}`;
  return second % 60 === 0 ? hhmm : `${hhmm}:${TWO_DIGITS[second % 60] ?? ""}`;
}

/** `clock(ms, precision).length`: `08:00`, `08:00:05` or `08:00:05.500`. */
function clockWidth(ms: number, precision: Precision): number {
  if (precision.milliseconds === true && ms % 1000 !== 0) return 12;
  return Math.floor(ms / 1000) % 60 === 0 ? 5 : 8;
}

/** `2026-11-23 07:00Z`: compact UTC for tables (seconds when it has them). */
export function utcTime(t: number, precision: Precision = {}): string {
  if (!Number.isInteger(t) || Math.abs(t) > DATE_EDGE) return utcTimeByDate(t, precision);
  const day = Math.floor(t / DAY);
  return `${utcDate(day)}${clock(t - day * DAY, precision)}Z`;
}

/** `utcTime(t, precision).length`, without the string (as localTimeWidth). */
export function utcTimeWidth(t: number, precision: Precision = {}): number {
  if (!Number.isInteger(t) || Math.abs(t) > DATE_EDGE) return utcTimeByDate(t, precision).length;
  const day = Math.floor(t / DAY);
  return utcDate(day).length + clockWidth(t - day * DAY, precision) + 1;
}

/** `2026-11-23 `: the date part of utcTime for the day `day` (days since 1970-01-01). */
function utcDate(day: number): string {
  if (day !== lastUtcDay) {
    const d = new Date(day * DAY);
    lastUtcDate = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} `;
    lastUtcDay = day;
  }
  return lastUtcDate;
}

function utcTimeByDate(t: number, precision: Precision): string {
  const d = new Date(t);
  const seconds = secondsOf(d, precision);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}${seconds}Z`;
}

/** `Mon 23 Nov`: the local day a timeline row stands for. */
export function localDay(wall: number): string {
  const d = new Date(wall);
  return `${WEEKDAYS[d.getUTCDay()]} ${pad(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]}`;
}

const abbreviations = new Map<string, Intl.DateTimeFormat[]>();

/** The last stretch of time whose zone's short name was looked up, `[from, to)`, and the name. */
let named: { zone: ZoneRules; from: number; to: number; name: string } | null = null;

/** The zone's short name at `t` ("CET", "EDT"), or its offset ("UTC+05:30") where none is in common use. */
export function abbreviation(t: number, zone: ZoneRules): string {
  if (zone.name === "UTC") return "UTC";
  if (named !== null && named.zone === zone && t >= named.from && t < named.to) return named.name;
  const name = abbreviationAt(t, zone);
  // Asked again, most likely within the same day (a preview writes hundreds of thousands of times): the
  // name is kept for the part of the UTC day around `t` with its offset, when that part has it at both ends.
  if (Math.abs(t) < DATE_EDGE - 2 * DAY) {
    const day = Math.floor(t / DAY) * DAY;
    let from = day;
    let to = day + DAY;
    for (const x of zone.transitionsIn(day, day + DAY)) {
      if (x <= t) from = x;
      else if (x < to) to = x;
    }
    if (abbreviationAt(from, zone) === name && abbreviationAt(to - 1, zone) === name) named = { zone, from, to, name };
  }
  return name;
}

/** abbreviation, looked up. */
function abbreviationAt(t: number, zone: ZoneRules): string {
  let formats = abbreviations.get(zone.name);
  if (formats === undefined) {
    formats = ["en-US", "en-GB"].map((locale) => new Intl.DateTimeFormat(locale, { timeZone: zone.name, timeZoneName: "short" }));
    abbreviations.set(zone.name, formats);
  }
  for (const format of formats) {
    const name = format.formatToParts(t).find((p) => p.type === "timeZoneName")?.value;
    if (name !== undefined && !/^(GMT|UTC)[+-]/.test(name)) return name;
  }
  const offset = zone.offsetAt(t) / 60_000;
  const sign = offset < 0 ? "-" : "+";
  return `UTC${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
}
