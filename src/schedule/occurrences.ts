// Occurrences of a cron expression as instants in a zone, by fluxgate's DST rules.

import { minutesOfDay, nextWall, prevWall, runsOnDay, searchable, type CronSchedule } from "./cron.ts";
import type { ZoneRules } from "./zone.ts";

const DAY = 86_400_000;
const MINUTE = 60_000;

/**
 * Instants at which a cron expression fires in a zone. Each matching wall-clock minute fires
 * once: at its first instant when the hour repeats, at the first instant after the gap when it
 * is skipped. Several skipped minutes that resolve to the same instant fire once.
 *
 * Wall-clock times resolve to instants in order (`ZoneRules.resolve` never goes backwards), so
 * the occurrences around an instant are found from one wall-clock bound, with no stepping.
 */
export class Occurrences {
  readonly cron: CronSchedule;
  readonly zone: ZoneRules;
  /**
   * What atOrBefore answers for `lastAsked`, and the wall-clock minute that fired then (NaN: not known). A preview of a
   * year asks millions of times, mostly for an instant just asked about: where one segment ends and the next is decided,
   * atOrBefore of the same instant twice; at an occurrence that `after` found, atOrBefore of it; then the minute that fired.
   */
  private lastAsked = NaN;
  private lastFired: number | null = null;
  private lastWall: number | null = NaN;

  constructor(cron: CronSchedule, zone: ZoneRules) {
    this.cron = cron;
    this.zone = zone;
  }

  /** The minutes of a day the schedule fires at, found when `between` is first asked. */
  private minutes: number[] | null = null;

  /**
   * Every occurrence in `[lo, hi)`, in order: the matching wall-clock minutes of each day, a day at a time, each
   * resolved, where several that resolve to one instant (skipped by a gap) are one occurrence, as `after` steps
   * over them. What `after` answers one by one, found without a search for each: the window's runs within which
   * the clocks change are listed so (window.ts). Null when the range reaches walls the searches do not (near the
   * edges of a Date's range).
   */
  between(lo: number, hi: number): number[] | null {
    const out: number[] = [];
    if (!(hi > lo)) return out;
    // Walls up to maxWallUpTo(lo - 1) resolve to an instant before lo; those up to maxWallUpTo(hi - 1), before hi.
    const first = this.zone.maxWallUpTo(lo - 1) + 1;
    const last = this.zone.maxWallUpTo(hi - 1);
    if (!searchable(first, 2 * DAY) || !searchable(last, 2 * DAY)) return null;
    const minutes = (this.minutes ??= minutesOfDay(this.cron));
    let previous = -Infinity;
    for (let day = Math.floor(first / DAY); day * DAY <= last; day++) {
      if (!runsOnDay(this.cron, day)) continue;
      for (let i = 0; i < minutes.length; i++) {
        const wall = day * DAY + (minutes[i] as number) * MINUTE;
        if (wall < first) continue;
        if (wall > last) return out;
        const at = this.zone.resolve(wall);
        if (at !== previous) out.push(at);
        previous = at;
      }
    }
    return out;
  }

  /** The first occurrence strictly after `t`, or null when there is none within the search horizon. */
  after(t: number): number | null {
    // Wall times up to maxWallUpTo(t) resolve to t or before; the first later match is the answer.
    const wall = nextWall(this.cron, this.zone.maxWallUpTo(t) + 1);
    if (wall === null) return null;
    const at = this.zone.resolve(wall);
    // The last occurrence at or before an occurrence is itself (where prevWall searches: a clock moves by at most a day,
    // so the wall it would start from is within two days of this one). Which minute fired there is not known: several
    // skipped minutes resolve to the first instant after a gap, and this is the first of them, not the last.
    if (searchable(wall, 2 * DAY)) {
      this.lastAsked = at;
      this.lastFired = at;
      this.lastWall = NaN;
    }
    return at;
  }

  /** The last occurrence at or before `t`, or null when there is none within the search horizon. */
  atOrBefore(t: number): number | null {
    if (t !== this.lastAsked) {
      const wall = prevWall(this.cron, this.zone.maxWallUpTo(t));
      this.lastAsked = t;
      this.lastWall = wall;
      this.lastFired = wall === null ? null : this.zone.resolve(wall);
    }
    return this.lastFired;
  }

  /**
   * The wall-clock minute that fired at occurrence `at` (the last one, when several skipped minutes resolve to it), or
   * null if none within the search horizon. The one atOrBefore found, when it answered `at`: the last matching minute
   * at or before maxWallUpTo(t) resolves to `at`, and no later matching minute resolves to `at` or before.
   */
  firedWall(at: number): number | null {
    if (at === this.lastFired && !Number.isNaN(this.lastWall)) return this.lastWall;
    return prevWall(this.cron, this.zone.maxWallUpTo(at));
  }
}
