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
