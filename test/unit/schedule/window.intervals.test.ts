// Allow and freeze intervals: merging, freezes cutting allow time, calendar edges, the day-of-month OR day-of-week rule.

import assert from "node:assert/strict";
import { test } from "node:test";
import { nextOccurrences, openIntervals } from "./helpers.ts";

test("overlapping occurrences merge into one interval", () => {
  // Hourly starts lasting 90 minutes overlap: always open.
  assert.deepEqual(openIntervals({ schedules: [{ start: "0 * * * *", duration: "90m" }] }, "2026-06-01T00:00:00Z", "2026-06-01T06:00:00Z"), [
    "2026-06-01T00:00:00Z/2026-06-01T06:00:00Z",
  ]);
  assert.deepEqual(
    openIntervals(
      {
        schedules: [
          { start: "0 8 * * *", duration: "1h" },
          { start: "30 8 * * *", duration: "1h" },
        ],
      },
      "2026-06-01T00:00:00Z",
      "2026-06-02T00:00:00Z",
    ),
    ["2026-06-01T08:00:00Z/2026-06-01T09:30:00Z"],
  );
});

test("touching occurrences merge: intervals are half-open", () => {
  assert.deepEqual(openIntervals({ schedules: [{ start: "0 */2 * * *", duration: "2h" }] }, "2026-06-01T00:00:00Z", "2026-06-01T05:00:00Z"), [
    "2026-06-01T00:00:00Z/2026-06-01T05:00:00Z",
  ]);
  assert.deepEqual(
    openIntervals(
      {
        schedules: [
          { start: "0 8 * * *", end: "0 9 * * *" },
          { start: "0 9 * * *", end: "0 10 * * *" },
        ],
      },
      "2026-06-01T00:00:00Z",
      "2026-06-02T00:00:00Z",
    ),
    ["2026-06-01T08:00:00Z/2026-06-01T10:00:00Z"],
  );
  // One minute apart they stay two.
  assert.deepEqual(
    openIntervals(
      {
        schedules: [
          { start: "0 8 * * *", end: "0 9 * * *" },
          { start: "1 9 * * *", end: "0 10 * * *" },
        ],
      },
      "2026-06-01T00:00:00Z",
      "2026-06-02T00:00:00Z",
    ),
    ["2026-06-01T08:00:00Z/2026-06-01T09:00:00Z", "2026-06-01T09:01:00Z/2026-06-01T10:00:00Z"],
  );
});

test("a window across midnight", () => {
  // Berlin 22:00 CET = 21:00Z, for 4 hours.
  assert.deepEqual(
    openIntervals({ timeZone: "Europe/Berlin", schedules: [{ start: "0 22 * * *", duration: "4h" }] }, "2026-11-22T00:00:00Z", "2026-11-23T12:00:00Z"),
    [
      "2026-11-22T00:00:00Z/2026-11-22T01:00:00Z", // the one that started the evening before
      "2026-11-22T21:00:00Z/2026-11-23T01:00:00Z",
    ],
  );
});

test("end is the first end occurrence strictly after the start, across the week end", () => {
  // Friday 2026-11-27 18:00 CET = 17:00Z to Monday 2026-11-30 06:00 CET = 05:00Z.
  // The range starts on Monday 00:00Z, inside the previous weekend's window (until 06:00 CET = 05:00Z).
  assert.deepEqual(
    openIntervals({ timeZone: "Europe/Berlin", schedules: [{ start: "0 18 * * FRI", end: "0 6 * * MON" }] }, "2026-11-23T00:00:00Z", "2026-12-01T00:00:00Z"),
    ["2026-11-23T00:00:00Z/2026-11-23T05:00:00Z", "2026-11-27T17:00:00Z/2026-11-30T05:00:00Z"],
  );
  // An end equal to the start is not "after" it: each interval lasts a whole week, and they touch,
  // so the window is always open.
  assert.deepEqual(openIntervals({ schedules: [{ start: "0 8 * * MON", end: "0 8 * * MON" }] }, "2026-11-23T00:00:00Z", "2026-12-01T00:00:00Z"), [
    "2026-11-23T00:00:00Z/2026-12-01T00:00:00Z",
  ]);
});

test("across the year end", () => {
  assert.deepEqual(openIntervals({ schedules: [{ start: "0 20 31 12 *", duration: "8h" }] }, "2026-12-31T00:00:00Z", "2027-01-02T00:00:00Z"), [
    "2026-12-31T20:00:00Z/2027-01-01T04:00:00Z",
  ]);
  assert.deepEqual(nextOccurrences("@yearly", "UTC", "2026-06-01T00:00:00Z", 2), ["2027-01-01T00:00:00Z", "2028-01-01T00:00:00Z"]);
});

test("leap days", () => {
  assert.deepEqual(nextOccurrences("0 0 29 2 *", "UTC", "2026-01-01T00:00:00Z", 3), ["2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z", "2036-02-29T00:00:00Z"]);
  // The last day of February: 28 in 2027, 29 in 2028.
  assert.deepEqual(nextOccurrences("0 12 28,29 2 *", "UTC", "2027-01-01T00:00:00Z", 3), [
    "2027-02-28T12:00:00Z",
    "2028-02-28T12:00:00Z",
    "2028-02-29T12:00:00Z",
  ]);
});

test("day of month OR day of week when both are restricted", () => {
  // The 13th of any month, or any Friday. November 2026 starts on a Sunday; December 13 is a Sunday.
  assert.deepEqual(nextOccurrences("0 12 13 * FRI", "UTC", "2026-11-01T00:00:00Z", 8), [
    "2026-11-06T12:00:00Z",
    "2026-11-13T12:00:00Z",
    "2026-11-20T12:00:00Z",
    "2026-11-27T12:00:00Z",
    "2026-12-04T12:00:00Z",
    "2026-12-11T12:00:00Z",
    "2026-12-13T12:00:00Z",
    "2026-12-18T12:00:00Z",
  ]);
});

test("*/2 restricts a day field, so the OR rule applies, as in a CronJob", () => {
  // Odd days of the month, or Mondays: what robfig/cron (the CronJob controller) runs.
  assert.deepEqual(nextOccurrences("0 0 */2 * MON", "UTC", "2026-05-31T12:00:00Z", 6), [
    "2026-06-01T00:00:00Z",
    "2026-06-03T00:00:00Z",
    "2026-06-05T00:00:00Z",
    "2026-06-07T00:00:00Z",
    "2026-06-08T00:00:00Z",
    "2026-06-09T00:00:00Z",
  ]);
  // robfig/cron's own case: active at Sunday 15 July 2012 00:00 (Sunday, though 15 is not 1, 11, 21 or 31).
  assert.deepEqual(nextOccurrences("* * */10 * Sun", "UTC", "2012-07-14T23:59:00Z", 1), ["2012-07-15T00:00:00Z"]);
});

test("a day field that is * or ? combines with AND", () => {
  // Odd days of the month that are Fridays.
  assert.deepEqual(nextOccurrences("0 12 ? * FRI", "UTC", "2026-11-01T00:00:00Z", 2), ["2026-11-06T12:00:00Z", "2026-11-13T12:00:00Z"]);
  assert.deepEqual(nextOccurrences("0 12 13 * ?", "UTC", "2026-11-01T00:00:00Z", 1), ["2026-11-13T12:00:00Z"]);
});

test("a freeze inside an allow interval splits it", () => {
  assert.deepEqual(
    openIntervals(
      { schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }], freezes: [{ start: "0 12 * * TUE", duration: "2h", reason: "lunch release review" }] },
      "2026-11-23T00:00:00Z",
      "2026-11-30T00:00:00Z",
    ),
    ["2026-11-23T08:00:00Z/2026-11-24T12:00:00Z", "2026-11-24T14:00:00Z/2026-11-26T17:00:00Z"],
  );
});

test("a freeze across the edges of allow intervals trims them", () => {
  // Allow every day 06:00-18:00; freeze every day 16:00 to 07:00 next morning.
  assert.deepEqual(
    openIntervals(
      { schedules: [{ start: "0 6 * * *", end: "0 18 * * *" }], freezes: [{ start: "0 16 * * *", end: "0 7 * * *" }] },
      "2026-06-01T00:00:00Z",
      "2026-06-03T00:00:00Z",
    ),
    ["2026-06-01T07:00:00Z/2026-06-01T16:00:00Z", "2026-06-02T07:00:00Z/2026-06-02T16:00:00Z"],
  );
});

test("a freeze covering a whole allow interval removes it; freezes beat any allow", () => {
  assert.deepEqual(
    openIntervals(
      { schedules: [{ start: "0 8 * * *", duration: "8h" }], freezes: [{ start: "0 0 * * FRI", duration: "24h", reason: "No deploys on Fridays" }] },
      "2026-11-26T00:00:00Z",
      "2026-11-29T00:00:00Z",
    ),
    ["2026-11-26T08:00:00Z/2026-11-26T16:00:00Z", "2026-11-28T08:00:00Z/2026-11-28T16:00:00Z"],
  );
});

test("results are clipped to the range", () => {
  assert.deepEqual(openIntervals({ schedules: [{ start: "0 8 * * *", duration: "8h" }] }, "2026-06-01T10:00:00Z", "2026-06-01T12:00:00Z"), [
    "2026-06-01T10:00:00Z/2026-06-01T12:00:00Z",
  ]);
  assert.deepEqual(openIntervals({ schedules: [{ start: "0 8 * * *", duration: "8h" }] }, "2026-06-01T16:00:00Z", "2026-06-02T08:00:00Z"), []);
});

test("a window with only freezes never opens", () => {
  assert.deepEqual(openIntervals({ freezes: [{ from: "2026-12-20T00:00", to: "2027-01-05T00:00" }] }, "2026-12-01T00:00:00Z", "2027-02-01T00:00:00Z"), []);
});
