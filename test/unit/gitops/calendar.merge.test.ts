// Importing a calendar into a window file: by UID, idempotent, comments and hand-written freezes kept, the result validated as the controller validates it.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parse } from "yaml";
import { planFreezeImport } from "../../../src/gitops/calendar/freeze-merge.ts";

const NOW = Date.UTC(2026, 10, 28);
const FILE = "clusters/edge/windows/apps-rw.yaml";

const WINDOW = `# The window of apps-rw; freezes come from the team calendar.
apiVersion: fluxgate.io/v1alpha1
kind: ReconciliationWindow
metadata:
  name: apps-rw
  namespace: flux-system
spec:
  timeZone: Europe/Berlin
  schedules:
    - start: "0 8 * * MON-THU"
      end: "0 17 * * MON-THU"
  freezes:
    # Written by hand: never touched by an import.
    - start: "0 0 * * FRI"
      duration: 24h
      reason: No deploys on Fridays
  targets:
    - kind: Kustomization
      name: apps-rw
`;

function calendar(...events: string[]): string {
  return ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", ...events.map((e) => `BEGIN:VEVENT\n${e.trim()}\nEND:VEVENT`), "END:VCALENDAR", ""].join(
    "\r\n",
  );
}
const XMAS = "UID:xmas@example.com\nSUMMARY:Christmas\nDTSTART;VALUE=DATE:20261224\nDTEND;VALUE=DATE:20261227";
const PATCH =
  "UID:patch@example.com\nSUMMARY:Patch night\nDTSTART;TZID=Europe/Berlin:20261201T220000\nDTEND;TZID=Europe/Berlin:20261202T020000\nRRULE:FREQ=MONTHLY;BYDAY=1TU";

const freezesOf = (text: string): unknown[] => (parse(text) as { spec: { freezes: unknown[] } }).spec.freezes;

test("the first import appends the events' freezes after the hand-written one, comments kept; the second changes nothing", () => {
  const first = planFreezeImport(WINDOW, FILE, { calendar: calendar(XMAS, PATCH) }, NOW);
  assert.deepEqual(
    first.added.map((f) => f.uid),
    ["xmas@example.com", "patch@example.com"],
  );
  assert.ok(first.text.startsWith("# The window of apps-rw; freezes come from the team calendar.\n"));
  assert.match(first.text, / {4}# Written by hand: never touched by an import\.\n {4}- start: "0 0 \* \* FRI"/);
  assert.deepEqual(freezesOf(first.text), [
    { start: "0 0 * * FRI", duration: "24h", reason: "No deploys on Fridays" },
    { from: "2026-12-24T00:00", to: "2026-12-27T00:00", reason: "Christmas", uid: "xmas@example.com" },
    { recurrence: "FREQ=MONTHLY;BYDAY=1TU", dtstart: "2026-12-01", at: "22:00", duration: "4h", reason: "Patch night", uid: "patch@example.com" },
  ]);
  // Times are quoted: a YAML 1.1 reader (Kubernetes') would take 22:00 for a number.
  assert.match(first.text, /at: "22:00"/);
  const second = planFreezeImport(first.text, FILE, { calendar: calendar(PATCH, XMAS) }, NOW);
  assert.equal(second.text, first.text);
  assert.deepEqual([second.added.length, second.updated.length, second.removed.length, second.unchanged.length], [0, 0, 0, 2]);
});

test("a changed event replaces its freeze in place; a cancelled one removes it; one gone from the calendar is kept unless pruned", () => {
  const first = planFreezeImport(WINDOW, FILE, { calendar: calendar(XMAS, PATCH) }, NOW).text;
  const moved = planFreezeImport(
    first,
    FILE,
    { calendar: calendar(XMAS.replace("Christmas", "Christmas and Boxing Day").replace("20261227", "20261228"), PATCH) },
    NOW,
  );
  assert.deepEqual(
    moved.updated.map((f) => f.uid),
    ["xmas@example.com"],
  );
  assert.deepEqual(freezesOf(moved.text)[1], { from: "2026-12-24T00:00", to: "2026-12-28T00:00", reason: "Christmas and Boxing Day", uid: "xmas@example.com" });

  const cancelled = planFreezeImport(first, FILE, { calendar: calendar(`${XMAS}\nSTATUS:CANCELLED`, PATCH) }, NOW);
  assert.deepEqual(cancelled.removed, [{ uid: "xmas@example.com", reason: "Christmas" }]);
  assert.equal(freezesOf(cancelled.text).length, 2);

  const gone = planFreezeImport(first, FILE, { calendar: calendar(PATCH) }, NOW);
  assert.equal(gone.text, first);
  assert.deepEqual(gone.kept, [{ uid: "xmas@example.com", reason: "Christmas" }]);
  const pruned = planFreezeImport(first, FILE, { calendar: calendar(PATCH), prune: true }, NOW);
  assert.deepEqual(pruned.removed, [{ uid: "xmas@example.com", reason: "Christmas" }]);
  assert.deepEqual(
    freezesOf(pruned.text).map((f) => (f as { reason: string }).reason),
    ["No deploys on Fridays", "Patch night"],
  );
});

test("the result is validated as the controller validates it: too many freezes is refused with the field", () => {
  const days = Array.from({ length: 64 }, (_, i) => {
    const d = new Date(Date.UTC(2027, 0, 1 + i));
    const ymd = d.toISOString().slice(0, 10).replaceAll("-", "");
    return `UID:e${i}\nSUMMARY:Day ${i}\nDTSTART;VALUE=DATE:${ymd}`;
  });
  assert.throws(
    () => planFreezeImport(WINDOW, FILE, { calendar: calendar(...days) }, NOW),
    (e: Error) => {
      assert.match(
        e.message,
        /^clusters\/edge\/windows\/apps-rw\.yaml: with the calendar's freezes the window would not be valid; nothing was written:\nspec\.freezes: /,
      );
      return true;
    },
  );
});

test("a window file that is not a window is refused before the calendar is read", () => {
  assert.throws(
    () => planFreezeImport("kind: Kustomization\n", FILE, { calendar: calendar(XMAS) }, NOW),
    /apps-rw\.yaml: not a ReconciliationWindow manifest with a spec/,
  );
  assert.throws(() => planFreezeImport("a: [\n", FILE, { calendar: calendar(XMAS) }, NOW), /apps-rw\.yaml: not valid YAML/);
});

test("a window without freezes gets the list; one without a zone reads the calendar in UTC", () => {
  const text = WINDOW.replace(/ {2}freezes:\n(.*\n){4}/, "").replace("  timeZone: Europe/Berlin\n", "");
  const r = planFreezeImport(text, FILE, { calendar: calendar(XMAS, "UID:utc\nSUMMARY:Cutover\nDTSTART:20270105T220000Z\nDTEND:20270106T020000Z") }, NOW);
  assert.equal(r.timeZone, "UTC");
  assert.deepEqual(freezesOf(r.text), [
    { from: "2026-12-24T00:00", to: "2026-12-27T00:00", reason: "Christmas", uid: "xmas@example.com" },
    { from: "2027-01-05T22:00", to: "2027-01-06T02:00", reason: "Cutover", uid: "utc" },
  ]);
});
