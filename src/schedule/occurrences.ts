// Occurrences of a cron expression as instants in a zone, by fluxgate's DST rules.

import { nextWall, prevWall, type CronSchedule } from "./cron.ts";
import type { ZoneRules } from "./zone.ts";

const MINUTE = 60_000;
/** Enough steps to walk through a repeated hour of a `* * * * *` schedule and then some. */
const MAX_STEPS = 200;

/**
 * Instants at which a cron expression fires in a zone. Each matching wall-clock minute fires
 * once: at its first instant when the hour repeats, at the first instant after the gap when it
 * is skipped. Several skipped minutes that resolve to the same instant fire once.
 */
export class Occurrences {
  readonly cron: CronSchedule;
  readonly zone: ZoneRules;

  constructor(cron: CronSchedule, zone: ZoneRules) {
    this.cron = cron;
    this.zone = zone;
  }

  /** The first occurrence strictly after `t`, or null when there is none within the search horizon. */
  after(t: number): number | null {
    let wall = nextWall(this.cron, this.zone.wallAt(t));
    for (let i = 0; i < MAX_STEPS && wall !== null; i++) {
      const instant = this.zone.resolve(wall);
      if (instant > t) return instant;
      wall = nextWall(this.cron, wall + MINUTE);
    }
    return null;
  }

  /** The last occurrence at or before `t`, or null when there is none within the search horizon. */
  atOrBefore(t: number): number | null {
    // In a repeated hour, wall times up to an hour past wallAt(t) may already have fired.
    let wall = prevWall(this.cron, t + this.zone.maxOffsetNear(t));
    for (let i = 0; i < MAX_STEPS && wall !== null; i++) {
      const instant = this.zone.resolve(wall);
      if (instant <= t) return instant;
      wall = prevWall(this.cron, wall - MINUTE);
    }
    return null;
  }
}
