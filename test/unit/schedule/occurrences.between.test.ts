// Occurrences.between (every occurrence of a range at once, a day's minutes at a time) against `after` asked one by
// one, on ranges that begin and end anywhere near the clocks' changes: gaps, repeated hours, Lord Howe's half hour,
// Santiago's changes at midnight, Samoa's day that never was.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { Occurrences, parseCron, zoneRules } from "../../../src/schedule/index.ts";
import { cronExpression } from "./arbitraries.ts";
import { at, CLOCK_CHANGES } from "./helpers.ts";

const HOUR = 3_600_000;
const DAY = 86_400_000;

const cron = fc.oneof(cronExpression(), fc.constantFrom("* * * * *", "*/2 * * * *", "30 2 * * *", "*/5 1-3 * * *", "0,30 * * * *"));

/** What `after` answers from just before `lo`, one by one, up to `hi`. */
function oneByOne(occurrences: Occurrences, lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let t = occurrences.after(lo - 1); t !== null && t < hi; t = occurrences.after(t)) out.push(t);
  return out;
}

test("between finds what after finds one by one, on ranges that begin and end in or beside a change of the clocks", () => {
  fc.assert(
    fc.property(
      cron,
      fc.constantFrom(...CLOCK_CHANGES),
      fc.integer({ min: -3 * HOUR, max: 3 * HOUR }),
      fc.integer({ min: 0, max: 2 * DAY }),
      (expression, [zone, change], offset, length) => {
        const schedule = parseCron(expression);
        const lo = change + offset;
        const hi = lo + length;
        const found = new Occurrences(schedule, zoneRules(zone)).between(lo, hi);
        assert.deepEqual(found, oneByOne(new Occurrences(schedule, zoneRules(zone)), lo, hi));
      },
    ),
    { seed: 20261130, numRuns: 600 },
  );
});

test("between: the skipped minutes of a gap that resolve to one instant are one occurrence; the repeated hour fires once", () => {
  const berlin = zoneRules("Europe/Berlin");
  // 02:00–02:59 are skipped on 29 March: all sixty resolve to 01:00Z (03:00 CEST), which is also when 03:00 fires.
  const spring = new Occurrences(parseCron("* 2-3 * * *"), berlin).between(at("2026-03-29T00:30:00Z"), at("2026-03-29T01:03:00Z"));
  assert.deepEqual(spring, [at("2026-03-29T01:00:00Z"), at("2026-03-29T01:01:00Z"), at("2026-03-29T01:02:00Z")]);
  // 02:30 on 25 October happens twice (00:30Z and 01:30Z): it fires at the first.
  const autumn = new Occurrences(parseCron("30 2 * * *"), berlin).between(at("2026-10-24T12:00:00Z"), at("2026-10-25T12:00:00Z"));
  assert.deepEqual(autumn, [at("2026-10-25T00:30:00Z")]);
  // An empty range, and one with nothing in it.
  assert.deepEqual(new Occurrences(parseCron("0 12 * * *"), berlin).between(at("2026-03-29T12:00:00Z"), at("2026-03-29T12:00:00Z")), []);
  assert.deepEqual(new Occurrences(parseCron("0 12 * * *"), berlin).between(at("2026-03-29T11:00:00Z"), at("2026-03-29T12:00:00Z")), []);
});

test("between answers null where the range reaches walls the searches do not (the evaluator then follows the runs one by one)", () => {
  const edge = 8.64e15;
  assert.equal(new Occurrences(parseCron("* * * * *"), zoneRules("UTC")).between(edge - DAY, edge), null);
});
