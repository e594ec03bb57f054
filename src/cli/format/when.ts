// Instants as people on call read them: relative to now ("in 2h13m", "3h ago") and in the window's zone ("Mon 08:00 CET").

import { formatLength, type ZoneRules } from "../../schedule/index.ts";
import { abbreviation, localTime } from "../../schedule/format.ts";

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const pad = (n: number): string => String(n).padStart(2, "0");
/** Within this distance of now, a weekday names the day without ambiguity. */
const NEAR_MS = 6 * 86_400_000;

/** A length of time in its two largest units, compact: `2h13m`, `3d4h`, `45s`. */
export function span(ms: number): string {
  // To the second: a distance from now has milliseconds that mean nothing to a reader.
  return formatLength(Math.round(Math.abs(ms) / 1000) * 1000).replaceAll(" ", "");
}

/** `in 2h13m`, `3h ago`, or `now`. */
export function relative(t: number, now: number): string {
  const d = t - now;
  if (Math.abs(d) < 1000) return "now";
  return d > 0 ? `in ${span(d)}` : `${span(d)} ago`;
}

/**
 * The wall-clock time in the zone: `Mon 08:00 CET` when within six days of now, else with the date
 * (`Tue 2027-01-05 00:00 CET`). Seconds are shown when they are not zero.
 */
export function wallClock(t: number, now: number, zone: ZoneRules): string {
  if (Math.abs(t - now) >= NEAR_MS) return localTime(t, zone);
  const d = new Date(zone.wallAt(t));
  const seconds = d.getUTCSeconds() === 0 ? "" : `:${pad(d.getUTCSeconds())}`;
  return `${WEEKDAYS[d.getUTCDay()]} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}${seconds} ${abbreviation(t, zone)}`;
}

/** `in 2h13m, Mon 08:00 CET`: relative first, then the time in the zone. */
export function when(t: number, now: number, zone: ZoneRules): string {
  return `${relative(t, now)}, ${wallClock(t, now, zone)}`;
}

/** `Tue 2027-01-05 00:00 CET (in 13d)`: the time in the zone first, then relative. */
export function at(t: number, now: number, zone: ZoneRules): string {
  return `${wallClock(t, now, zone)} (${relative(t, now)})`;
}
