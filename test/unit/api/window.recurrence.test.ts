// Recurrence entries (RFC 5545 rules) in a ReconciliationWindow: accepted shapes, and every mistake named by its field path.

import assert from "node:assert/strict";
import { test } from "node:test";
import { validateWindow, ValidationError } from "../../../src/api/index.ts";

const NOW = Date.parse("2026-11-22T10:00:00Z");

const window = (entry: Record<string, unknown>, where: "schedules" | "freezes" = "schedules"): Record<string, unknown> => ({
  apiVersion: "fluxgate.io/v1alpha1",
  kind: "ReconciliationWindow",
  metadata: { name: "w", namespace: "flux-system" },
  spec: { timeZone: "Europe/Berlin", [where]: [entry], targets: [{ kind: "Kustomization", name: "apps" }] },
});

const problems = (entry: Record<string, unknown>, where: "schedules" | "freezes" = "schedules"): string[] => {
  try {
    validateWindow(window(entry, where), NOW);
  } catch (e) {
    assert.ok(e instanceof ValidationError, String(e));
    return e.problems.map((p) => `${p.path}: ${p.message}`);
  }
  return [];
};

test("recurrence entries in the shapes the docs show are valid, in schedules and freezes", () => {
  const valid: Array<Record<string, unknown>> = [
    { recurrence: "FREQ=MONTHLY;BYDAY=2SU", at: "02:00", duration: "4h" },
    { recurrence: "RRULE:FREQ=MONTHLY;BYDAY=-1FR", at: "22:00", endAt: "02:00" },
    { recurrence: "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU", at: "09:00", duration: "8h", dtstart: "2026-01-06" },
    { recurrence: "FREQ=DAILY;COUNT=5", at: "01:00", duration: "1h", dtstart: "2026-12-01", exdates: ["2026-12-03", "2026-12-04T01:00"] },
    { recurrence: "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29", at: "00:00", duration: "24h" },
  ];
  for (const entry of valid) {
    assert.deepEqual(problems(entry), [], JSON.stringify(entry));
    assert.deepEqual(problems({ ...entry, reason: "maintenance" }, "freezes"), [], JSON.stringify(entry));
  }
});

const cases: Array<[string, Record<string, unknown>, RegExp]> = [
  [
    "BYSECOND",
    { recurrence: "FREQ=DAILY;BYSECOND=30", at: "02:00", duration: "1h" },
    /^spec\.schedules\[0\]\.recurrence: BYSECOND is not allowed: a window is at minute precision$/,
  ],
  [
    "FREQ=SECONDLY",
    { recurrence: "FREQ=SECONDLY", at: "02:00", duration: "1h" },
    /^spec\.schedules\[0\]\.recurrence: FREQ=SECONDLY is not allowed: a window is at minute precision$/,
  ],
  [
    "FREQ=HOURLY",
    { recurrence: "FREQ=HOURLY", at: "02:00", duration: "1h" },
    /^spec\.schedules\[0\]\.recurrence: FREQ=HOURLY is not supported: .*use a cron schedule/,
  ],
  [
    "BYHOUR",
    { recurrence: "FREQ=DAILY;BYHOUR=3", at: "02:00", duration: "1h" },
    /^spec\.schedules\[0\]\.recurrence: BYHOUR is not supported: the time of day is the entry's "at"/,
  ],
  [
    "a day no year has",
    { recurrence: "FREQ=MONTHLY;BYMONTHDAY=31;BYMONTH=2", at: "02:00", duration: "1h" },
    /^spec\.schedules\[0\]\.recurrence: never occurs: no day of any year matches all of its parts/,
  ],
  ["no FREQ", { recurrence: "BYDAY=MO", at: "02:00", duration: "1h" }, /^spec\.schedules\[0\]\.recurrence: FREQ is required/],
  [
    "an unknown part",
    { recurrence: "FREQ=DAILY;BYWHEN=1", at: "02:00", duration: "1h" },
    /^spec\.schedules\[0\]\.recurrence: "BYWHEN=1" is not a part of an RFC 5545 rule/,
  ],
  ["a part twice", { recurrence: "FREQ=DAILY;FREQ=WEEKLY", at: "02:00", duration: "1h" }, /^spec\.schedules\[0\]\.recurrence: FREQ is given twice$/],
  [
    "COUNT and UNTIL",
    { recurrence: "FREQ=DAILY;COUNT=3;UNTIL=20270101T000000Z", at: "02:00", duration: "1h", dtstart: "2026-01-01" },
    /recurrence: COUNT and UNTIL are both given/,
  ],
  [
    "a numbered weekday in a weekly rule",
    { recurrence: "FREQ=WEEKLY;BYDAY=2TU", at: "02:00", duration: "1h" },
    /recurrence: BYDAY=2TU: a numbered weekday needs FREQ=MONTHLY or FREQ=YEARLY/,
  ],
  ["a sixth Sunday", { recurrence: "FREQ=MONTHLY;BYDAY=6SU", at: "02:00", duration: "1h" }, /recurrence: BYDAY=6SU: a month has at most 5 of each weekday/],
  [
    "BYMONTHDAY 0",
    { recurrence: "FREQ=MONTHLY;BYMONTHDAY=0", at: "02:00", duration: "1h" },
    /recurrence: BYMONTHDAY=0: 0 is out of range \(1 to 31 or -31 to -1\)/,
  ],
  ["BYWEEKNO with MONTHLY", { recurrence: "FREQ=MONTHLY;BYWEEKNO=3", at: "02:00", duration: "1h" }, /recurrence: BYWEEKNO is only defined with FREQ=YEARLY/],
  [
    "BYSETPOS alone",
    { recurrence: "FREQ=MONTHLY;BYSETPOS=1", at: "02:00", duration: "1h", dtstart: "2026-01-01" },
    /recurrence: BYSETPOS needs another BYxxx part/,
  ],
  [
    "UNTIL as a date",
    { recurrence: "FREQ=DAILY;UNTIL=20270101", at: "02:00", duration: "1h" },
    /recurrence: UNTIL=20270101: a window's rule ends at a date-time/,
  ],
  [
    "INTERVAL without dtstart",
    { recurrence: "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU", at: "02:00", duration: "1h" },
    /^spec\.schedules\[0\]\.dtstart: needs dtstart, the first date: INTERVAL=2 counts periods from it$/,
  ],
  [
    "WEEKLY without BYDAY or dtstart",
    { recurrence: "FREQ=WEEKLY", at: "02:00", duration: "1h" },
    /^spec\.schedules\[0\]\.dtstart: needs dtstart, the first date: FREQ=WEEKLY without BYDAY takes its weekday from it$/,
  ],
  [
    "UNTIL before dtstart",
    { recurrence: "FREQ=DAILY;UNTIL=20251231T000000Z", at: "02:00", duration: "1h", dtstart: "2026-01-01" },
    /^spec\.schedules\[0\]\.recurrence: never occurs: no day from dtstart 2026-01-01 until UNTIL=20251231T000000Z matches it$/,
  ],
  ["no at", { recurrence: "FREQ=DAILY", duration: "1h" }, /^spec\.schedules\[0\]\.at: is required with recurrence/],
  ["at with seconds", { recurrence: "FREQ=DAILY", at: "02:00:30", duration: "1h" }, /^spec\.schedules\[0\]\.at: "02:00:30" is not a time of day/],
  ["no length", { recurrence: "FREQ=DAILY", at: "02:00" }, /^spec\.schedules\[0\]: needs a duration \(e\.g\. "4h"\) or an endAt time of day/],
  ["endAt and duration", { recurrence: "FREQ=DAILY", at: "02:00", endAt: "03:00", duration: "1h" }, /^spec\.schedules\[0\]: has both endAt and duration/],
  [
    "recurrence and start",
    { recurrence: "FREQ=DAILY", start: "0 2 * * *", at: "02:00", duration: "1h" },
    /^spec\.schedules\[0\]: mixes a cron schedule \(start, end\) with a recurrence/,
  ],
  ["at without recurrence", { start: "0 2 * * *", at: "02:00", duration: "1h" }, /^spec\.schedules\[0\]\.at: is only used with recurrence$/],
  [
    "a dtstart that does not exist",
    { recurrence: "FREQ=DAILY", at: "02:00", duration: "1h", dtstart: "2026-02-30" },
    /^spec\.schedules\[0\]\.dtstart: "2026-02-30": no such date$/,
  ],
  [
    "an exdate in words",
    { recurrence: "FREQ=DAILY", at: "02:00", duration: "1h", exdates: ["christmas"] },
    /^spec\.schedules\[0\]\.exdates\[0\]: "christmas" is not a date or a local date-time/,
  ],
];

for (const [name, entry, expected] of cases) {
  test(`refused with its field path: ${name}`, () => {
    const found = problems(entry);
    assert.ok(
      found.some((p) => expected.test(p)),
      `expected ${expected}, got ${JSON.stringify(found)}`,
    );
  });
}

test("a recurrence freeze mixed with a one-off freeze is refused", () => {
  const found = problems({ recurrence: "FREQ=DAILY", at: "02:00", duration: "1h", from: "2026-12-20T00:00", to: "2026-12-21T00:00" }, "freezes");
  assert.ok(
    found.some((p) => /^spec\.freezes\[0\]: mixes a recurring freeze \(start, end, duration, recurrence\) with a one-off freeze/.test(p)),
    JSON.stringify(found),
  );
});

test("validity does not depend on the current time: a rule whose days are all in the past is still valid", () => {
  const entry = { recurrence: "FREQ=DAILY;COUNT=2", at: "02:00", duration: "1h", dtstart: "2001-01-01" };
  assert.deepEqual(problems(entry), []);
});
