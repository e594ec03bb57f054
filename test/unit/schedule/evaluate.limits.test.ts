// No limit of the evaluator changes an answer: a day-long date-line jump, a month of touching minutes, a year of a window that flips every other minute.

import assert from "node:assert/strict";
import { test } from "node:test";
import { compileWindow, Evaluator, MAX_SEGMENTS, ScheduleError } from "../../../src/schedule/index.ts";
import { at, iso } from "./helpers.ts";

test("Pacific/Apia's skipped 30 December 2011: */5 for 5m stays open across the date-line jump", () => {
  const evaluator = new Evaluator([compileWindow("w", { timeZone: "Pacific/Apia", schedules: [{ start: "*/5 * * * *", duration: "5m" }] })]);
  const open = evaluator.openIntervals(at("2011-12-29T00:00:00Z"), at("2012-01-01T00:00:00Z"));
  assert.deepEqual(
    open.map((i) => [iso(i.start), iso(i.end)]),
    [["2011-12-29T00:00:00Z", "2012-01-01T00:00:00Z"]],
  );
  for (const t of ["2011-12-29T12:00:00Z", "2011-12-30T09:59:00Z", "2011-12-30T10:00:00Z", "2011-12-30T10:03:00Z"])
    assert.equal(evaluator.stateAt(at(t)).state, "open", t);
});

test("a long run of touching one-minute intervals has its real end: until and the next transition are right", () => {
  const evaluator = new Evaluator([compileWindow("w", { schedules: [{ start: "* * 1-20 * *", duration: "1m" }] })]);
  const open = evaluator.openIntervals(at("2026-01-01T00:00:00Z"), at("2026-02-10T00:00:00Z"));
  assert.deepEqual(
    open.map((i) => [iso(i.start), iso(i.end)]),
    [
      ["2026-01-01T00:00:00Z", "2026-01-21T00:00:00Z"],
      ["2026-02-01T00:00:00Z", "2026-02-10T00:00:00Z"],
    ],
  );
  const d = evaluator.stateAt(at("2026-01-05T00:00:00Z"));
  assert.equal(iso(d.until), "2026-01-21T00:00:00Z");
  assert.deepEqual(
    evaluator.transitions(at("2026-01-05T00:00:00Z"), 2).map((t) => [iso(t.at), t.state]),
    [
      ["2026-01-21T00:00:00Z", "closed"],
      ["2026-02-01T00:00:00Z", "open"],
    ],
  );
});

test("a year of */2 for 1m is answered in full: 262,800 open intervals", () => {
  const evaluator = new Evaluator([compileWindow("w", { schedules: [{ start: "*/2 * * * *", duration: "1m" }] })]);
  assert.equal(evaluator.openIntervals(at("2026-01-01T00:00:00Z"), at("2027-01-01T00:00:00Z")).length, 262_800);
  const { open, frozen } = evaluator.stretches(at("2026-01-01T00:00:00Z"), at("2027-01-01T00:00:00Z"));
  assert.equal(open.length, 2 * 262_800);
  assert.deepEqual(open.slice(-2), [at("2026-12-31T23:58:00Z"), at("2026-12-31T23:59:00Z")]);
  assert.deepEqual(frozen, []);
});

test("more changes than one answer holds is an error that names the limit, never a shorter answer", () => {
  const evaluator = new Evaluator([compileWindow("w", { schedules: [{ start: "* * * * *", duration: "30s" }] })]);
  const tooMany = (e: unknown): boolean =>
    e instanceof ScheduleError &&
    e.message.includes(`more than ${MAX_SEGMENTS.toLocaleString("en-US")} changes of state`) &&
    e.message.includes("shorter range");
  assert.throws(() => evaluator.segments(at("2026-01-01T00:00:00Z"), at("2027-06-01T00:00:00Z")), tooMany);
  // The open and frozen stretches, computed a layer at a time, count the closed segments between them too.
  assert.throws(() => evaluator.stretches(at("2026-01-01T00:00:00Z"), at("2027-06-01T00:00:00Z")), tooMany);
  // At the limit: 550,000 open intervals and the 549,999 closed between them (the last open one ends with the range) are
  // answered in full, by both; one more open interval and its closed one before it are over the limit, for both.
  const from = at("2026-01-01T00:00:00Z");
  const within = from + 549_999 * 60_000 + 30_000;
  assert.equal(evaluator.segments(from, within).length, 1_099_999);
  assert.equal(evaluator.stretches(from, within).open.length, 2 * 550_000);
  assert.throws(() => evaluator.stretches(from, within + 60_000), tooMany);
  assert.throws(() => evaluator.segments(from, within + 60_000), tooMany);
});

test("a freeze inside a schedule's run is no closed segment: near the limit, stretches count only the changes there are", () => {
  // Open all the time, frozen the first 30 s of every minute: 1,098,000 changes of state in 549,000 minutes, none closed.
  const evaluator = new Evaluator([
    compileWindow("w", { schedules: [{ start: "* * * * *", duration: "1m" }], freezes: [{ start: "* * * * *", duration: "30s" }] }),
  ]);
  const from = at("2026-01-01T00:00:00Z");
  const { open, frozen } = evaluator.stretches(from, from + 549_000 * 60_000);
  assert.equal(open.length, 2 * 549_000);
  assert.equal(frozen.length, 2 * 549_000);
  assert.deepEqual([frozen[0], frozen[1], open[0], open[1]], [from, from + 30_000, from + 30_000, from + 60_000]);
});

test("an end schedule whose intervals all touch is followed an end-only minute at a time, and an endless one reported endless", () => {
  const touching = new Evaluator([compileWindow("w", { schedules: [{ start: "* * * * *", end: "*/5 * * * *" }] })]);
  const d = touching.stateAt(at("2026-01-10T12:02:00Z"));
  assert.equal(d.state, "open");
  assert.equal(d.until, null, "every end minute is also a start minute: the run never ends");
  const weekdays = new Evaluator([compileWindow("w", { schedules: [{ start: "* * * * MON-FRI", end: "0 0 * * *" }] })]);
  const w = weekdays.stateAt(at("2026-01-07T12:00:00Z")); // a Wednesday
  assert.equal(iso(w.since), "2026-01-05T00:00:00Z");
  assert.equal(iso(w.until), "2026-01-10T00:00:00Z");
});
