// Occurrences of a cron expression as instants in a zone, by fluxgate's DST rules.

import { nextWall, prevWall, type CronSchedule } from "./cron.ts";
import type { ZoneRules } from "./zone.ts";

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

  constructor(cron: CronSchedule, zone: ZoneRules) {
    this.cron = cron;
    this.zone = zone;
  }

  /** The first occurrence strictly after `t`, or null when there is none within the search horizon. */
  after(t: number): number | null {
    // Wall times up to maxWallUpTo(t) resolve to t or before; the first later match is the answer.
    const wall = nextWall(this.cron, this.zone.maxWallUpTo(t) + 1);
    return wall === null ? null : this.zone.resolve(wall);
  }

  /** The last occurrence at or before `t`, or null when there is none within the search horizon. */
  atOrBefore(t: number): number | null {
    const wall = prevWall(this.cron, this.zone.maxWallUpTo(t));
    return wall === null ? null : this.zone.resolve(wall);
  }
}
