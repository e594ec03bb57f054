// Evaluator.stretches (each layer's runs less what the layers above take) against the walk it stands in for: the open
// stretches merged and the frozen segments of segments(from, to), on random windows with freezes and overrides.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { compileWindow, Evaluator, type OverrideInput, type WindowTiming } from "../../../src/schedule/index.ts";
import { cronExpression } from "./arbitraries.ts";
import { at, CLOCK_CHANGES } from "./helpers.ts";

const ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"];
const DAY = 86_400_000;
const SEED = 20261130;

const cronExpr = cronExpression({ anyMonth: true });

const timing: fc.Arbitrary<WindowTiming> = fc.record({
  timeZone: fc.constantFrom(...ZONES),
  schedules: fc.array(
    fc.oneof(
      fc.record({ start: cronExpr, duration: fc.constantFrom("1m", "30m", "90m", "2h", "26h") }),
      fc.record({ start: cronExpr, end: cronExpr }),
      fc.record({
        recurrence: fc.constantFrom("FREQ=WEEKLY;BYDAY=MO,WE", "FREQ=MONTHLY;BYDAY=2SU", "FREQ=DAILY;INTERVAL=3"),
        dtstart: fc.constant("2025-12-30"),
        at: fc.constantFrom("00:00", "08:30"),
        duration: fc.constantFrom("1h", "24h"),
      }),
    ),
    { minLength: 1, maxLength: 3 },
  ),
  freezes: fc.array(
    fc.oneof(
      fc.record({ start: cronExpr, duration: fc.constantFrom("15m", "1h", "5h") }),
      fc.constantFrom({ from: "2026-03-28T22:00", to: "2026-03-30T06:00" }, { from: "2026-05-31T00:00", to: "2026-06-03T12:00" }),
      fc.constant({ holidays: { country: "DE" } }),
    ),
    { maxLength: 3 },
  ),
});

/** Up to three overrides of either kind, each somewhere in the ten days from `from`. */
const overrides = fc.array(
  fc.record({
    action: fc.constantFrom("Open" as const, "Freeze" as const),
    offset: fc.integer({ min: -DAY, max: 10 * DAY }),
    length: fc.integer({ min: 1, max: 3 * DAY }),
  }),
  { maxLength: 3 },
);

const rangeStart = fc.constantFrom(
  at("2026-01-01T00:00:00Z"),
  at("2026-03-27T00:00:00Z"),
  at("2026-05-30T13:07:00Z"),
  at("2026-10-23T00:00:00Z"),
  at("2026-12-24T00:00:00Z"),
);

/** The open stretches merged and the frozen segments, as instants: what stretches stands in for, from the walk. */
function fromSegments(ev: Evaluator, from: number, to: number): { open: number[]; frozen: number[] } {
  const open: number[] = [];
  const frozen: number[] = [];
  for (const s of ev.segments(from, to)) {
    if (s.state === "frozen") frozen.push(s.start, s.end);
    if (s.state !== "open") continue;
    if (open.length > 0 && open[open.length - 1] === s.start) open[open.length - 1] = s.end;
    else open.push(s.start, s.end);
  }
  return { open, frozen };
}

test("stretches say what the walk's segments say: open merged, frozen as cut, with freezes, holidays and overrides", () => {
  fc.assert(
    fc.property(timing, rangeStart, fc.integer({ min: 1, max: 10 * DAY }), overrides, (spec, from, length, picked) => {
      const to = from + length;
      const inputs: OverrideInput[] = picked.map((o, i) => ({
        name: `o${i}`,
        window: "w",
        action: o.action,
        start: from + o.offset,
        end: from + o.offset + o.length,
        reason: "test",
      }));
      const ev = new Evaluator([compileWindow("w", spec)], inputs);
      const walked = fromSegments(ev, from, to);
      assert.deepEqual(ev.stretches(from, to), { ...walked, frozenByRule: null });
      // By rule: each frozen stretch cut as segmentsByRule cuts it, which is how the whole range's walk by rule cuts its frozen time.
      const { frozenByRule, ...rest } = ev.stretches(from, to, { frozenByRule: true });
      assert.deepEqual(rest, walked);
      const ranges = [];
      for (let i = 0; i < walked.frozen.length; i += 2) ranges.push({ start: walked.frozen[i]!, end: walked.frozen[i + 1]! });
      assert.deepEqual(frozenByRule, ev.segmentsByRule(ranges));
      assert.deepEqual(
        frozenByRule,
        ev.segments(from, to, { byRule: true }).filter((s) => s.state === "frozen"),
      );
    }),
    { seed: SEED, numRuns: 300 },
  );
});

test("a year of a minute-level window with an hourly freeze: 8,760 open and 8,760 frozen stretches, as the walk has them", () => {
  const ev = new Evaluator([compileWindow("w", { schedules: [{ start: "* * * * *", duration: "1m" }], freezes: [{ start: "0 * * * *", duration: "10m" }] })]);
  const [from, to] = [at("2026-01-01T00:00:00Z"), at("2027-01-01T00:00:00Z")];
  const { frozenByRule, ...stretches } = ev.stretches(from, to, { frozenByRule: true });
  assert.equal(stretches.open.length, 2 * 8_760);
  assert.equal(stretches.frozen.length, 2 * 8_760);
  assert.deepEqual(stretches, fromSegments(ev, from, to));
  assert.deepEqual(
    frozenByRule,
    ev.segments(from, to, { byRule: true }).filter((s) => s.state === "frozen"),
  );
});

test("a month of one-minute intervals every two minutes across Berlin's clocks going back, and a window never open", () => {
  const berlin = new Evaluator([compileWindow("w", { timeZone: "Europe/Berlin", schedules: [{ start: "*/2 * * * *", duration: "1m" }] })]);
  const [from, to] = [at("2026-10-10T00:00:00Z"), at("2026-11-10T00:00:00Z")];
  assert.deepEqual(berlin.stretches(from, to), { ...fromSegments(berlin, from, to), frozenByRule: null });
  // Frozen all the time: nothing open, and the freeze's touching days one frozen stretch.
  const frozenAlways = new Evaluator([
    compileWindow("w", { schedules: [{ start: "0 8 * * *", duration: "1h" }], freezes: [{ start: "0 0 * * *", duration: "24h" }] }),
  ]);
  const week = [at("2026-06-01T00:00:00Z"), at("2026-06-08T00:00:00Z")] as const;
  assert.deepEqual(frozenAlways.stretches(...week), { open: [], frozen: fromSegments(frozenAlways, ...week).frozen, frozenByRule: null });
  assert.deepEqual(frozenAlways.stretches(...week).frozen, [...week]);
  assert.deepEqual(frozenAlways.stretches(week[1], week[0]), { open: [], frozen: [], frozenByRule: null });
  assert.deepEqual(frozenAlways.stretches(week[1], week[0], { frozenByRule: true }).frozenByRule, []);
});

test("runs that hold a change of the clocks: a day's run is cut where the hour repeats and spans the hour skipped, as the walk has it", () => {
  const HOUR = 3_600_000;
  const schedules = [
    { start: "* * * * *", duration: "1m" },
    { start: "*/15 * * * *", duration: "30m" },
    { start: "0 * * * *", duration: "90m" },
    { start: "*/10 1-3 * * *", duration: "10m" },
    { start: "30 2 * * *", duration: "26h" },
  ];
  let compared = 0;
  for (const [timeZone, change] of CLOCK_CHANGES) {
    for (const schedule of schedules) {
      const ev = new Evaluator([compileWindow("w", { timeZone, schedules: [schedule] })]);
      // Ranges that begin before, at and just after the change (where the repeated hour's walls have been shown), and end likewise.
      for (let k = -6; k <= 10; k++) {
        const from = change + (k * HOUR) / 4;
        for (const to of [from + HOUR / 2, from + 2 * HOUR, from + 2 * DAY]) {
          assert.deepEqual(
            ev.stretches(from, to),
            { ...fromSegments(ev, from, to), frozenByRule: null },
            `${timeZone} ${schedule.start} ${new Date(from).toISOString()}`,
          );
          compared++;
        }
      }
    }
  }
  assert.equal(compared, CLOCK_CHANGES.length * 5 * 17 * 3);
});

test("bounds within a millisecond and a range longer than ten years are answered as the walk answers them", () => {
  // The interval 60,000–90,000 ms reaches past a bound half a millisecond before its end.
  const halfSeconds = new Evaluator([compileWindow("w", { schedules: [{ start: "* * * * *", duration: "30s" }] })]);
  assert.deepEqual(halfSeconds.stretches(89_999.5, 200_000).open, [89_999.5, 90_000, 120_000, 150_000, 180_000, 200_000]);
  assert.deepEqual(halfSeconds.stretches(89_999.5, 200_000), { ...fromSegments(halfSeconds, 89_999.5, 200_000), frozenByRule: null });
  // Runs of 341 days that begin each year on a Monday the 1st of January: over sixteen years the walk follows a run no further than ten.
  const yearly = new Evaluator([compileWindow("w", { schedules: [{ start: "0 0 1 1 MON", duration: "8184h" }] })]);
  const [from, to] = [at("2030-01-01T00:00:00Z"), at("2046-01-01T00:00:00Z")];
  assert.deepEqual(yearly.stretches(from, to), { ...fromSegments(yearly, from, to), frozenByRule: null });
});
