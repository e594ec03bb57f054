// Instants people type (flags, query parameters): RFC 3339 with an offset, read by the time engine.

import { parseLocalDateTime, ScheduleError, zoneRules } from "../schedule/index.ts";
import { DEFAULT_TIME_ZONE } from "../api/window.ts";

/** A date, a time (seconds and their fraction optional) and an offset; `t`, `z` and a space for `T` are read too. */
const INSTANT = /^(\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2})?)?)(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Epoch ms of an RFC 3339 time with an offset (`Z` or `+01:00`; lower-case `t` and `z` are read
 * too), with fractions of a second to the millisecond (finer digits are cut). Throws a
 * ScheduleError whose `detail` says what is wrong; the caller names the flag or field.
 *
 * @example parseInstant("2026-03-29T00:00:00Z") // 1774742400000
 * @example parseInstant("2026-03-29T00:00:00.25Z") // 1774742400250
 */
export function parseInstant(text: string): number {
  const trimmed = text.trim();
  if (!/(Z|[+-]\d{2}:\d{2})$/i.test(trimmed)) {
    throw new ScheduleError("give an RFC 3339 time with an offset, e.g. 2026-03-29T00:00:00Z or 2026-03-29T00:00:00+01:00");
  }
  const m = INSTANT.exec(trimmed);
  // A fraction needs the seconds it is a fraction of.
  if (m === null || (m[2] !== undefined && !/:\d{2}:\d{2}$/.test(m[1] as string))) {
    throw new ScheduleError(`"${trimmed}" is not an RFC 3339 time: write it like 2026-03-29T00:00:00Z, 2026-03-29T00:00:00.250Z or 2026-03-29T01:00:00+01:00`);
  }
  const whole = `${(m[1] as string).replace(/[t ]/, "T")}${(m[3] as string).toUpperCase()}`;
  const ms = m[2] === undefined ? 0 : Number(m[2].slice(0, 3).padEnd(3, "0"));
  return parseLocalDateTime(whole, zoneRules(DEFAULT_TIME_ZONE)) + ms;
}
