// Fuzzing the evaluator: for any compiled windows, overrides (backwards, empty, huge) and instant (to the edges of a Date), a well-formed decision and
// well-formed lists, never an error.

import assert from "node:assert/strict";
import fc from "fast-check";
import { compileWindow, Evaluator, ScheduleError, type CompiledWindow, type OverrideInput, type WindowTiming } from "../../../src/schedule/index.ts";
import { fuzz } from "./harness.ts";
import { dateTimeText, durationText, instant, validCronText, zoneText } from "./inputs.ts";

const DAY = 86_400_000;

/** Mostly what a window holds, now and then anything near it. */
const mostly = <T>(good: fc.Arbitrary<T>, near: fc.Arbitrary<T>): fc.Arbitrary<T> => fc.oneof({ weight: 8, arbitrary: good }, { weight: 1, arbitrary: near });
const zone = mostly(
  fc.constantFrom(
    "UTC",
    "Europe/Berlin",
    "America/New_York",
    "Australia/Lord_Howe",
    "Asia/Kolkata",
    "Pacific/Chatham",
    "America/Sao_Paulo",
    "Africa/Casablanca",
  ),
  zoneText,
);
const duration = mostly(
  fc.oneof(
    fc.integer({ min: 1, max: 600 }).map((n) => `${n}m`),
    fc.integer({ min: 1, max: 200 }).map((n) => `${n}h`),
  ),
  durationText,
);
const localTime = mostly(
  fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2060, 0, 1) }).map((t) => new Date(t).toISOString().slice(0, 16)),
  dateTimeText,
);

const timing: fc.Arbitrary<WindowTiming> = fc.record({
  timeZone: zone,
  schedules: fc.array(fc.oneof(fc.record({ start: validCronText, end: validCronText }), fc.record({ start: validCronText, duration })), { maxLength: 3 }),
  freezes: fc.array(fc.oneof(fc.record({ start: validCronText, duration }), fc.record({ from: localTime, to: localTime })), { maxLength: 2 }),
});

/** Windows as the engine compiles them; a timing it refuses is left out (the window fuzz covers refusals). */
const windows: fc.Arbitrary<CompiledWindow[]> = fc.array(timing, { minLength: 0, maxLength: 3 }).map((ts) =>
  ts.flatMap((t, i) => {
    try {
      return [compileWindow(`w${i}`, t)];
    } catch (e) {
      if (!(e instanceof ScheduleError)) throw e;
      return [];
    }
  }),
);

const overrides: fc.Arbitrary<OverrideInput[]> = fc.array(
  fc.record({
    name: fc.string(),
    window: fc.constantFrom("w0", "w1", "other"),
    action: fc.constantFrom("Open" as const, "Freeze" as const),
    start: instant,
    end: fc.oneof(instant, fc.constantFrom(Number.MAX_SAFE_INTEGER, 8.64e15)),
    reason: fc.string(),
  }),
  { maxLength: 3 },
);

fuzz(import.meta.url, {
  "state at any instant: one of open, closed, frozen, holding from since (at or before) until until (after)": {
    arbitrary: fc.tuple(windows, overrides, instant),
    numRuns: 500,
    check: ([ws, os, t]: [CompiledWindow[], OverrideInput[], number]) => {
      const d = new Evaluator(ws, os).stateAt(t);
      assert.ok(["open", "closed", "frozen"].includes(d.state), d.state);
      if (d.since !== null) assert.ok(Number.isFinite(d.since) && d.since <= t, `since ${d.since} > ${t}`);
      if (d.until !== null) assert.ok(Number.isFinite(d.until) && d.until > t, `until ${d.until} <= ${t}`);
      assert.equal(d.state === "closed", d.cause === null, "a cause exactly when not closed");
      if (d.overridden) assert.ok(d.cause?.kind === "override-open" || d.cause?.kind === "override-freeze");
    },
  },

  "transitions: strictly increasing, each a change, at most as many as asked": {
    arbitrary: fc.tuple(windows, overrides, instant, fc.integer({ min: 0, max: 12 })),
    numRuns: 300,
    check: ([ws, os, from, count]: [CompiledWindow[], OverrideInput[], number, number]) => {
      const ev = new Evaluator(ws, os);
      const list = ev.transitions(from, count);
      assert.ok(list.length <= count);
      let previous = from;
      for (const tr of list) {
        assert.ok(Number.isFinite(tr.at) && tr.at > previous, `transition at ${tr.at} after ${previous}`);
        previous = tr.at;
      }
    },
  },

  "segments and open intervals of a range: contiguous, ordered, within it": {
    arbitrary: fc.tuple(windows, overrides, instant, fc.integer({ min: 0, max: 10 * DAY })),
    numRuns: 300,
    check: ([ws, os, from, length]: [CompiledWindow[], OverrideInput[], number, number]) => {
      const to = from + length;
      const ev = new Evaluator(ws, os);
      const segments = ev.segments(from, to);
      let at = from;
      for (const s of segments) {
        assert.equal(s.start, at, "segments are contiguous");
        assert.ok(s.end > s.start && s.end <= to, `segment [${s.start}, ${s.end}) within [${from}, ${to})`);
        at = s.end;
      }
      if (length > 0 && Math.abs(from) < 8e15) assert.equal(at, to, "segments cover the range");
      let end = -Infinity;
      for (const iv of ev.openIntervals(from, to)) {
        assert.ok(iv.start > end && iv.end > iv.start && iv.start >= from && iv.end <= to);
        end = iv.end;
      }
    },
  },
});
