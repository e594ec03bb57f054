// DST in Europe/Berlin (CET/CEST): spring forward on the last Sunday of March at 01:00Z,
// fall back on the last Sunday of October at 01:00Z. Expected instants worked out by hand.

import assert from "node:assert/strict";
import { test } from "node:test";
import { nextOccurrences, openIntervals } from "./helpers.ts";

const TZ = "Europe/Berlin";

test("an occurrence in the spring-forward gap happens at the first instant after it (2026)", () => {
  // 02:30 does not exist on 2026-03-29; 03:00 CEST = 01:00Z.
  assert.deepEqual(nextOccurrences("30 2 * * *", TZ, "2026-03-27T12:00:00Z", 3), [
    "2026-03-28T01:30:00Z", // 02:30 CET
    "2026-03-29T01:00:00Z", // gap -> 03:00 CEST
    "2026-03-30T00:30:00Z", // 02:30 CEST
  ]);
});

test("a weekly window in the gap is never lost (2027)", () => {
  // Sunday 2027-03-28 02:15 is skipped: the window opens at 03:00 CEST and lasts its full hour.
  assert.deepEqual(openIntervals({ timeZone: TZ, schedules: [{ start: "15 2 * * SUN", duration: "1h" }] }, "2027-03-21T00:00:00Z", "2027-04-05T00:00:00Z"), [
    "2027-03-21T01:15:00Z/2027-03-21T02:15:00Z",
    "2027-03-28T01:00:00Z/2027-03-28T02:00:00Z",
    "2027-04-04T00:15:00Z/2027-04-04T01:15:00Z",
  ]);
});

test("several skipped minutes that land on the same instant happen once", () => {
  assert.deepEqual(nextOccurrences("*/20 2 * * *", TZ, "2026-03-28T23:00:00Z", 3), [
    "2026-03-29T01:00:00Z", // 02:00, 02:20, 02:40 all resolve to 03:00 CEST
    "2026-03-30T00:00:00Z", // 02:00 CEST next day
    "2026-03-30T00:20:00Z",
  ]);
});

test("an occurrence in the repeated fall-back hour happens once, at its first instant (2026)", () => {
  // 02:30 happens at 02:30 CEST = 00:30Z, not again at 02:30 CET = 01:30Z.
  assert.deepEqual(nextOccurrences("30 2 * * *", TZ, "2026-10-24T12:00:00Z", 3), ["2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z", "2026-10-27T01:30:00Z"]);
});

test("wildcard schedules do not run twice in the repeated hour (2027)", () => {
  // 2027-10-31: 02:00-02:59 repeats (CEST 00:00-00:59Z, CET 01:00-01:59Z).
  assert.deepEqual(nextOccurrences("*/30 * * * *", TZ, "2027-10-30T23:15:00Z", 6), [
    "2027-10-30T23:30:00Z", // 01:30 CEST
    "2027-10-31T00:00:00Z", // 02:00 CEST
    "2027-10-31T00:30:00Z", // 02:30 CEST
    "2027-10-31T02:00:00Z", // 03:00 CET (02:00 and 02:30 CET already happened)
    "2027-10-31T02:30:00Z",
    "2027-10-31T03:00:00Z",
  ]);
});

test("duration is elapsed time; end is wall-clock (spring 2026)", () => {
  // Start Sunday 00:00 CET = Saturday 23:00Z. Six elapsed hours end at 05:00Z (07:00 CEST);
  // the wall-clock end 06:00 CEST is 04:00Z, five hours later.
  assert.deepEqual(openIntervals({ timeZone: TZ, schedules: [{ start: "0 0 * * SUN", duration: "6h" }] }, "2026-03-28T00:00:00Z", "2026-03-30T00:00:00Z"), [
    "2026-03-28T23:00:00Z/2026-03-29T05:00:00Z",
  ]);
  assert.deepEqual(openIntervals({ timeZone: TZ, schedules: [{ start: "0 0 * * SUN", end: "0 6 * * SUN" }] }, "2026-03-28T00:00:00Z", "2026-03-30T00:00:00Z"), [
    "2026-03-28T23:00:00Z/2026-03-29T04:00:00Z",
  ]);
});

test("duration is elapsed time; end is wall-clock (fall 2026)", () => {
  // Start Sunday 00:00 CEST = Saturday 22:00Z. 6h -> 04:00Z (05:00 CET); end 06:00 CET = 05:00Z (7h).
  assert.deepEqual(openIntervals({ timeZone: TZ, schedules: [{ start: "0 0 * * SUN", duration: "6h" }] }, "2026-10-24T00:00:00Z", "2026-10-26T00:00:00Z"), [
    "2026-10-24T22:00:00Z/2026-10-25T04:00:00Z",
  ]);
  assert.deepEqual(openIntervals({ timeZone: TZ, schedules: [{ start: "0 0 * * SUN", end: "0 6 * * SUN" }] }, "2026-10-24T00:00:00Z", "2026-10-26T00:00:00Z"), [
    "2026-10-24T22:00:00Z/2026-10-25T05:00:00Z",
  ]);
});

test("a Monday-to-Thursday window spans the spring change at its local hours", () => {
  // 2026-03-23 Mon 08:00 CET = 07:00Z ... Thu 03-26 17:00 CET = 16:00Z;
  // 2026-03-30 Mon 08:00 CEST = 06:00Z ... Thu 04-02 17:00 CEST = 15:00Z.
  assert.deepEqual(
    openIntervals({ timeZone: TZ, schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }] }, "2026-03-22T00:00:00Z", "2026-04-05T00:00:00Z"),
    ["2026-03-23T07:00:00Z/2026-03-26T16:00:00Z", "2026-03-30T06:00:00Z/2026-04-02T15:00:00Z"],
  );
});

test("an absolute freeze is read in the window's zone, or at an explicit offset", () => {
  const schedules = [{ start: "0 0 * * *", duration: "24h" }];
  // 2026-12-20T00:00 Berlin = 2026-12-19T23:00Z; 2027-01-05T00:00 Berlin = 2027-01-04T23:00Z.
  assert.deepEqual(
    openIntervals(
      { timeZone: TZ, schedules, freezes: [{ from: "2026-12-20T00:00", to: "2027-01-05T00:00", reason: "Holiday freeze" }] },
      "2026-12-19T00:00:00Z",
      "2027-01-06T00:00:00Z",
    ),
    ["2026-12-19T00:00:00Z/2026-12-19T23:00:00Z", "2027-01-04T23:00:00Z/2027-01-06T00:00:00Z"],
  );
  assert.deepEqual(
    openIntervals(
      { timeZone: TZ, schedules, freezes: [{ from: "2026-12-20T00:00Z", to: "2026-12-21T00:00+00:00" }] },
      "2026-12-19T00:00:00Z",
      "2026-12-22T00:00:00Z",
    ),
    ["2026-12-19T00:00:00Z/2026-12-20T00:00:00Z", "2026-12-21T00:00:00Z/2026-12-22T00:00:00Z"],
  );
});

test("an absolute time in the gap resolves to the first instant after it", () => {
  // 2026-03-29T02:30 does not exist in Berlin: the freeze starts at 03:00 CEST = 01:00Z.
  assert.deepEqual(
    openIntervals(
      { timeZone: TZ, schedules: [{ start: "0 0 * * *", duration: "24h" }], freezes: [{ from: "2026-03-29T02:30", to: "2026-03-29T04:00" }] },
      "2026-03-29T00:00:00Z",
      "2026-03-29T03:00:00Z",
    ),
    ["2026-03-29T00:00:00Z/2026-03-29T01:00:00Z", "2026-03-29T02:00:00Z/2026-03-29T03:00:00Z"],
  );
});
