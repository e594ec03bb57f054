// Absolute date-times of one-off freezes: local to the window's zone unless an offset is written.

import { utc } from "./calendar.ts";
import { ScheduleError } from "./errors.ts";
import type { ZoneRules } from "./zone.ts";

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * Parses `2026-12-20T00:00`, `2026-12-20T00:00:00`, `2026-12-20` (midnight) as a wall-clock time
 * in `zone`, or as an exact instant when an offset (`Z`, `+01:00`) is written.
 * A wall-clock time skipped by DST resolves to the first instant after the gap; a repeated one to its first instant.
 *
 * @example parseLocalDateTime("2026-12-20T00:00", zoneRules("Europe/Berlin")) // 2026-12-19T23:00:00Z
 */
export function parseLocalDateTime(text: string, zone: ZoneRules): number {
  const m = LOCAL.exec(text.trim());
  if (!m) {
    throw new ScheduleError(
      `"${text}" is not a date-time: write a local time like "2026-12-20T00:00" (in the window's time zone) or add an offset like "2026-12-20T00:00+01:00"`,
    );
  }
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [number, number, number, number, number, number];
  const daysInMonth = new Date(utc(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12) throw new ScheduleError(`"${text}": month ${month} does not exist`);
  if (day < 1 || day > daysInMonth) throw new ScheduleError(`"${text}": ${year}-${m[2]} has no day ${day}`);
  if (hour > 23 || minute > 59 || second > 59) throw new ScheduleError(`"${text}": ${m[4]}:${m[5]}${m[6] ? `:${m[6]}` : ""} is not a time of day`);
  const wall = utc(year, month - 1, day, hour, minute, second);
  const offset = m[7];
  if (offset === undefined) return zone.resolve(wall);
  if (offset === "Z") return wall;
  const sign = offset.startsWith("-") ? -1 : 1;
  const [oh, om] = offset.slice(1).split(":").map(Number) as [number, number];
  if (oh > 23 || om > 59) throw new ScheduleError(`"${text}": offset ${offset} is not valid`);
  return wall - sign * (oh * 60 + om) * 60_000;
}
