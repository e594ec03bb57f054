// Cron syntax: exactly what a Kubernetes CronJob accepts, and a clear refusal of everything else.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCron, ScheduleError } from "../../../src/schedule/index.ts";

const days = (set: readonly boolean[]): number[] => set.flatMap((v, i) => (v ? [i] : []));

test("five fields with ranges, lists, steps and names", () => {
  const c = parseCron("0,30 8-17/3 1,15 JAN-mar mon-FRI");
  assert.deepEqual(days(c.minutes), [0, 30]);
  assert.deepEqual(days(c.hours), [8, 11, 14, 17]);
  assert.deepEqual(days(c.daysOfMonth), [1, 15]);
  assert.deepEqual(days(c.months), [1, 2, 3]);
  assert.deepEqual(days(c.daysOfWeek), [1, 2, 3, 4, 5]);
  assert.equal(c.domStar, false);
  assert.equal(c.dowStar, false);
});

test("a single value with a step runs to the end of the field, as in CronJob", () => {
  assert.deepEqual(days(parseCron("5/20 * * * *").minutes), [5, 25, 45]);
});

test("day of week 7 is Sunday, like 0", () => {
  assert.deepEqual(days(parseCron("0 0 * * 7").daysOfWeek), [0]);
  assert.deepEqual(days(parseCron("0 0 * * 5-7").daysOfWeek), [0, 5, 6]);
  assert.deepEqual(days(parseCron("0 0 * * SUN").daysOfWeek), [0]);
});

test("words every JavaScript object has are not month or day names", () => {
  for (const word of ["__proto__", "constructor", "toString"]) {
    assert.throws(() => parseCron(`0 0 * ${word} *`), (e: unknown) => e instanceof ScheduleError && e.message.includes(`"${word}" is not a number or name`));
    assert.throws(() => parseCron(`0 0 * * ${word}`), (e: unknown) => e instanceof ScheduleError && e.message.includes(`"${word}" is not a number or name`));
  }
});

test("descriptors expand to their five-field forms", () => {
  const cases: Array<[string, string]> = [
    ["@yearly", "0 0 1 1 *"],
    ["@annually", "0 0 1 1 *"],
    ["@monthly", "0 0 1 * *"],
    ["@weekly", "0 0 * * 0"],
    ["@daily", "0 0 * * *"],
    ["@midnight", "0 0 * * *"],
    ["@hourly", "0 * * * *"],
  ];
  for (const [descriptor, expanded] of cases) {
    const { source: _a, ...a } = parseCron(descriptor);
    const { source: _b, ...b } = parseCron(expanded);
    assert.deepEqual(a, b, descriptor);
  }
});

test("a field starting with * counts as unrestricted for the day-of-month/day-of-week rule", () => {
  assert.equal(parseCron("0 0 */2 * MON").domStar, true);
  assert.equal(parseCron("0 0 1 * */2").dowStar, true);
});

const rejected: Array<[string, RegExp]> = [
  ["", /is empty/],
  ["0 0 8 * * MON", /6 fields: seconds and years are not supported/],
  ["0 8 * *", /has 4 fields/],
  ["0 0 L * *", /"L" \(last day\) is not supported/],
  ["0 0 15W * *", /"W" \(nearest weekday\) is not supported/],
  ["0 0 * * MON#2", /"#" \(nth weekday of the month\) is not supported/],
  ["0 0 ? * MON", /"\?" is not supported: use "\*"/],
  ["H 0 * * *", /"H" \(hashed values\) is not supported/],
  ["CRON_TZ=Europe/Berlin 0 8 * * *", /CRON_TZ=, TZ=\) are not supported: set spec.timeZone instead/],
  ["TZ=UTC 0 8 * * *", /set spec.timeZone instead/],
  ["@every 1h", /@every is not supported/],
  ["@reboot", /@reboot is not supported/],
  ["@fortnightly", /unknown descriptor @fortnightly/],
  ["60 * * * *", /minute field "60": 60 is out of range 0-59/],
  ["0 24 * * *", /hour field "24": 24 is out of range 0-23/],
  ["0 0 0 * *", /day of month field "0": 0 is out of range 1-31/],
  ["0 0 * 13 *", /month field "13": 13 is out of range 1-12/],
  ["0 0 * * 8", /day of week field "8": 8 is out of range 0-7/],
  ["0 0 * * FOO", /"FOO" is not a number or name/],
  ["0 17-8 * * *", /range goes backwards/],
  ["*/0 * * * *", /step must be at least 1/],
  ["0 0 1,,2 * *", /empty list item/],
  ["0 0 30 2 *", /names a date that never exists/],
  ["0 0 31 4,6,9,11 *", /names a date that never exists/],
];

for (const [expression, message] of rejected) {
  test(`rejects ${JSON.stringify(expression)} with a message that says why`, () => {
    assert.throws(() => parseCron(expression), (e: unknown) => {
      assert.ok(e instanceof ScheduleError);
      assert.match(e.message, message);
      assert.ok(e.message.includes(`cron "${expression}"`), e.message);
      return true;
    });
  });
}

test("Feb 29 exists (in leap years) and 31 exists in some chosen month", () => {
  assert.doesNotThrow(() => parseCron("0 0 29 2 *"));
  assert.doesNotThrow(() => parseCron("0 0 31 4,5 *"));
  // With both day fields restricted, the OR rule makes any weekday a match.
  assert.doesNotThrow(() => parseCron("0 0 30 2 MON"));
});
