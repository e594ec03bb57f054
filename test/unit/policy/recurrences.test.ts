// A window's recurrence entries as explain shows them: the rule, its words, and the interval active now or next, in the window's zone.

import assert from "node:assert/strict";
import { test } from "node:test";
import { recurrenceEntries } from "../../../src/policy/index.ts";
import { compileWindow } from "../../../src/schedule/index.ts";

const NOW = Date.parse("2026-03-08T07:45:00Z"); // Sunday 8 March 2026, 03:45 EDT in New York: the day the clocks go forward.

test("an entry active now gives its interval; one in the spring-forward gap starts as RFC 5545 says (02:30 read before the gap: 03:30 EDT)", () => {
  const spec = {
    timeZone: "America/New_York",
    schedules: [
      { start: "0 8 * * MON", duration: "1h" },
      { recurrence: "FREQ=DAILY", at: "02:30", duration: "2h" },
    ],
    freezes: [{ recurrence: "FREQ=MONTHLY;BYDAY=2SU", at: "02:30", endAt: "04:00", reason: "Patching" }],
  };
  const entries = recurrenceEntries(spec, compileWindow("w", spec), NOW);
  assert.deepEqual(
    entries.map((e) => [e.kind, e.path, e.words, e.active, e.local]),
    [
      ["allow", "spec.schedules[1]", "every day", true, "Sun 2026-03-08 03:30 EDT → Sun 2026-03-08 05:30 EDT"],
      ["freeze", "spec.freezes[0]", "the second Sunday of each month", true, "Sun 2026-03-08 03:30 EDT → Sun 2026-03-08 04:00 EDT"],
    ],
  );
  assert.equal(entries[0]?.next?.start, Date.parse("2026-03-08T07:30:00Z"));
});

test("an entry whose starts are all past has no next interval", () => {
  const spec = { timeZone: "Europe/Berlin", schedules: [{ recurrence: "FREQ=WEEKLY;BYDAY=MO;COUNT=2", dtstart: "2026-01-05", at: "08:00", duration: "1h" }] };
  const [entry] = recurrenceEntries(spec, compileWindow("w", spec), NOW);
  assert.equal(entry?.words, "every Monday, 2 times");
  assert.equal(entry?.next, null);
  assert.equal(entry?.local, null);
});
