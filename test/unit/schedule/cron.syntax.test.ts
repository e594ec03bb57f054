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

test("day of week is 0-6 with Sunday 0, as in CronJob: 7 is refused with a hint", () => {
  assert.deepEqual(days(parseCron("0 0 * * 0").daysOfWeek), [0]);
  assert.deepEqual(days(parseCron("0 0 * * SUN").daysOfWeek), [0]);
  for (const e of ["0 0 * * 7", "0 0 * * 5-7"]) {
    assert.throws(
      () => parseCron(e),
      (err: unknown) => err instanceof ScheduleError && /7 is out of range 0-6 \(Sunday is 0 or SUN; CronJob refuses 7\)/.test(err.message),
    );
  }
});

test("? is * (as in Kubernetes' own examples), also for the day rule", () => {
  const { source: _a, ...q } = parseCron("0 0 ? * ?");
  const { source: _b, ...star } = parseCron("0 0 * * *");
  assert.deepEqual(q, star);
});

test("robfig/cron's readings: *-N is *, empty list items are dropped, a sign is allowed, a huge step takes the first value", () => {
  const { source: _a, ...a } = parseCron("*-5 * * * *");
  const { source: _b, ...b } = parseCron("* * * * *");
  assert.deepEqual(a, b);
  assert.deepEqual(days(parseCron("0 0 1,,2, * *").daysOfMonth), [1, 2]);
  assert.deepEqual(days(parseCron("0 +12 * * *").hours), [12]);
  assert.deepEqual(days(parseCron("0/99999999999 * * * *").minutes), [0]);
  assert.throws(() => parseCron("0/99999999999999999999 * * * *"), /step "99999999999999999999" is too large/);
  assert.throws(() => parseCron("0 , * * *"), /hour field "," names no value, so the schedule never runs/);
});

test("descriptors are matched exactly, as CronJob matches them", () => {
  for (const e of ["@YEARLY", "@Yearly"]) assert.throws(() => parseCron(e), /unknown descriptor @Y/);
  for (const e of [" @yearly", "@yearly "]) assert.throws(() => parseCron(e), ScheduleError);
});

test("words every JavaScript object has are not month or day names", () => {
  for (const word of ["__proto__", "constructor", "toString"]) {
    assert.throws(
      () => parseCron(`0 0 * ${word} *`),
      (e: unknown) => e instanceof ScheduleError && e.message.includes(`"${word}" is not a number or name`),
    );
    assert.throws(
      () => parseCron(`0 0 * * ${word}`),
      (e: unknown) => e instanceof ScheduleError && e.message.includes(`"${word}" is not a number or name`),
    );
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

test("a day field is unrestricted only when an item is * or ? without a step above 1, as in robfig/cron", () => {
  assert.equal(parseCron("0 0 */2 * MON").domStar, false);
  assert.equal(parseCron("0 0 1 * */2").dowStar, false);
  assert.equal(parseCron("0 0 */1 * MON").domStar, true);
  assert.equal(parseCron("0 0 ? * MON").domStar, true);
  assert.equal(parseCron("0 0 1,* * MON").domStar, true);
});

const rejected: Array<[string, RegExp]> = [
  ["", /is empty/],
  ["0 0 8 * * MON", /6 fields: seconds and years are not supported/],
  ["0 8 * *", /has 4 fields/],
  ["0 0 L * *", /"L" \(last day\) is not supported/],
  ["0 0 15W * *", /"W" \(nearest weekday\) is not supported/],
  ["0 0 * * MON#2", /"#" \(nth weekday of the month\) is not supported/],
  ["H 0 * * *", /"H" \(hashed values\) is not supported/],
  ["CRON_TZ=Europe/Berlin 0 8 * * *", /CRON_TZ=, TZ=\) are not supported: set spec.timeZone instead/],
  ["TZ=UTC 0 8 * * *", /set spec.timeZone instead/],
  ["@every 1h", /@every is not supported/],
  ["@reboot", /@reboot is not supported/],
  ["@fortnightly", /unknown descriptor @fortnightly/],
  ["@every 5m", /@every is not supported/],
  ["60 * * * *", /minute field "60": 60 is out of range 0-59/],
  ["0 24 * * *", /hour field "24": 24 is out of range 0-23/],
  ["0 0 0 * *", /day of month field "0": 0 is out of range 1-31/],
  ["0 0 * 13 *", /month field "13": 13 is out of range 1-12/],
  ["0 0 * * 8", /day of week field "8": 8 is out of range 0-6/],
  ["0 0 * * FOO", /"FOO" is not a number or name/],
  ["0 17-8 * * *", /range goes backwards/],
  ["*/0 * * * *", /step must be at least 1/],
  ["0 0 -1 * *", /"" is not a number/],
  ["0 0 */-1 * *", /step "-1" is negative/],
  ["0 0 30 2 *", /names a date that never exists/],
  ["0 0 31 4,6,9,11 *", /names a date that never exists/],
];

for (const [expression, message] of rejected) {
  test(`rejects ${JSON.stringify(expression)} with a message that says why`, () => {
    assert.throws(
      () => parseCron(expression),
      (e: unknown) => {
        assert.ok(e instanceof ScheduleError);
        assert.match(e.message, message);
        assert.ok(e.message.includes(`cron "${expression}"`), e.message);
        return true;
      },
    );
  });
}

test("Feb 29 exists (in leap years) and 31 exists in some chosen month", () => {
  assert.doesNotThrow(() => parseCron("0 0 29 2 *"));
  assert.doesNotThrow(() => parseCron("0 0 31 4,5 *"));
  // With both day fields restricted, the OR rule makes any weekday a match.
  assert.doesNotThrow(() => parseCron("0 0 30 2 MON"));
});
