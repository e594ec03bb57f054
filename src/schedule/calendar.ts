// Calendar arithmetic for every year a Date can hold, including 0-99, which Date.UTC reads as 1900-1999.

const DAY = 86_400_000;
/** 400 Gregorian years: the calendar, days of the week included, repeats after exactly this many days. */
const CYCLE_MS = 146_097 * DAY;
/** The largest distance from 1970 a Date holds (ECMA-262 §21.4.1.1). */
export const DATE_EDGE_MS = 8.64e15;

/**
 * Date.UTC without its two-digit-year rule: `Date.UTC(50, 0, 1)` is 1950-01-01, `utc(50, 0, 1)` is
 * 0050-01-01. Months are 0-based and may overflow, as in Date.UTC.
 */
export function utc(year: number, month: number, day = 1, hour = 0, minute = 0, second = 0): number {
  if (year >= 0 && year < 100) return Date.UTC(year + 400, month, day, hour, minute, second) - CYCLE_MS;
  return Date.UTC(year, month, day, hour, minute, second);
}
