// A recurrence rule in words, as the dashboard's editor, `explain` and `check` show it beside the rule.

import assert from "node:assert/strict";
import { test } from "node:test";
import { ScheduleError } from "../../../src/schedule/index.ts";
import { describeRecurrence } from "../../../src/schedule/rrule-words.ts";

const CASES: [string, string][] = [
  ["FREQ=MONTHLY;BYDAY=2SU", "the second Sunday of each month"],
  ["RRULE:FREQ=MONTHLY;BYDAY=-1FR", "the last Friday of each month"],
  ["FREQ=MONTHLY;BYDAY=-2FR", "the second-to-last Friday of each month"],
  ["FREQ=WEEKLY;INTERVAL=2;BYDAY=TU", "every other week on Tuesday"],
  ["FREQ=WEEKLY;INTERVAL=4;BYDAY=WE,TH", "every 4 weeks on Wednesday and Thursday"],
  ["FREQ=WEEKLY;BYDAY=SA,SU", "every weekend day"],
  ["FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR", "every weekday"],
  ["FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", "the last weekday of each month"],
  ["FREQ=DAILY", "every day"],
  ["FREQ=DAILY;INTERVAL=3", "every 3 days"],
  ["FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=15", "day 15 of every 3 months"],
  ["FREQ=MONTHLY;BYMONTHDAY=-1", "the last day of each month"],
  ["FREQ=MONTHLY;BYMONTH=3,11;BYDAY=2SU", "the second Sunday of March and November"],
  ["FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13", "a Friday that is day 13 of each month"],
  ["FREQ=YEARLY;BYMONTH=5;BYDAY=-1MO", "the last Monday of May, each year"],
  ["FREQ=YEARLY;BYDAY=20MO", "the 20th Monday of the year, each year"],
  ["FREQ=WEEKLY", "every week on dtstart's weekday"],
  ["FREQ=MONTHLY", "each month on dtstart's day of the month"],
  ["FREQ=WEEKLY;BYDAY=MO;COUNT=10", "every Monday, 10 times"],
  ["FREQ=DAILY;UNTIL=20271231T235959Z", "every day, until 2027-12-31 23:59 UTC"],
];

test("rules read as people say them", () => {
  for (const [rule, words] of CASES) assert.equal(describeRecurrence(rule), words, rule);
});

test("a rule the parser refuses is refused with the parser's message, not described", () => {
  assert.throws(
    () => describeRecurrence("FREQ=MONTHLY;BYMONTHDAY=31;BYMONTH=2"),
    (e: unknown) => e instanceof ScheduleError && /never occurs/.test(e.detail),
  );
});
