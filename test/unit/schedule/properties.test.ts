// Properties of the engine on random windows: interval shape, agreement of state and intervals,
// increasing transitions; and the calendar walk cross-checked against croner in UTC.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Cron } from "croner";
import fc from "fast-check";
import { compileWindow, Evaluator, nextWall, parseCron, prevWall, type WindowTiming } from "../../../src/schedule/index.ts";
import { cronExpression } from "./arbitraries.ts";

const ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "America/Sao_Paulo"];
const DAY = 86_400_000;
const SEED = 20261122;

const cronExpr = cronExpression();

const timing: fc.Arbitrary<WindowTiming> = fc.record({
  timeZone: fc.constantFrom(...ZONES),
  schedules: fc.array(
    fc.oneof(fc.record({ start: cronExpr, duration: fc.constantFrom("1m", "30m", "90m", "2h", "26h") }), fc.record({ start: cronExpr, end: cronExpr })),
    { minLength: 1, maxLength: 3 },
  ),
  freezes: fc.array(fc.record({ start: cronExpr, duration: fc.constantFrom("15m", "1h", "5h") }), { maxLength: 2 }),
});

const rangeStart = fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 11, 20) }).map((t) => Math.floor(t / 60_000) * 60_000);

test("open intervals are sorted, disjoint, non-empty and within the range; state agrees with them", () => {
  fc.assert(
    fc.property(timing, rangeStart, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 5, maxLength: 5 }), (spec, from, probes) => {
      const to = from + 3 * DAY;
      const ev = new Evaluator([compileWindow("w", spec)]);
      const open = ev.openIntervals(from, to);
      for (let i = 0; i < open.length; i++) {
        const iv = open[i]!;
        assert.ok(iv.start < iv.end, "non-empty");
        assert.ok(iv.start >= from && iv.end <= to, "within range");
        if (i > 0) assert.ok(open[i - 1]!.end < iv.start, "sorted and disjoint, merged when touching");
      }
      const edges = open.flatMap((iv) => [iv.start, iv.end - 1, iv.end]);
      for (const t of [...edges, ...probes.map((p) => from + Math.floor(p * (to - from)))]) {
        if (t < from || t >= to) continue;
        const inside = open.some((iv) => iv.start <= t && t < iv.end);
        assert.equal(ev.stateAt(t).state === "open", inside, `state at ${new Date(t).toISOString()}`);
      }
    }),
    { seed: SEED, numRuns: 150 },
  );
});

test("transitions strictly increase, change the state, and match the state just before and at each", () => {
  fc.assert(
    fc.property(timing, rangeStart, (spec, from) => {
      const ev = new Evaluator([compileWindow("w", spec)]);
      const transitions = ev.transitions(from, 8);
      let prev = from;
      let prevState = ev.stateAt(from);
      for (const tr of transitions) {
        assert.ok(tr.at > prev, "strictly increasing");
        const before = ev.stateAt(tr.at - 1);
        const now = ev.stateAt(tr.at);
        assert.equal(now.state, tr.state);
        assert.notDeepEqual([before.state, before.overridden, before.cause?.kind], [now.state, now.overridden, now.cause?.kind]);
        assert.equal(before.until, tr.at);
        assert.equal(prevState.until, tr.at);
        prev = tr.at;
        prevState = now;
      }
    }),
    { seed: SEED, numRuns: 100 },
  );
});

test("the wall-clock walk agrees with croner (in UTC, where wall clock and instants coincide)", () => {
  fc.assert(
    fc.property(cronExpr, rangeStart, (expr, from) => {
      const ours = parseCron(expr);
      const theirs = new Cron(expr, { timezone: "UTC", mode: "5-part", domAndDow: false });
      const next = theirs.nextRun(new Date(from));
      assert.equal(nextWall(ours, from + 1), next?.getTime() ?? null, `next of ${expr} after ${new Date(from).toISOString()}`);
      const prev = theirs.previousRuns(1, new Date(from))[0];
      assert.equal(prevWall(ours, from - 1), prev?.getTime() ?? null, `previous of ${expr} before ${new Date(from).toISOString()}`);
    }),
    { seed: SEED, numRuns: 500 },
  );
});
