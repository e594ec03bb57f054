// The times of a calendar's events as the window reads them: DTSTART, DTEND, DURATION and EXDATE values with their zones (a TZID, UTC or floating), and how
// they are written into a freeze.

import ICAL from "ical.js";
import { parseLocalDateTime, ScheduleError, zoneRules, type ZoneRules } from "../../schedule/index.ts";

const MINUTE = 60_000;
const DAY = 86_400_000;

/** How a TZID (or UTC, or a floating time) maps wall-clock times to instants. */
export interface EventZone {
  name: string;
  /** The engine's zone when the TZID is an IANA name (or UTC), so it can be compared with the window's. */
  iana: string | null;
  /** A date or a time without zone: local wherever it is read. */
  floating: boolean;
  instant(wall: number): number;
}

export type Time = InstanceType<typeof ICAL.Time>;
export type Component = InstanceType<typeof ICAL.Component>;

/** An event that cannot be a freeze: its message says why, and the import names the event. */
export class EventRefused extends Error {}

export interface ReadTime {
  allDay: boolean;
  /** The wall-clock time as written (ms on the UTC scale), the date at midnight for an all-day one. */
  wall: number;
  instant: number;
  zone: EventZone;
  /** As written, for messages. */
  text: string;
}

/** A DTSTART, DTEND or EXDATE value with its zone. */
export function readTimeValue(t: Time, tzid: string | null, zones: ReadonlyMap<string, InstanceType<typeof ICAL.Timezone>>, window: ZoneRules): ReadTime {
  const wall = Date.UTC(t.year, t.month - 1, t.day, t.isDate ? 0 : t.hour, t.isDate ? 0 : t.minute, t.isDate ? 0 : t.second);
  const zone = t.isDate ? floating(window) : eventZone(t, tzid, zones, window);
  return { allDay: t.isDate, wall, instant: zone.instant(wall), zone, text: t.toString() };
}

export function readTime(event: Component, name: string, zones: ReadonlyMap<string, InstanceType<typeof ICAL.Timezone>>, window: ZoneRules): ReadTime {
  const prop = event.getFirstProperty(name);
  const value = prop?.getFirstValue();
  if (!(value instanceof ICAL.Time)) throw new EventRefused(`has a ${name.toUpperCase()} that is not a date or date-time`);
  const tzid = prop?.getParameter("tzid");
  return readTimeValue(value, typeof tzid === "string" ? tzid : null, zones, window);
}

export function endOf(event: Component, start: ReadTime, zones: ReadonlyMap<string, InstanceType<typeof ICAL.Timezone>>, window: ZoneRules): ReadTime {
  if (event.hasProperty("dtend")) return readTime(event, "dtend", zones, window);
  const duration = event.getFirstPropertyValue("duration");
  if (duration instanceof ICAL.Duration) {
    if (start.allDay) {
      // Days and weeks are nominal for a date: whole local days.
      if (duration.hours !== 0 || duration.minutes !== 0 || duration.seconds !== 0)
        throw new EventRefused("is all-day (a DATE) with a DURATION of hours: give whole days");
      const wall = start.wall + (duration.isNegative ? -1 : 1) * (duration.weeks * 7 + duration.days) * DAY;
      return { ...start, wall, instant: start.zone.instant(wall), text: new Date(wall).toISOString().slice(0, 10) };
    }
    // RFC 5545 §3.3.6: days and weeks are nominal (the same local time), hours and less exact.
    const sign = duration.isNegative ? -1 : 1;
    const nominal = start.wall + sign * (duration.weeks * 7 + duration.days) * DAY;
    const instant = start.zone.instant(nominal) + sign * ((duration.hours * 60 + duration.minutes) * 60 + duration.seconds) * 1000;
    return { ...start, wall: nominal, instant, text: `DTSTART + ${duration.toString()}` };
  }
  // No end: a date lasts that day; a date-time is an instant, which cannot freeze anything.
  if (start.allDay) return { ...start, wall: start.wall + DAY, instant: start.zone.instant(start.wall + DAY), text: "(one day)" };
  throw new EventRefused("has no DTEND or DURATION: an event at one instant cannot freeze anything");
}

export function floating(window: ZoneRules): EventZone {
  return { name: window.name, iana: window.name, floating: true, instant: (wall) => window.resolveRfc5545(wall) };
}

export function eventZone(t: Time, tzid: string | null, zones: ReadonlyMap<string, InstanceType<typeof ICAL.Timezone>>, window: ZoneRules): EventZone {
  if (tzid === null) {
    // "Z": UTC; neither Z nor TZID: a floating time, the same local time wherever it is read, so the window's.
    return t.zone?.tzid === "UTC" ? { name: "UTC", iana: "UTC", floating: false, instant: (wall) => wall } : floating(window);
  }
  const iana = ianaZone(tzid);
  if (iana !== null) return { name: tzid, iana: iana.name, floating: false, instant: (wall) => iana.resolveRfc5545(wall) };
  const vtimezone = zones.get(tzid);
  if (vtimezone === undefined) throw new EventRefused(`has TZID "${tzid}", which is neither an IANA time zone nor defined by a VTIMEZONE of the file`);
  return {
    name: tzid,
    iana: null,
    floating: false,
    instant: (wall) => {
      const d = new Date(wall);
      const time = new ICAL.Time(
        {
          year: d.getUTCFullYear(),
          month: d.getUTCMonth() + 1,
          day: d.getUTCDate(),
          hour: d.getUTCHours(),
          minute: d.getUTCMinutes(),
          second: d.getUTCSeconds(),
        },
        vtimezone,
      );
      return time.toUnixTime() * 1000;
    },
  };
}

/** The engine's zone of an IANA name (Google writes "Europe/Berlin"; some writers prefix "/"), or null. */
export function ianaZone(tzid: string): ZoneRules | null {
  try {
    return zoneRules(tzid.replace(/^\//, ""));
  } catch (e) {
    if (e instanceof ScheduleError) return null;
    throw e;
  }
}

export function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

export function wallText(wall: number, withTime = true): string {
  const d = new Date(wall);
  const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  if (!withTime) return date;
  const seconds = d.getUTCSeconds();
  return `${date}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}${seconds === 0 ? "" : `:${pad(seconds)}`}`;
}

/**
 * A `from`/`to` for instant `t`: its local time in the window's zone, with the offset written
 * where that local time alone would read as another instant, or always unless `local`.
 */
export function localText(t: number, window: ZoneRules, local: boolean): string {
  const text = wallText(window.wallAt(t));
  if (local && parseLocalDateTime(text, window) === t) return text;
  const offset = window.offsetAt(t) / MINUTE;
  const sign = offset < 0 ? "-" : "+";
  return `${text}${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
}

/** A Go duration of whole seconds: "1h30m", "72h". */
export function goDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  const [h, m, sec] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  return `${h > 0 ? `${h}h` : ""}${m > 0 ? `${m}m` : ""}${sec > 0 ? `${sec}s` : ""}` || "0s";
}
