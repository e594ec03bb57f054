// Notice before a change: which coming transition a window announces, when its notice is due, and how it names each target's revision.

import assert from "node:assert/strict";
import { test } from "node:test";
import { noticeDue, noticeLine, targetNotice, upcomingNotice, windowNotice, MAX_NOTICE_LINES, type NoticeTarget } from "../../../src/policy/index.ts";
import { compileWindow, Evaluator, zoneRules } from "../../../src/schedule/index.ts";

const MIN = 60_000;
const BERLIN = zoneRules("Europe/Berlin");

/** Monday to Thursday, 08:00-17:00 Berlin, with a freeze on Thursdays from 12:00. */
function weekdays(): Evaluator {
  return new Evaluator([
    compileWindow("weekdays", {
      timeZone: "Europe/Berlin",
      schedules: [{ start: "0 8 * * MON-THU", duration: "9h" }],
      freezes: [{ start: "0 12 * * THU", duration: "12h", reason: "No deploys before the weekend" }],
    }),
  ]);
}

function upcomingAt(now: number, noticeMs: number, e = weekdays()): ReturnType<typeof upcomingNotice> {
  return upcomingNotice(e.stateAt(now).state, e.transitions(now, 16), noticeMs);
}

test("a closed window announces its next opening, notice before it", () => {
  const now = Date.parse("2026-11-23T05:00:00Z"); // Monday 06:00 CET
  const u = upcomingAt(now, 15 * MIN);
  assert.deepEqual(u, { transition: "Open", at: Date.parse("2026-11-23T07:00:00Z"), noticeAt: Date.parse("2026-11-23T06:45:00Z") });
});

test("an open window announces no closing: its next notice is the freeze that takes over, or the next opening", () => {
  // Monday 10:00: closes at 17:00 (not announced), opens Tuesday 08:00.
  assert.deepEqual(upcomingAt(Date.parse("2026-11-23T09:00:00Z"), 15 * MIN), {
    transition: "Open",
    at: Date.parse("2026-11-24T07:00:00Z"),
    noticeAt: Date.parse("2026-11-24T06:45:00Z"),
  });
  // Thursday 10:00: the freeze starts at 12:00 while the window is open.
  assert.deepEqual(upcomingAt(Date.parse("2026-11-26T09:00:00Z"), 30 * MIN), {
    transition: "Frozen",
    at: Date.parse("2026-11-26T11:00:00Z"),
    noticeAt: Date.parse("2026-11-26T10:30:00Z"),
  });
});

test("a freeze starting while the window is closed is announced too; a frozen window's next notice is its opening after the freeze", () => {
  const e = new Evaluator([
    compileWindow("w", { schedules: [{ start: "0 8 * * MON", duration: "2h" }], freezes: [{ from: "2026-11-28T00:00", to: "2026-11-29T00:00" }] }),
  ]);
  assert.equal(upcomingAt(Date.parse("2026-11-27T23:00:00Z"), 2 * 3_600_000, e)?.transition, "Frozen");
  // Frozen now: its end makes it closed (not announced), the opening Monday is.
  assert.deepEqual(upcomingAt(Date.parse("2026-11-28T12:00:00Z"), 15 * MIN, e), {
    transition: "Open",
    at: Date.parse("2026-11-30T08:00:00Z"),
    noticeAt: Date.parse("2026-11-30T07:45:00Z"),
  });
});

test("an override that freezes over the opening moves the notice to the opening after it", () => {
  const compiled = compileWindow("w", { schedules: [{ start: "0 8 * * *", duration: "9h" }] });
  const now = Date.parse("2026-11-23T06:00:00Z");
  const freeze = { name: "stop", window: "w", action: "Freeze" as const, start: now, end: Date.parse("2026-11-23T10:00:00Z"), reason: "incident" };
  const e = new Evaluator([compiled], [freeze]);
  // Frozen by the override until 10:00, when the schedule (open 08:00-17:00) takes over: the window opens at 10:00.
  assert.deepEqual(upcomingAt(now, 15 * MIN, e), { transition: "Open", at: freeze.end, noticeAt: freeze.end - 15 * MIN });
});

test("the notice is due from its moment until the transition, not before and not after", () => {
  const u = { transition: "Open" as const, at: 10 * MIN, noticeAt: 5 * MIN };
  assert.equal(noticeDue(u, 5 * MIN - 1), false);
  assert.equal(noticeDue(u, 5 * MIN), true);
  // Inside the notice period (a window created there, a controller that was down at the moment): due at once.
  assert.equal(noticeDue(u, 9 * MIN), true);
  assert.equal(noticeDue(u, 10 * MIN), false, "the transition has happened: nothing to announce");
});

test("no transition to announce: a window open all the time, one with nothing coming", () => {
  assert.equal(upcomingNotice("open", [], 15 * MIN), null);
  assert.equal(upcomingNotice("open", [{ at: 1, state: "closed" }], 15 * MIN), null);
});

const web: NoticeTarget = { namespace: "apps", name: "web", pendingRevision: "main@sha1:1a2b3c", heldBy: null };
const infra: NoticeTarget = { namespace: "apps", name: "infra", pendingRevision: null, heldBy: null };

test("each target's line names the revision that goes out, or that nothing waits", () => {
  assert.equal(noticeLine("Open", web), "apps/web: main@sha1:1a2b3c");
  assert.equal(noticeLine("Open", infra), "apps/infra: nothing waits");
  assert.equal(noticeLine("Frozen", web), "apps/web: main@sha1:1a2b3c waits and is held from then");
  assert.equal(noticeLine("Frozen", infra), "apps/infra: nothing waits");
  assert.equal(
    noticeLine("Open", { ...web, heldBy: 'Frozen by freeze "Holiday" (from 2026-12-20T00:00)' }),
    'apps/web: stays held (Frozen by freeze "Holiday" (from 2026-12-20T00:00)), main@sha1:1a2b3c waits',
  );
});

test("the window's notice says when, in the window's zone, and lists its targets in order, at most ten", () => {
  const at = Date.parse("2026-11-23T07:00:00Z");
  const u = { transition: "Open" as const, at, noticeAt: at - 15 * MIN };
  assert.equal(
    windowNotice(u, BERLIN, at - 15 * MIN, [web, infra]),
    "Opens Mon 2026-11-23 08:00 CET (in 15m): apps/infra: nothing waits; apps/web: main@sha1:1a2b3c",
  );
  // Announced late (inside the notice period), the time left is what is said.
  assert.match(windowNotice(u, BERLIN, at - 40_000, [web]), /\(in under a minute\)/);
  const many = Array.from({ length: 12 }, (_, i) => ({ ...infra, name: `t${String(i).padStart(2, "0")}` }));
  const text = windowNotice(u, BERLIN, u.noticeAt, many);
  assert.equal(text.split("; ").length, MAX_NOTICE_LINES + 1);
  assert.match(text, /; and 2 more$/);
  assert.equal(windowNotice({ ...u, transition: "Frozen" }, BERLIN, at - 2 * 3_600_000, []), "Freeze starts Mon 2026-11-23 08:00 CET (in 2h): no target");
});

test("a target's notice names its window and its own revision", () => {
  const at = Date.parse("2026-11-23T07:00:00Z");
  assert.equal(
    targetNotice("weekdays", { transition: "Open", at, noticeAt: at - 15 * MIN }, BERLIN, at - 15 * MIN, web),
    "Window weekdays opens Mon 2026-11-23 08:00 CET (in 15m): apps/web: main@sha1:1a2b3c",
  );
  assert.equal(
    targetNotice("weekdays", { transition: "Frozen", at, noticeAt: at - 15 * MIN }, BERLIN, at - 15 * MIN, infra),
    "Window weekdays: freeze starts Mon 2026-11-23 08:00 CET (in 15m): apps/infra: nothing waits",
  );
});
