// Properties of recurrence entries on random rules: the evaluator's merged intervals are the union of the rule's intervals, found one by one, and agree with
// its state at each instant.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { compileWindow, Evaluator, ScheduleError, type RecurringSpec } from "../../../src/schedule/index.ts";
import type { RecurrenceRuleIntervals } from "../../../src/schedule/recurrence.ts";

const ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Santiago", "Pacific/Chatham"];
const DAY = 86_400_000;
const SEED = 20261128;
const DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"];

const byDay = fc.uniqueArray(fc.constantFrom(...DAYS), { minLength: 1, maxLength: 4 }).map((d) => `BYDAY=${d.join(",")}`);
const rule = fc.oneof(
  fc.constant("FREQ=DAILY"),
  byDay.map((d) => `FREQ=WEEKLY;${d}`),
  fc
    .tuple(
      fc.integer({ min: -5, max: 5 }).filter((n) => n !== 0),
      fc.constantFrom(...DAYS),
    )
    .map(([n, d]) => `FREQ=MONTHLY;BYDAY=${n}${d}`),
  fc
    .uniqueArray(
      fc.integer({ min: -31, max: 28 }).filter((n) => n !== 0),
      { minLength: 1, maxLength: 4 },
    )
    .map((d) => `FREQ=MONTHLY;BYMONTHDAY=${d.join(",")}`),
  byDay.map((d) => `FREQ=DAILY;${d};INTERVAL=2`),
);
const entry: fc.Arbitrary<RecurringSpec> = fc.record({
  recurrence: rule,
  at: fc.tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 15, 30, 45)).map(([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`),
  duration: fc.constantFrom("30m", "2h", "23h", "24h", "25h", "49h", "200h"),
  dtstart: fc.constantFrom("2026-01-01", "2026-03-29", "2026-10-04"),
});

test("merged open intervals are the union of each rule's intervals, and state agrees with them", () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...ZONES),
      fc.array(entry, { minLength: 1, maxLength: 3 }),
      fc.integer({ min: 0, max: 300 }),
      (timeZone, schedules, offsetDays) => {
        let window;
        try {
          window = compileWindow("w", { timeZone, schedules });
        } catch (e) {
          if (e instanceof ScheduleError && e.detail.startsWith("never occurs")) return;
          throw e;
        }
        const from = Date.UTC(2026, 0, 1) + offsetDays * DAY;
        const to = from + 40 * DAY;
        // The union, interval by interval, from far enough back to hold what reaches into the range.
        const all: Array<[number, number]> = [];
        for (const r of window.allow as RecurrenceRuleIntervals[]) {
          let t = from - 20 * DAY;
          for (let iv = r.after(t); iv !== null && iv.start < to; iv = r.after(t)) {
            if (iv.end > iv.start) all.push([iv.start, iv.end]);
            t = iv.start;
          }
          const before = r.atOrBefore(from - 20 * DAY);
          if (before !== null && before.end > before.start) all.push([before.start, before.end]);
        }
        all.sort((a, b) => a[0] - b[0]);
        const merged: Array<[number, number]> = [];
        for (const [s, e] of all) {
          const last = merged[merged.length - 1];
          if (last !== undefined && s <= last[1]) last[1] = Math.max(last[1], e);
          else merged.push([s, e]);
        }
        const expected = merged.filter(([s, e]) => e > from && s < to).map(([s, e]) => `${Math.max(s, from)}/${Math.min(e, to)}`);
        const ev = new Evaluator([window]);
        const got = ev.openIntervals(from, to).map((i) => `${i.start}/${i.end}`);
        assert.deepEqual(got, expected);
        for (const iv of ev.openIntervals(from, to)) {
          const d = ev.stateAt(iv.start);
          assert.equal(d.state, "open");
          if (iv.end < to) assert.equal(d.until, iv.end);
          if (iv.start > from) assert.equal(d.since, iv.start);
        }
      },
    ),
    { seed: SEED, numRuns: 300 },
  );
});
