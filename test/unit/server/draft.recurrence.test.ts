// The window editor's form state keeps entries it cannot edit (recurrence rules) as they are, so a save does not change them.

import assert from "node:assert/strict";
import { test } from "node:test";
import { draftOf, specOf } from "../../../src/server/dashboard/client/draft.ts";

test("schedules and freezes given by a recurrence rule survive the form unchanged, beside cron rows the form edits", () => {
  const spec = {
    timeZone: "Europe/Berlin",
    schedules: [
      { start: "0 8 * * MON", end: "0 17 * * THU" },
      { recurrence: "FREQ=MONTHLY;BYDAY=2SU", at: "02:00", endAt: "06:00", exdates: ["2026-12-13"] },
    ],
    freezes: [
      { recurrence: "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU", dtstart: "2026-01-06", at: "00:00", duration: "24h", reason: "Release Tuesday" },
      { from: "2026-12-20T00:00", to: "2027-01-05T00:00", reason: "Holiday freeze" },
    ],
    targets: [{ kind: "Kustomization", name: "apps" }],
  };
  const draft = draftOf(spec, "UTC");
  assert.deepEqual(specOf(draft), spec);
  // Rows the form edits still edit; the kept ones stay as they were.
  (draft.schedules[0] as { start: string }).start = "0 9 * * MON";
  const edited = specOf(draft) as typeof spec;
  assert.deepEqual(edited.schedules[0], { start: "0 9 * * MON", end: "0 17 * * THU" });
  assert.deepEqual(edited.schedules[1], spec.schedules[1]);
  assert.deepEqual(edited.freezes[0], spec.freezes[0]);
});

test("a freeze imported from a calendar keeps its uid through the form, edited or not, so the next import updates it instead of adding another", () => {
  const spec = {
    freezes: [
      { from: "2026-12-24T00:00", to: "2026-12-28T00:00", reason: "Christmas freeze", uid: "xmas@example.com" },
      { start: "0 0 * * FRI", duration: "24h", reason: "Fridays", uid: "fridays@example.com" },
    ],
    targets: [{ kind: "Kustomization", name: "apps" }],
  };
  const draft = draftOf(spec, "UTC");
  assert.deepEqual((specOf(draft) as typeof spec).freezes, spec.freezes);
  (draft.freezes[0] as { to: string }).to = "2026-12-29T00:00";
  assert.deepEqual((specOf(draft) as typeof spec).freezes[0], {
    from: "2026-12-24T00:00",
    to: "2026-12-29T00:00",
    reason: "Christmas freeze",
    uid: "xmas@example.com",
  });
});
