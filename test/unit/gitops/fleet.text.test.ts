// The YAML the fleet commands write: times of day and dates of recurrence entries double-quoted, as cron expressions and date-times are.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parse } from "yaml";
import { yamlText } from "../../../src/gitops/fleet/text.ts";

test("a fleet window's recurrence entry is written with at, endAt, dtstart and exdates quoted, and reads back as the same strings", () => {
  const spec = {
    schedules: [{ recurrence: "FREQ=MONTHLY;BYDAY=2SU", at: "02:00", endAt: "06:00", dtstart: "2026-01-11", exdates: ["2026-12-13", "2027-01-10T02:00"] }],
  };
  const text = yamlText(spec);
  assert.equal(
    text,
    'schedules:\n  - recurrence: FREQ=MONTHLY;BYDAY=2SU\n    at: "02:00"\n    endAt: "06:00"\n    dtstart: "2026-01-11"\n    exdates:\n      - "2026-12-13"\n      - "2027-01-10T02:00"\n',
  );
  // A YAML 1.1 reader (what PyYAML and older tools are) would take 02:00 for 120 and 2026-12-13 for a date unless quoted.
  assert.deepEqual(parse(text, { version: "1.1" }), spec);
});
