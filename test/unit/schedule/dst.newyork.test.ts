// DST in America/New_York (EST/EDT): spring forward on the second Sunday of March at 07:00Z
// (02:00 EST -> 03:00 EDT), fall back on the first Sunday of November at 06:00Z
// (02:00 EDT -> 01:00 EST, so 01:00-01:59 repeats). Expected instants worked out by hand.

import assert from "node:assert/strict";
import { test } from "node:test";
import { nextOccurrences, openIntervals } from "./helpers.ts";

const TZ = "America/New_York";

test("hourly schedule across the spring gap (2026-03-08): 02:00 becomes 03:00, once", () => {
  assert.deepEqual(nextOccurrences("0 * * * *", TZ, "2026-03-08T05:30:00Z", 3), [
    "2026-03-08T06:00:00Z", // 01:00 EST
    "2026-03-08T07:00:00Z", // 02:00 (gap) and 03:00 EDT are one instant
    "2026-03-08T08:00:00Z", // 04:00 EDT
  ]);
});

test("half-past schedule in the spring gap (2027-03-14) fires at the end of the gap", () => {
  assert.deepEqual(nextOccurrences("30 2 * * *", TZ, "2027-03-13T00:00:00Z", 3), [
    "2027-03-13T07:30:00Z", // 02:30 EST
    "2027-03-14T07:00:00Z", // gap -> 03:00 EDT
    "2027-03-15T06:30:00Z", // 02:30 EDT
  ]);
});

test("hourly schedule across the fall-back hour (2026-11-01) runs 01:00 once", () => {
  assert.deepEqual(nextOccurrences("0 * * * *", TZ, "2026-11-01T03:30:00Z", 3), [
    "2026-11-01T04:00:00Z", // 00:00 EDT
    "2026-11-01T05:00:00Z", // 01:00 EDT (not again at 01:00 EST = 06:00Z)
    "2026-11-01T07:00:00Z", // 02:00 EST
  ]);
});

test("fixed time in the repeated hour (2027-11-07) happens at its first instant", () => {
  assert.deepEqual(nextOccurrences("30 1 * * *", TZ, "2027-11-06T00:00:00Z", 3), [
    "2027-11-06T05:30:00Z", // 01:30 EDT
    "2027-11-07T05:30:00Z", // 01:30 EDT (first of two)
    "2027-11-08T06:30:00Z", // 01:30 EST
  ]);
});

test("an overnight window over the spring change: duration vs end", () => {
  // Saturday 2026-03-07 22:00 EST = 03-08T03:00Z. 8h elapsed -> 11:00Z (07:00 EDT).
  // End "0 6 * * SUN" = 06:00 EDT = 10:00Z.
  assert.deepEqual(openIntervals({ timeZone: TZ, schedules: [{ start: "0 22 * * SAT", duration: "8h" }] }, "2026-03-07T00:00:00Z", "2026-03-09T00:00:00Z"), [
    "2026-03-08T03:00:00Z/2026-03-08T11:00:00Z",
  ]);
  assert.deepEqual(
    openIntervals({ timeZone: TZ, schedules: [{ start: "0 22 * * SAT", end: "0 6 * * SUN" }] }, "2026-03-07T00:00:00Z", "2026-03-09T00:00:00Z"),
    ["2026-03-08T03:00:00Z/2026-03-08T10:00:00Z"],
  );
});

test("an overnight window over the fall change: 2h elapsed vs wall-clock end", () => {
  // Sunday 2026-11-01 00:30 EDT = 04:30Z. 2h elapsed -> 06:30Z (01:30 EST).
  // End "30 2 * * SUN": 02:30 EST = 07:30Z, three hours after the start.
  assert.deepEqual(openIntervals({ timeZone: TZ, schedules: [{ start: "30 0 * * SUN", duration: "2h" }] }, "2026-10-31T00:00:00Z", "2026-11-02T00:00:00Z"), [
    "2026-11-01T04:30:00Z/2026-11-01T06:30:00Z",
  ]);
  assert.deepEqual(
    openIntervals({ timeZone: TZ, schedules: [{ start: "30 0 * * SUN", end: "30 2 * * SUN" }] }, "2026-10-31T00:00:00Z", "2026-11-02T00:00:00Z"),
    ["2026-11-01T04:30:00Z/2026-11-01T07:30:00Z"],
  );
});

test("an absolute freeze in New York local time", () => {
  // Thanksgiving freeze 2026-11-26T00:00 EST = 05:00Z to 2026-11-27T00:00 EST = 11-27T05:00Z.
  assert.deepEqual(
    openIntervals(
      { timeZone: TZ, schedules: [{ start: "0 9 * * *", duration: "8h" }], freezes: [{ from: "2026-11-26T00:00", to: "2026-11-27T00:00" }] },
      "2026-11-25T00:00:00Z",
      "2026-11-28T00:00:00Z",
    ),
    ["2026-11-25T14:00:00Z/2026-11-25T22:00:00Z", "2026-11-27T14:00:00Z/2026-11-27T22:00:00Z"],
  );
});
