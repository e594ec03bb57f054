// Transitions: at real scheduled instants to within a second, with an injected clock, across restarts and downtime.

import assert from "node:assert/strict";
import { test } from "node:test";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import { createKustomization, createWindow, getWindow, setup, startController, TestClock, waitForSuspend } from "./helpers.ts";

const plane = sharedControlPlane();

/** The next whole minute at least `marginMs` ahead, as a UTC cron field pair "M H". */
function nextMinute(marginMs: number): { at: number; cron: string } {
  const at = Math.ceil((Date.now() + marginMs) / 60_000) * 60_000;
  const d = new Date(at);
  return { at, cron: `${d.getUTCMinutes()} ${d.getUTCHours()} ${d.getUTCDate()} ${d.getUTCMonth() + 1} *` };
}

test("a window opens and closes at its real scheduled instants, within a second", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  const { at, cron } = nextMinute(5_000);
  await createWindow(s, "short", { schedules: [{ start: cron, duration: "10s" }], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const c = await startController(s);
  try {
    await waitForSuspend(s, "apps-rw", true);
    const opened = await waitForSuspend(s, "apps-rw", false, at - Date.now() + 10_000);
    assert.ok(opened - at < 1_000, `opened ${opened - at} ms after the scheduled instant`);
    assert.ok(opened >= at, "never before the scheduled instant");
    const closed = await waitForSuspend(s, "apps-rw", true, 20_000);
    assert.ok(closed - (at + 10_000) < 1_000, `closed ${closed - at - 10_000} ms after the scheduled end`);
    assert.ok(closed >= at + 10_000);
  } finally {
    await c.stop();
  }
});

test("with an injected clock, decisions follow the clock, also when it jumps back", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await createWindow(s, "weekdays", {
    timeZone: "Europe/Berlin",
    schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }],
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
  });
  const clock = new TestClock();
  clock.set(Date.parse("2026-11-23T06:00:00.000Z")); // Monday 07:00 CET: closed
  const c = await startController(s, clock);
  try {
    await waitForSuspend(s, "apps-rw", true);
    // One second before the opening (set once the controller runs, however long it took to start):
    // the timer at the next transition fires by itself one second later.
    clock.set(Date.parse("2026-11-23T06:59:59.000Z"));
    c.resync();
    await waitForSuspend(s, "apps-rw", false, 5_000);
    const open = await waitFor("status Open", async () => {
      const w = await getWindow(s, "weekdays");
      return w.status?.state === "Open" ? w : undefined;
    });
    assert.equal(open.status?.nextClose, "2026-11-26T16:00:00Z");
    clock.set(Date.parse("2026-11-27T10:00:00Z")); // Friday: closed
    c.resync();
    await waitForSuspend(s, "apps-rw", true, 5_000);
    clock.set(Date.parse("2026-11-24T10:00:00Z")); // back to Tuesday: open
    c.resync();
    await waitForSuspend(s, "apps-rw", false, 5_000);
  } finally {
    await c.stop();
  }
});

test("a restart in the middle of a window converges at once", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await createWindow(s, "weekdays", { schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const clock = new TestClock();
  clock.set(Date.parse("2026-11-22T12:00:00Z")); // Sunday: closed
  const first = await startController(s, clock);
  await waitForSuspend(s, "apps-rw", true);
  await first.stop();
  // While the controller is down, the window opens.
  clock.set(Date.parse("2026-11-24T12:00:00Z"));
  const started = Date.now();
  const second = await startController(s, clock);
  try {
    const opened = await waitForSuspend(s, "apps-rw", false, 5_000);
    assert.ok(opened - started < 2_000, `converged ${opened - started} ms after start`);
  } finally {
    await second.stop();
  }
});

test("a controller down across a whole window leaves the target closed, and says when it opens next", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await createWindow(s, "weekdays", { schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const clock = new TestClock();
  clock.set(Date.parse("2026-11-22T12:00:00Z")); // Sunday before
  const first = await startController(s, clock);
  await waitForSuspend(s, "apps-rw", true);
  await first.stop();
  clock.set(Date.parse("2026-11-28T12:00:00Z")); // the Saturday after: the window came and went
  const second = await startController(s, clock);
  try {
    const w = await waitFor("status after restart", async () => {
      const got = await getWindow(s, "weekdays");
      return got.status?.nextOpen === "2026-11-30T08:00:00Z" ? got : undefined;
    });
    assert.equal(w.status?.state, "Closed");
    await second.settled();
    await waitForSuspend(s, "apps-rw", true, 1_000);
  } finally {
    await second.stop();
  }
});
