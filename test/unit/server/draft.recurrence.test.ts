// The window editor's form state reads and writes entries given by a recurrence rule as form fields, and leaves what it did not change as it was.

import assert from "node:assert/strict";
import { test } from "node:test";
import { draftOf, newSchedule, specOf } from "../../../src/server/dashboard/client/draft.ts";

const SPEC = {
  timeZone: "Europe/Berlin",
  schedules: [
    { start: "0 8 * * MON", end: "0 17 * * THU" },
    { recurrence: "FREQ=MONTHLY;BYDAY=2SU", at: "02:00", endAt: "06:00", exdates: ["2026-12-13", "2027-01-10T02:00"] },
  ],
  freezes: [
    { recurrence: "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU", dtstart: "2026-01-06", at: "00:00", duration: "24h", reason: "Release Tuesday" },
    { from: "2026-12-20T00:00", to: "2027-01-05T00:00", reason: "Holiday freeze" },
  ],
  targets: [{ kind: "Kustomization", name: "apps" }],
};

test("schedules and freezes given by a recurrence rule go through the form unchanged, beside cron rows", () => {
  const draft = draftOf(SPEC, "UTC");
  assert.equal(draft.schedules[1]?.kind, "recurrence");
  assert.equal(draft.freezes[0]?.kind, "recurrence");
  assert.deepEqual(draft.schedules[1]?.rule, {
    recurrence: "FREQ=MONTHLY;BYDAY=2SU",
    at: "02:00",
    lengthKind: "endAt",
    length: "06:00",
    dtstart: "",
    exdates: "2026-12-13, 2027-01-10T02:00",
  });
  assert.deepEqual(specOf(draft), SPEC);
});

test("the form edits a recurrence entry's fields: its rule, time, length, first date and left-out dates", () => {
  const draft = draftOf(SPEC, "UTC");
  const rule = draft.schedules[1]!.rule;
  rule.recurrence = "FREQ=MONTHLY;BYDAY=-1FR";
  rule.lengthKind = "duration";
  rule.length = "3h";
  rule.dtstart = " 2026-01-01 ";
  rule.exdates = "2026-12-25 ,, 2027-01-29";
  const freeze = draft.freezes[0]!;
  freeze.rule.exdates = "";
  freeze.reason = "";
  const edited = specOf(draft) as typeof SPEC;
  assert.deepEqual(edited.schedules[1], {
    recurrence: "FREQ=MONTHLY;BYDAY=-1FR",
    at: "02:00",
    duration: "3h",
    dtstart: "2026-01-01",
    exdates: ["2026-12-25", "2027-01-29"],
  });
  assert.deepEqual(edited.freezes[0], { recurrence: "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU", dtstart: "2026-01-06", at: "00:00", duration: "24h" });
  assert.deepEqual(edited.schedules[0], SPEC.schedules[0]);
});

test("a cron row switched to a recurrence writes only the recurrence fields, every one even when empty so its problem has its path", () => {
  const draft = draftOf({ targets: [{ kind: "Kustomization", name: "apps" }] }, "UTC");
  const row = newSchedule();
  row.kind = "recurrence";
  row.rule.recurrence = "FREQ=MONTHLY;BYDAY=2SU";
  draft.schedules.push(row);
  assert.deepEqual((specOf(draft) as typeof SPEC).schedules, [{ recurrence: "FREQ=MONTHLY;BYDAY=2SU", at: "", duration: "" }]);
});

test("a freeze of public holidays survives the form unchanged (the form has no row for it)", () => {
  const spec = {
    timeZone: "Europe/Berlin",
    freezes: [{ holidays: { country: "DE", subdivision: "BY" }, reason: "Public holiday" }, { holidays: { fromClusterLabels: { country: "country" } } }],
    targets: [{ kind: "Kustomization", name: "apps" }],
  };
  const draft = draftOf(spec, "UTC");
  assert.deepEqual(specOf(draft), spec);
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
