// Go-style durations: what parses, what is refused, and how lengths are shown.

import assert from "node:assert/strict";
import { test } from "node:test";
import { formatLength, parseDuration, ScheduleError } from "../../../src/schedule/index.ts";

test("Go duration syntax", () => {
  assert.equal(parseDuration("90m"), 5_400_000);
  assert.equal(parseDuration("1h30m"), 5_400_000);
  assert.equal(parseDuration("81h"), 291_600_000);
  assert.equal(parseDuration("1.5h"), 5_400_000);
  assert.equal(parseDuration("2h45m30s"), 9_930_000);
  assert.equal(parseDuration("500ms"), 500);
  assert.equal(parseDuration("+2h"), 7_200_000);
});

test("decimal fractions are read exactly, as Go reads them", () => {
  assert.equal(parseDuration("1.1h"), 3_960_000);
  assert.equal(parseDuration("4.35h"), 15_660_000);
  assert.equal(parseDuration("1.001s"), 1_001);
  assert.equal(parseDuration("0.1ns0.4m"), 24_000, "what is finer than a nanosecond is dropped, as in Go");
});

for (const [input, message] of [
  ["0", /is zero/],
  ["0s", /is zero/],
  ["-1h", /is negative/],
  ["", /is empty/],
  ["+", /is not a Go duration/],
  ["2 hours", /is not a Go duration/],
  ["90", /is not a Go duration/],
  ["1d", /is not a Go duration/],
  ["100ns", /finer than a millisecond/],
  ["9000h", /longer than 366 days/],
] as const) {
  test(`refuses ${JSON.stringify(input)}`, () => {
    assert.throws(
      () => parseDuration(input),
      (e: unknown) => e instanceof ScheduleError && message.test(e.message),
    );
  });
}

test("lengths for people", () => {
  assert.equal(formatLength(7_200_000), "2h");
  assert.equal(formatLength(3 * 86_400_000 + 9 * 3_600_000), "3d 9h");
  assert.equal(formatLength(45 * 60_000), "45m");
});

test("lengths under a minute that are not whole seconds are said exactly, never rounded to a second or to nothing", () => {
  assert.equal(formatLength(500), "500ms");
  assert.equal(formatLength(200), "200ms");
  assert.equal(formatLength(1_500), "1s 500ms");
  assert.equal(formatLength(59_001), "59s 1ms");
  assert.equal(formatLength(30_000), "30s");
  assert.equal(formatLength(90_500), "1m 31s", "from a minute on, to the second as before");
});
