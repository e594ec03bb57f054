// Closing waits for a reconciliation in flight, bounded by closeGracePeriod.

import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { sharedControlPlane } from "../../harness/index.ts";
import {
  createKustomization,
  createWindow,
  getKustomization,
  KUSTOMIZATIONS,
  setup,
  startController,
  TestClock,
  waitForSuspend,
  type Setup,
} from "./helpers.ts";

const plane = sharedControlPlane();

async function setReconciling(s: Setup, name: string, reconciling: boolean): Promise<void> {
  const conditions = reconciling
    ? [
        {
          type: "Reconciling",
          status: "True",
          reason: "Progressing",
          message: "applying",
          lastTransitionTime: new Date().toISOString().replace(/\.\d+Z/, "Z"),
        },
        { type: "Ready", status: "Unknown", reason: "Progressing", message: "applying", lastTransitionTime: new Date().toISOString().replace(/\.\d+Z/, "Z") },
      ]
    : [
        {
          type: "Ready",
          status: "True",
          reason: "ReconciliationSucceeded",
          message: "Applied",
          lastTransitionTime: new Date().toISOString().replace(/\.\d+Z/, "Z"),
        },
      ];
  await s.custom.patchNamespacedCustomObjectStatus({
    ...KUSTOMIZATIONS,
    namespace: s.namespace,
    name,
    body: [{ op: "add", path: "/status", value: { conditions } }],
  });
}

test("a close waits while Flux is applying and suspends as soon as it is done", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await createWindow(s, "weekdays", {
    schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }],
    closeGracePeriod: "5m",
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
  });
  // Flux is applying from before the close, however long the controller takes to start on a busy machine.
  await setReconciling(s, "apps-rw", true);
  const clock = new TestClock();
  clock.set(Date.parse("2026-11-26T16:59:58Z")); // two seconds before Thursday 17:00 UTC
  const c = await startController(s, clock);
  try {
    await sleep(Date.parse("2026-11-26T17:00:02Z") - clock.now()); // the window closed two seconds ago
    assert.notEqual((await getKustomization(s, "apps-rw")).spec?.suspend, true, "not suspended while an apply is in flight");
    await setReconciling(s, "apps-rw", false);
    const done = Date.now();
    const suspended = await waitForSuspend(s, "apps-rw", true, 5_000);
    assert.ok(suspended - done < 1_500, `suspended ${suspended - done} ms after the apply finished`);
  } finally {
    await c.stop();
  }
});

test("a close suspends anyway once the grace period is over", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await createWindow(s, "weekdays", {
    schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }],
    closeGracePeriod: "3s",
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
  });
  await setReconciling(s, "apps-rw", true);
  const clock = new TestClock();
  clock.set(Date.parse("2026-11-26T16:59:59Z"));
  const c = await startController(s, clock);
  try {
    const closeAt = Date.now() + (Date.parse("2026-11-26T17:00:00Z") - clock.now());
    const suspended = await waitForSuspend(s, "apps-rw", true, 10_000);
    const waited = suspended - closeAt;
    // Not before the grace period is over; soon after it (the controller is due at that instant).
    assert.ok(waited >= 2_900 && waited < 6_000, `suspended ${waited} ms after the close with a 3 s grace period`);
  } finally {
    await c.stop();
  }
});
