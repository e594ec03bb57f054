// A compact text timeline of decisions: one row per local day, one column per hour.

import type { Segment, ZoneRules } from "../../schedule/index.ts";
import { localDay } from "../../schedule/format.ts";

const HOUR = 3_600_000;
const DAY = 86_400_000;

export const TIMELINE_LEGEND = "█ open   ▌ open part of the hour   ▒ frozen   · closed";

/**
 * Draws `segments` (covering `[from, to)`) as rows of local days in `zone`. Days with a DST change
 * have 23 or 25 columns, because columns are real hours.
 */
export function timeline(segments: readonly Segment[], zone: ZoneRules, from: number, to: number): string[] {
  const header = `${" ".repeat(12)}${"0".padEnd(6)}${"6".padEnd(6)}${"12".padEnd(6)}${"18".padEnd(6)}24`;
  const rows = [header];
  const firstWall = zone.wallAt(from);
  let dayWall = Date.UTC(new Date(firstWall).getUTCFullYear(), new Date(firstWall).getUTCMonth(), new Date(firstWall).getUTCDate());
  let i = 0;
  while (zone.resolve(dayWall) < to) {
    const dayStart = zone.resolve(dayWall);
    const dayEnd = zone.resolve(dayWall + DAY);
    let cells = "";
    for (let h = dayStart; h < dayEnd; h += HOUR) {
      const cellEnd = Math.min(h + HOUR, dayEnd);
      if (cellEnd <= from || h >= to) {
        cells += " ";
        continue;
      }
      // Segments are sorted: skip those that end before this hour.
      while (i < segments.length && (segments[i] as Segment).end <= h) i++;
      let open = 0;
      let frozen = false;
      for (let j = i; j < segments.length && (segments[j] as Segment).start < cellEnd; j++) {
        const s = segments[j] as Segment;
        const overlap = Math.min(s.end, cellEnd) - Math.max(s.start, h);
        if (overlap <= 0) continue;
        if (s.state === "open") open += overlap;
        if (s.state === "frozen") frozen = true;
      }
      cells += open >= cellEnd - h ? "█" : open > 0 ? "▌" : frozen ? "▒" : "·";
    }
    rows.push(`${localDay(dayWall).padEnd(12)}${cells}`.trimEnd());
    dayWall += DAY;
  }
  return rows;
}
