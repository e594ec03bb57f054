// When a Kubernetes CronJob runs: robfig/cron v3's SpecSchedule.Next, as the CronJob controller calls it, step for step, quirks included.
//
// The controller asks robfig/cron (v3.0.1, the version Kubernetes pins) for the run after the last
// one, in the CronJob's zone. robfig walks the fields of a Go time.Time: it adds months, days,
// hours and minutes, and builds dates with time.Date, which resolves a wall-clock time that a DST
// change skips or repeats in its own way. That is why a CronJob does not simply run "at every
// instant whose wall-clock time matches": where the clocks change at midnight (America/Santiago,
// America/Havana, America/Sao_Paulo until 2019) or by half an hour (Australia/Lord_Howe), it runs
// at times no reading of the schedule would give, skips runs, or never finds the next run at all
// (its loop does not end). This module does what robfig does, so that migrate's proof compares a
// window with the CronJobs as they really run, and says so where robfig's loop never ends. It is
// checked against robfig/cron itself (test/harness/cron-oracle.ts).

import type { CronSchedule, ZoneRules } from "../schedule/index.ts";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/**
 * Steps of one Next beyond which it is taken never to end, should a loop not come back to a time it had: one that ends takes a few thousand at most (five years
 * of days).
 */
const MAX_STEPS = 2_000_000;

/** The answer of one Next: the run (epoch ms), none within robfig's five years, or a loop that never ends. */
export type NextRun = { at: number } | { none: true } | { stuck: true };

/** A time.Time in a zone: its instant, and the wall-clock fields Go reads of it. */
interface Fields {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number; // 0 = Sunday
}

/**
 * robfig/cron v3.0.1's `SpecSchedule.Next(t)` for a schedule of the standard parser (seconds
 * field 0) in `zone`: the first run strictly after instant `t` (epoch ms) as robfig computes it.
 *
 * @example robfigNext(parseCron("0 8 * * MON"), zoneRules("Europe/Berlin"), Date.UTC(2026, 10, 23)) // { at: 1763967600000 }
 */
export function robfigNext(cron: CronSchedule, zone: ZoneRules, from: number): NextRun {
  const fields = (t: number): Fields => {
    const d = new Date(zone.wallAt(t));
    return {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: d.getUTCHours(),
      minute: d.getUTCMinutes(),
      second: d.getUTCSeconds(),
      weekday: d.getUTCDay(),
    };
  };
  // Go's time.Date: the wall-clock fields normalised (day 32 is the next month's 1st), then the
  // offset looked up at the wall time taken as UTC, and looked up again at the instant that gives
  // when a change of offset lies between the two.
  const goDate = (year: number, month: number, day: number, hour: number, minute: number, second: number): number => {
    const wall = Date.UTC(year, month - 1, day, hour, minute, second);
    const first = zone.offsetAt(wall);
    const utc = wall - first;
    const crossed = zone.transitionsIn(Math.min(utc, wall), Math.max(utc, wall)).length > 0;
    return wall - (crossed ? zone.offsetAt(utc) : first);
  };
  const addDate = (t: number, months: number, days: number): number => {
    const f = fields(t);
    return goDate(f.year, f.month + months, f.day + days, f.hour, f.minute, f.second);
  };
  const dayMatches = (f: Fields): boolean => {
    const dom = cron.daysOfMonth[f.day] === true;
    const dow = cron.daysOfWeek[f.weekday] === true;
    return cron.domStar || cron.dowStar ? dom && dow : dom || dow;
  };

  // Start at the next whole second.
  let t = Math.floor(from / SECOND) * SECOND + SECOND;
  let added = false;
  const yearLimit = fields(t).year + 5;
  // robfig's state is the time and the place in its loop (once a field has been added to): the
  // same pair twice is a loop that never ends. In Apia, adding a day to 29 December 2011 gives
  // 29 December again, since time.Date resolves the skipped 30th to it.
  const seen = new Set<number>();
  let steps = 0;
  const again = (place: number): boolean => {
    if (!added) return false;
    const key = t * 8 + place;
    if (seen.has(key) || ++steps > MAX_STEPS) return true;
    seen.add(key);
    return false;
  };
  wrap: for (;;) {
    if (again(0)) return { stuck: true };
    let f = fields(t);
    if (f.year > yearLimit) return { none: true };

    while (!cron.months[f.month]) {
      if (again(1)) return { stuck: true };
      if (!added) {
        added = true;
        t = goDate(f.year, f.month, 1, 0, 0, 0);
      }
      t = addDate(t, 1, 0);
      f = fields(t);
      if (f.month === 1) continue wrap;
    }

    while (!dayMatches(f)) {
      if (again(2)) return { stuck: true };
      if (!added) {
        added = true;
        t = goDate(f.year, f.month, f.day, 0, 0, 0);
      }
      t = addDate(t, 0, 1);
      f = fields(t);
      // robfig's correction for a midnight that DST moved: back to 00:00 from 01:00, on to it from 23:00.
      if (f.hour !== 0) {
        t += f.hour > 12 ? (24 - f.hour) * HOUR : -f.hour * HOUR;
        f = fields(t);
      }
      if (f.day === 1) continue wrap;
    }

    while (!cron.hours[f.hour]) {
      if (again(3)) return { stuck: true };
      if (!added) {
        added = true;
        t = goDate(f.year, f.month, f.day, f.hour, 0, 0);
      }
      t += HOUR;
      f = fields(t);
      if (f.hour === 0) continue wrap;
    }

    while (!cron.minutes[f.minute]) {
      if (again(4)) return { stuck: true };
      if (!added) {
        added = true;
        t = Math.floor(t / MINUTE) * MINUTE;
      }
      t += MINUTE;
      f = fields(t);
      if (f.minute === 0) continue wrap;
    }

    // The standard parser's seconds field is 0 alone: robfig adds a second at a time until the
    // wall clock's second is 0, then starts over. Where the offset is whole minutes, that is one jump.
    while (f.second !== 0) {
      if (again(5)) return { stuck: true };
      if (!added) {
        added = true;
        t = Math.floor(t / SECOND) * SECOND;
      }
      const rest = (60 - f.second) * SECOND;
      t += zone.offsetAt(t) % MINUTE === 0 && zone.transitionsIn(t, t + rest).length === 0 ? rest : SECOND;
      f = fields(t);
      if (f.second === 0) continue wrap;
    }
    return { at: t };
  }
}
