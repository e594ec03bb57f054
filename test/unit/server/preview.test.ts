// POST /preview: the editor's validation as you type and its preview of the next openings, without writing anything.
/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are untyped JSON, checked field by field */

import assert from "node:assert/strict";
import { test } from "node:test";
import { assertUntouched, fixture } from "../../support/server.ts";

test("a valid spec gives its next openings and a 7-day timeline", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const before = await f.repository.head();
  const r = await f.call("POST", "/api/v1/preview", {
    token: f.tokens.viewer,
    body: {
      spec: { timeZone: "Europe/Berlin", schedules: [{ start: "0 22 * * *", duration: "2h" }], freezes: [{ start: "0 0 * * FRI", duration: "24h" }] },
      count: 3,
    },
  });
  assert.equal(r.status, 200);
  assert.equal(r.body.timeZone, "Europe/Berlin");
  // 22:00 Berlin is 21:00Z in winter; Thursday night's window is cut by Friday's freeze at 23:00Z.
  assert.deepEqual(r.body.nextOpenings, [
    { start: "2026-11-23T21:00:00Z", end: "2026-11-23T23:00:00Z" },
    { start: "2026-11-24T21:00:00Z", end: "2026-11-24T23:00:00Z" },
    { start: "2026-11-25T21:00:00Z", end: "2026-11-25T23:00:00Z" },
  ]);
  assert.equal(r.body.timeline.open.length, 6, "7 nights less the one the freeze cuts");
  await assertUntouched(f, before);
});

test("the next openings are as many as asked, however many freezes come between them", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  // Sundays 02:00-06:00, and a freeze every day at noon: 16 changes a week, more than a fixed number of transitions covers for three Sundays.
  const r = await f.call("POST", "/api/v1/preview", {
    token: f.tokens.viewer,
    body: {
      spec: { timeZone: "Europe/Berlin", schedules: [{ start: "0 2 * * SUN", duration: "4h" }], freezes: [{ start: "0 12 * * *", duration: "1h" }] },
      count: 3,
    },
  });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body.nextOpenings, [
    { start: "2026-11-29T01:00:00Z", end: "2026-11-29T05:00:00Z" },
    { start: "2026-12-06T01:00:00Z", end: "2026-12-06T05:00:00Z" },
    { start: "2026-12-13T01:00:00Z", end: "2026-12-13T05:00:00Z" },
  ]);
});

test("a recurrence window previews its starts; an impossible rule, or one that needs a first date, is 400 at its field and writes nothing", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const before = await f.repository.head();
  // The second Sunday, 02:30 New York: 8 March 2026 is the day the clocks go forward, and 02:30 is read as RFC 5545 reads it (03:30 EDT).
  const ok = await f.call("POST", "/api/v1/preview", {
    token: f.tokens.viewer,
    body: {
      spec: { timeZone: "America/New_York", schedules: [{ recurrence: "FREQ=MONTHLY;BYDAY=2SU", at: "02:30", duration: "1h" }] },
      from: "2026-02-01T00:00:00Z",
      to: "2026-02-08T00:00:00Z",
      count: 3,
    },
  });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.deepEqual(ok.body.nextOpenings, [
    { start: "2026-02-08T07:30:00Z", end: "2026-02-08T08:30:00Z" },
    { start: "2026-03-08T07:30:00Z", end: "2026-03-08T08:30:00Z" },
    { start: "2026-04-12T06:30:00Z", end: "2026-04-12T07:30:00Z" },
  ]);
  const bad = await f.call("POST", "/api/v1/preview", {
    token: f.tokens.viewer,
    body: {
      spec: {
        schedules: [{ recurrence: "FREQ=MONTHLY;BYMONTHDAY=31;BYMONTH=2", at: "02:00", duration: "4h" }],
        freezes: [{ recurrence: "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU", at: "25:00", duration: "24h" }],
      },
    },
  });
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body.error.problems, [
    { path: "spec.schedules[0].recurrence", message: "never occurs: no day of any year matches all of its parts (e.g. BYMONTH=2 with BYMONTHDAY=30)" },
    { path: "spec.freezes[0].at", message: bad.body.error.problems[1]?.message },
  ]);
  assert.match(bad.body.error.problems[1]?.message ?? "", /25:00/);
  const noStart = await f.call("POST", "/api/v1/preview", {
    token: f.tokens.viewer,
    body: { spec: { freezes: [{ recurrence: "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU", at: "00:00", duration: "24h" }] } },
  });
  assert.equal(noStart.status, 400);
  assert.deepEqual(noStart.body.error.problems, [
    { path: "spec.freezes[0].dtstart", message: "needs dtstart, the first date: INTERVAL=2 counts periods from it" },
  ]);
  await assertUntouched(f, before);
});

test("an invalid spec is 400 with each problem at its field path", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const r = await f.call("POST", "/api/v1/preview", {
    body: { spec: { timeZone: "Mars/Olympus", schedules: [{ start: "0 8 * * MON" }, { start: "0 8 30 2 *", duration: "1h" }] } },
  });
  assert.equal(r.status, 400);
  const problems = Object.fromEntries(r.body.error.problems.map((p: any) => [p.path, p.message]));
  assert.ok(problems["spec.timeZone"], JSON.stringify(problems));
  assert.ok(problems["spec.schedules[0]"], JSON.stringify(problems));
  const never = await f.call("POST", "/api/v1/preview", { body: { spec: { schedules: [{ start: "0 8 30 2 *", duration: "1h" }] } } });
  assert.equal(never.status, 400);
  assert.equal(never.body.error.problems[0].path, "spec.schedules[0].start");
  const targets = await f.call("POST", "/api/v1/preview", {
    body: { spec: { schedules: [{ start: "@daily", duration: "1h" }], targets: [{ kind: "Kustomization" }] } },
  });
  assert.equal(targets.status, 400);
  assert.deepEqual(
    targets.body.error.problems.map((p: any) => p.path),
    ["spec.targets[0]"],
  );
  const notObject = await f.call("POST", "/api/v1/preview", { body: { spec: "0 8 * * MON" } });
  assert.equal(notObject.status, 400);
});
