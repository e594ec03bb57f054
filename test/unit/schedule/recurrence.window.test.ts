// Recurrence entries in the evaluator: the same states, transitions and merged intervals as cron entries, and RFC 5545's reading of local times.

import assert from "node:assert/strict";
import { test } from "node:test";
import { compileWindow, Evaluator } from "../../../src/schedule/index.ts";
import { at, iso, openIntervals } from "./helpers.ts";

test("the second Sunday of each month 02:00-06:00 in Berlin, by duration and by endAt", () => {
  const expected = ["2026-11-08T01:00:00Z/2026-11-08T05:00:00Z", "2026-12-13T01:00:00Z/2026-12-13T05:00:00Z"];
  const from = "2026-11-01T00:00:00Z";
  const to = "2027-01-01T00:00:00Z";
  assert.deepEqual(
    openIntervals({ timeZone: "Europe/Berlin", schedules: [{ recurrence: "FREQ=MONTHLY;BYDAY=2SU", at: "02:00", duration: "4h" }] }, from, to),
    expected,
  );
  assert.deepEqual(
    openIntervals({ timeZone: "Europe/Berlin", schedules: [{ recurrence: "FREQ=MONTHLY;BYDAY=2SU", at: "02:00", endAt: "06:00" }] }, from, to),
    expected,
  );
});

test("the last Friday of each month, and every other Tuesday from a first date", () => {
  assert.deepEqual(
    openIntervals({ schedules: [{ recurrence: "FREQ=MONTHLY;BYDAY=-1FR", at: "18:00", duration: "2h" }] }, "2026-01-01T00:00:00Z", "2026-04-01T00:00:00Z"),
    ["2026-01-30T18:00:00Z/2026-01-30T20:00:00Z", "2026-02-27T18:00:00Z/2026-02-27T20:00:00Z", "2026-03-27T18:00:00Z/2026-03-27T20:00:00Z"],
  );
  assert.deepEqual(
    openIntervals(
      { schedules: [{ recurrence: "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU", at: "09:00", duration: "1h", dtstart: "2026-01-06" }] },
      "2026-01-01T00:00:00Z",
      "2026-02-10T00:00:00Z",
    ),
    ["2026-01-06T09:00:00Z/2026-01-06T10:00:00Z", "2026-01-20T09:00:00Z/2026-01-20T10:00:00Z", "2026-02-03T09:00:00Z/2026-02-03T10:00:00Z"],
  );
});

test("endAt before at runs to the next day; touching and overlapping occurrences merge (half-open)", () => {
  // 22:00 to 06:00 every day: each night is one interval.
  assert.deepEqual(openIntervals({ schedules: [{ recurrence: "FREQ=DAILY", at: "22:00", endAt: "06:00" }] }, "2026-06-01T00:00:00Z", "2026-06-02T12:00:00Z"), [
    "2026-06-01T00:00:00Z/2026-06-01T06:00:00Z",
    "2026-06-01T22:00:00Z/2026-06-02T06:00:00Z",
  ]);
  // 24h every day touches the next: always open.
  assert.deepEqual(openIntervals({ schedules: [{ recurrence: "FREQ=DAILY", at: "00:00", duration: "24h" }] }, "2026-06-01T00:00:00Z", "2026-06-05T00:00:00Z"), [
    "2026-06-01T00:00:00Z/2026-06-05T00:00:00Z",
  ]);
  // Two weekdays of 36h overlap: Monday 00:00 to Wednesday 12:00.
  assert.deepEqual(
    openIntervals({ schedules: [{ recurrence: "FREQ=WEEKLY;BYDAY=MO,TU", at: "00:00", duration: "36h" }] }, "2026-06-01T00:00:00Z", "2026-06-07T00:00:00Z"),
    ["2026-06-01T00:00:00Z/2026-06-03T12:00:00Z"],
  );
});

test("a recurrence freeze beats a cron allow; state, since and until are those of the merged run", () => {
  const ev = new Evaluator([
    compileWindow("w", {
      schedules: [{ start: "0 0 * * *", duration: "24h" }],
      freezes: [{ recurrence: "FREQ=MONTHLY;BYDAY=-1FR", at: "00:00", duration: "72h", reason: "month end" }],
    }),
  ]);
  const d = ev.stateAt(at("2026-01-31T12:00:00Z"));
  assert.equal(d.state, "frozen");
  assert.equal(d.cause?.label, "FREQ=MONTHLY;BYDAY=-1FR at 00:00 → +72h");
  assert.equal(d.cause?.reason, "month end");
  assert.equal(iso(d.since), "2026-01-30T00:00:00Z");
  assert.equal(iso(d.until), "2026-02-02T00:00:00Z");
  const next = ev.transitions(at("2026-02-01T00:00:00Z"), 2).map((t) => `${iso(t.at)} ${t.state}`);
  assert.deepEqual(next, ["2026-02-02T00:00:00Z open", "2026-02-27T00:00:00Z frozen"]);
});

test("COUNT, UNTIL and exdates end or thin the starts; a rule that has ended leaves the window closed", () => {
  assert.deepEqual(
    openIntervals(
      { schedules: [{ recurrence: "FREQ=DAILY;COUNT=3", at: "10:00", duration: "1h", dtstart: "2026-06-01", exdates: ["2026-06-02"] }] },
      "2026-05-01T00:00:00Z",
      "2026-07-01T00:00:00Z",
    ),
    ["2026-06-01T10:00:00Z/2026-06-01T11:00:00Z", "2026-06-03T10:00:00Z/2026-06-03T11:00:00Z"],
  );
  assert.deepEqual(
    openIntervals(
      { schedules: [{ recurrence: "FREQ=DAILY;UNTIL=20260603T100000Z", at: "10:00", duration: "1h", exdates: ["2026-06-01T10:00"] }] },
      "2026-05-31T00:00:00Z",
      "2026-07-01T00:00:00Z",
    ),
    ["2026-05-31T10:00:00Z/2026-05-31T11:00:00Z", "2026-06-02T10:00:00Z/2026-06-02T11:00:00Z", "2026-06-03T10:00:00Z/2026-06-03T11:00:00Z"],
  );
  const ev = new Evaluator([compileWindow("w", { schedules: [{ recurrence: "FREQ=DAILY;COUNT=2", at: "10:00", duration: "1h", dtstart: "2026-06-01" }] })]);
  const d = ev.stateAt(at("2027-01-01T00:00:00Z"));
  assert.equal(d.state, "closed");
  assert.equal(d.until, null);
  assert.equal(iso(d.since), "2026-06-02T11:00:00Z");
});

test("DST: a start in a gap is read with the offset before it (RFC 5545 §3.3.5), unlike cron; a repeated time is its first instant", () => {
  // New York skips 02:00-03:00 on 8 March 2026: 02:30 is 03:30 EDT (07:30Z); cron's 02:30 happens at 03:00 EDT (07:00Z).
  const gap = { timeZone: "America/New_York", schedules: [{ recurrence: "FREQ=YEARLY;BYMONTH=3;BYDAY=2SU", at: "02:30", duration: "1h" }] };
  assert.deepEqual(openIntervals(gap, "2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z"), ["2026-03-08T07:30:00Z/2026-03-08T08:30:00Z"]);
  const cron = { timeZone: "America/New_York", schedules: [{ start: "30 2 8 3 *", duration: "1h" }] };
  assert.deepEqual(openIntervals(cron, "2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z"), ["2026-03-08T07:00:00Z/2026-03-08T08:00:00Z"]);
  // 01:30 on 1 November 2026 happens twice: the first (EDT, 05:30Z); duration is elapsed time.
  const repeat = { timeZone: "America/New_York", schedules: [{ recurrence: "FREQ=YEARLY;BYMONTH=11;BYDAY=1SU", at: "01:30", duration: "2h" }] };
  assert.deepEqual(openIntervals(repeat, "2026-10-01T00:00:00Z", "2026-12-01T00:00:00Z"), ["2026-11-01T05:30:00Z/2026-11-01T07:30:00Z"]);
  // endAt is wall-clock: 01:00 to 03:00 on that day lasts three hours.
  const wall = { timeZone: "America/New_York", schedules: [{ recurrence: "FREQ=YEARLY;BYMONTH=11;BYDAY=1SU", at: "01:00", endAt: "03:00" }] };
  assert.deepEqual(openIntervals(wall, "2026-10-01T00:00:00Z", "2026-12-01T00:00:00Z"), ["2026-11-01T05:00:00Z/2026-11-01T08:00:00Z"]);
});

test("a year of a daily recurrence previews as fast as cron's", () => {
  const ev = new Evaluator([compileWindow("w", { timeZone: "Europe/Berlin", schedules: [{ recurrence: "FREQ=DAILY", at: "22:00", duration: "2h" }] })]);
  const t0 = performance.now();
  const segments = ev.segments(at("2026-01-01T00:00:00Z"), at("2027-01-01T00:00:00Z"));
  const ms = performance.now() - t0;
  assert.equal(segments.filter((s) => s.state === "open").length, 365);
  assert.ok(ms < 500, `took ${ms} ms`);
});

test("a large INTERVAL is as quick to compile and evaluate as a small one", { timeout: 10_000 }, () => {
  const t0 = performance.now();
  const w = compileWindow("w", { schedules: [{ recurrence: "FREQ=DAILY;INTERVAL=100000", at: "02:00", duration: "1h", dtstart: "2026-01-01" }] });
  const ev = new Evaluator([w]);
  const d = ev.stateAt(at("2027-01-01T00:00:00Z"));
  assert.equal(d.state, "closed");
  assert.equal(iso(d.since), "2026-01-01T03:00:00Z");
  // Every 100,000 days: 2299, 2573, 2847.
  const next = ev
    .transitions(at("2027-01-01T00:00:00Z"), 6)
    .filter((t) => t.state === "open")
    .map((t) => iso(t.at)?.slice(0, 10));
  assert.deepEqual(next, ["2299-10-17", "2573-08-01", "2847-05-17"]);
  assert.ok(performance.now() - t0 < 1000, `took ${performance.now() - t0} ms`);
});
