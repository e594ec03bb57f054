// A compact text timeline of decisions: one row per local day, one column per hour of the clock.

import type { ZoneRules } from "../../schedule/index.ts";
import { formatLength } from "../../schedule/index.ts";
import { abbreviation, localDay } from "../../schedule/format.ts";

const HOUR = 3_600_000;
const DAY = 86_400_000;

export const TIMELINE_LEGEND = "█ open   ▌ open part of the hour   ▒ frozen   · closed";

/** The column of an hour of the clock that a day does not have (the clocks went forward over it). */
const SKIPPED = "×";

/**
 * Draws the `open` and `frozen` stretches of `[from, to)` (each sorted, as instants `[start, end, start, end, …]`; the rest is closed) as rows of
 * local days in `zone`, under a 0–24 header.
 * Every day has 24 columns, the hours of the clock, so that they line up under the header on days
 * the clocks change too: an hour the clocks skip is drawn as ×, an hour they repeat is one column
 * for both; a line under the rows says where the clocks change.
 */
export function timeline(open: readonly number[], frozen: readonly number[], zone: ZoneRules, from: number, to: number): string[] {
  const header = `${" ".repeat(12)}${"0".padEnd(6)}${"6".padEnd(6)}${"12".padEnd(6)}${"18".padEnd(6)}24`;
  const rows = [header];
  const notes: string[] = [];
  const firstWall = zone.wallAt(from);
  let dayWall = Date.UTC(new Date(firstWall).getUTCFullYear(), new Date(firstWall).getUTCMonth(), new Date(firstWall).getUTCDate());
  // The first stretch of each that may reach the hour drawn: stretches are sorted, and hours are drawn in order.
  let o = 0;
  let f = 0;
  while (zone.resolve(dayWall) < to) {
    let cells = "";
    for (let hour = 0; hour < 24; hour++) {
      // The instants the clock shows this hour: none when skipped, two hours' worth when repeated.
      const h = zone.resolve(dayWall + hour * HOUR);
      const cellEnd = zone.resolve(dayWall + (hour + 1) * HOUR);
      if (cellEnd <= from || h >= to) {
        cells += " ";
        continue;
      }
      if (cellEnd <= h) {
        cells += SKIPPED;
        continue;
      }
      o = firstReaching(open, o, h);
      f = firstReaching(frozen, f, h);
      const openMs = overlapOf(open, o, h, cellEnd);
      cells += openMs >= cellEnd - h ? "█" : openMs > 0 ? "▌" : overlapOf(frozen, f, h, cellEnd) > 0 ? "▒" : "·";
    }
    rows.push(`${localDay(dayWall).padEnd(12)}${cells}`.trimEnd());
    for (const x of zone.transitionsIn(zone.resolve(dayWall) - 1, zone.resolve(dayWall + DAY) - 1)) notes.push(`${localDay(dayWall)}: ${clockChange(zone, x)}`);
    dayWall += DAY;
  }
  return [...rows, ...notes];
}

/** The index (even) of the first stretch of `pairs`, from index `i` on, that ends after `t`. */
function firstReaching(pairs: readonly number[], i: number, t: number): number {
  while (i < pairs.length && (pairs[i + 1] as number) <= t) i += 2;
  return i;
}

/** How much of `[h, end)` the stretches of `pairs` from index `i` on cover (they do not overlap one another). */
function overlapOf(pairs: readonly number[], i: number, h: number, end: number): number {
  let covered = 0;
  for (let j = i; j < pairs.length && (pairs[j] as number) < end; j += 2) {
    const overlap = Math.min(pairs[j + 1] as number, end) - Math.max(pairs[j] as number, h);
    if (overlap > 0) covered += overlap;
  }
  return covered;
}

/**
 * `the clocks go forward 1h at 02:00 CET, to 03:00 CEST: 02:00–03:00 does not exist (×)`: a change of the zone's offset at instant `x`, as the rows draw it.
 */
function clockChange(zone: ZoneRules, x: number): string {
  const before = zone.offsetAt(x - 1);
  const after = zone.offsetAt(x);
  const clock = (offset: number): string => new Date(x + offset).toISOString().slice(11, 16);
  const change = `${formatLength(Math.abs(after - before))} at ${clock(before)} ${abbreviation(x - 1, zone)}, to ${clock(after)} ${abbreviation(x, zone)}`;
  if (after > before)
    return `the clocks go forward ${change}: ${clock(before)}–${clock(after)} does not exist${(after - before) % HOUR === 0 ? ` (${SKIPPED})` : ""}.`;
  return `the clocks go back ${change}: ${clock(after)}–${clock(before)} happens twice, drawn in one column.`;
}
