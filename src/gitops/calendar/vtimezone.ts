// A VTIMEZONE made from the engine's zone data (tzdata through Intl), so an iCalendar reader reads a zone's local times as the engine does.

import type { ZoneRules } from "../../schedule/index.ts";

const DAY = 86_400_000;
/** How far beyond the range a VTIMEZONE lists the zone's changes. */
const ZONE_MARGIN_MS = 400 * DAY;

export function pad(n: number, width = 2): string {
  return String(Math.abs(n)).padStart(width, "0");
}

/** A local DATE-TIME value (no zone): 20270105T220000. */
export function wallValue(wall: number): string {
  const d = new Date(wall);
  return `${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}T${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;
}

function offsetValue(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  return `${minutes < 0 ? "-" : "+"}${pad(Math.floor(Math.abs(minutes) / 60))}${pad(Math.abs(minutes) % 60)}`;
}

/**
 * A VTIMEZONE for `zone` from the engine's zone data: each change of offset within 400 days of
 * `[from, to)` as its own STANDARD or DAYLIGHT part, so a calendar program reads the zone's local
 * times as the engine does (none is needed for UTC).
 */
export function vtimezone(zone: ZoneRules, from: number, to: number): string[] {
  const start = from - ZONE_MARGIN_MS;
  const changes = zone.transitionsIn(start, to + ZONE_MARGIN_MS);
  const first = zone.offsetAt(start);
  const standard = Math.min(first, ...changes.map((t) => zone.offsetAt(t)));
  const lines = ["BEGIN:VTIMEZONE", `TZID:${zone.name}`];
  const part = (t: number, before: number, after: number): void => {
    const kind = after > standard ? "DAYLIGHT" : "STANDARD";
    lines.push(`BEGIN:${kind}`, `DTSTART:${wallValue(t + before)}`, `TZOFFSETFROM:${offsetValue(before)}`, `TZOFFSETTO:${offsetValue(after)}`, `END:${kind}`);
  };
  part(start, first, first);
  for (const t of changes) part(t, zone.offsetAt(t - 1), zone.offsetAt(t));
  lines.push("END:VTIMEZONE");
  return lines;
}
