// Fuzzing the cron parser and the occurrence walk: any text is a schedule that fires, or a ScheduleError that names the expression; occurrences are ordered in
// any zone and at any instant.

import assert from "node:assert/strict";
import fc from "fast-check";
import { nextWall, Occurrences, parseCron, prevWall, ScheduleError, zoneRules, type CronSchedule } from "../../../src/schedule/index.ts";
import { fuzz } from "./harness.ts";
import { cronText, instant, junk, validCronText, zoneText } from "./inputs.ts";

const YEAR = 366 * 86_400_000;

/** Parses `text`; a rejection must be a ScheduleError that quotes the expression and says what is wrong. */
function parsed(text: string): CronSchedule | null {
  try {
    return parseCron(text);
  } catch (e) {
    assert.ok(e instanceof ScheduleError, `not a ScheduleError: ${String(e)}`);
    assert.ok(e.message.startsWith(`cron "${text}": `), `the message names the expression: ${e.message}`);
    assert.ok(e.detail.length > `cron "${text}": `.length, "the message says what is wrong");
    return null;
  }
}

/** Every field allows some value, and the schedule fires within the engine's horizon both ways. */
function checkSchedule(c: CronSchedule): void {
  for (const [name, set] of Object.entries({ minutes: c.minutes, hours: c.hours, daysOfMonth: c.daysOfMonth, months: c.months, daysOfWeek: c.daysOfWeek })) {
    assert.ok(
      set.some((v) => v === true),
      `${c.source}: no ${name} allowed`,
    );
    assert.ok(
      set.every((v) => typeof v === "boolean"),
      `${c.source}: ${name} holds something other than booleans`,
    );
  }
  const from = Date.UTC(2026, 0, 1);
  const next = nextWall(c, from);
  const prev = prevWall(c, from);
  assert.ok(next !== null && next >= from && next - from <= 9 * YEAR, `${c.source}: never fires after 2026-01-01`);
  assert.ok(prev !== null && prev <= from && from - prev <= 9 * YEAR, `${c.source}: never fired before 2026-01-01`);
}

/** A schedule that fires, or a ScheduleError naming the expression. */
function firesOrNamed(text: string): void {
  const c = parsed(text);
  if (c !== null) checkSchedule(c);
}

fuzz(import.meta.url, {
  "any text: a schedule that fires, or a ScheduleError naming the expression": { arbitrary: junk, numRuns: 1500, check: firesOrNamed },

  "near-valid expressions (ranges, steps, names, huge numbers, odd spacing): the same": { arbitrary: cronText, numRuns: 4000, check: firesOrNamed },

  "occurrences in any zone at any instant: after is later, atOrBefore is not, or none; a bad zone is a ScheduleError": {
    arbitrary: fc.tuple(cronText, zoneText, instant),
    numRuns: 1500,
    check: ([text, zone, t]: [string, string, number]) => {
      const c = parsed(text);
      let rules;
      try {
        rules = zoneRules(zone);
      } catch (e) {
        assert.ok(e instanceof ScheduleError, `not a ScheduleError: ${String(e)}`);
        assert.match(e.message, /^time zone ".*" is (unknown|not an IANA zone name)/s);
        return;
      }
      if (c === null) return;
      const occurrences = new Occurrences(c, rules);
      const after = occurrences.after(t);
      const before = occurrences.atOrBefore(t);
      if (after !== null) assert.ok(Number.isFinite(after) && after > t, `after(${t}) = ${after}`);
      if (before !== null) assert.ok(Number.isFinite(before) && before <= t, `atOrBefore(${t}) = ${before}`);
      // A fresh object: this one remembers what `after` found, and would answer from that.
      if (after !== null) assert.ok((new Occurrences(c, rules).atOrBefore(after) as number) === after, "an occurrence is at or before itself");
    },
  },

  "an Occurrences asked in any order answers as a fresh one does (what it remembers of the last answer is never stale)": {
    arbitrary: fc.tuple(
      fc.oneof(validCronText, fc.constantFrom("*/7 2 * * *", "* 2 * * *", "30 2 * * *", "*/5 * * * *", "0,30 1-3 * * *", "59 1 * * *", "* * * * *")),
      fc.constantFrom("UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Pacific/Apia", "America/St_Johns", "Antarctica/Troll"),
      // Instants around the zone's changes of offset in 2026 and near the end of the range searched (years before Date's last), each asked by one of
      // the three questions, from the last answer or anew.
      fc.array(
        fc.tuple(
          fc.constantFrom("after", "atOrBefore", "firedWall"),
          fc.oneof(
            { weight: 4, arbitrary: fc.tuple(fc.nat(3), fc.integer({ min: -240, max: 240 })) },
            { weight: 1, arbitrary: fc.tuple(fc.constant(-1), fc.integer({ min: -12 * 366 * 1440, max: 0 })) },
          ),
          fc.boolean(),
        ),
        { minLength: 1, maxLength: 30 },
      ),
    ),
    numRuns: 800,
    check: ([text, zone, asks]: [string, string, Array<["after" | "atOrBefore" | "firedWall", [number, number], boolean]>]) => {
      const c = parseCron(text);
      const rules = zoneRules(zone);
      const changes = rules.transitionsIn(Date.UTC(2026, 0, 1), Date.UTC(2027, 0, 1));
      const around = ([which, minutes]: [number, number]): number =>
        (which < 0 ? 8.64e15 - 9 * 366 * 86_400_000 : (changes[which % Math.max(changes.length, 1)] ?? Date.UTC(2026, 5, 1))) + minutes * 60_000;
      const shared = new Occurrences(c, rules);
      let last: number | null = null;
      for (const [question, at, fromLast] of asks) {
        const t: number = fromLast && last !== null ? last : around(at);
        const fresh = new Occurrences(c, rules);
        const answer = question === "after" ? shared.after(t) : question === "atOrBefore" ? shared.atOrBefore(t) : shared.firedWall(t);
        const expected: number | null =
          question === "after" ? fresh.after(t) : question === "atOrBefore" ? fresh.atOrBefore(t) : prevWall(c, rules.maxWallUpTo(t));
        assert.equal(answer, expected, `${question}(${new Date(t).toISOString()}) in ${zone} for "${text}"`);
        last = question === "firedWall" ? (answer === null ? null : rules.resolve(answer)) : answer;
      }
    },
  },
});
