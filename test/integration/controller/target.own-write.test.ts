// A target's own write coming back by the watch: one write and one reconcile per target, and a later change by someone else still set back.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { FluxObject } from "../../../src/kube/flux.ts";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import {
  KUSTOMIZATIONS,
  createKustomization,
  getKustomization,
  createWindow,
  kustomizationWrites,
  setup,
  startController,
  TestClock,
  waitForSuspend,
} from "./helpers.ts";

const plane = sharedControlPlane();

const TARGETS = 10;

async function targetReconciles(c: Awaited<ReturnType<typeof startController>>): Promise<number> {
  return (await c.metrics.reconciles.get()).values.find((v) => v.labels.kind === "Target")?.value ?? 0;
}

test("at a transition each target is written once, its write's watch event does not bring it back, and a later revert is set back", async () => {
  const s = await setup(plane());
  const names = Array.from({ length: TARGETS }, (_, i) => `app-${i}`);
  for (const name of names) await createKustomization(s, name, { labels: { tier: "apps" } });
  await createWindow(s, "weekdays", {
    schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }],
    targets: [{ kind: "Kustomization", labelSelector: { matchLabels: { tier: "apps" } } }],
  });
  const clock = new TestClock();
  clock.set(Date.parse("2026-11-22T12:00:00Z")); // Sunday: closed
  const c = await startController(s, clock);
  try {
    for (const name of names) await waitForSuspend(s, name, true);
    await c.settled();
    const [reconcilesBefore, writesBefore] = [await targetReconciles(c), await kustomizationWrites(c)];
    const jumpsBefore = (await c.metrics.clockJumps.get()).values[0]?.value ?? 0;
    clock.set(Date.parse("2026-11-24T12:00:00Z")); // Tuesday: open
    // The controller sees the clock jump within a second and re-plans everything once: one reconcile of each target, which
    // writes it. (A resync of the test's own besides would race that one, and add up to one reconcile per target.)
    await waitFor("the controller to see the clock jump", async () => ((await c.metrics.clockJumps.get()).values[0]?.value ?? 0) > jumpsBefore || undefined);
    for (const name of names) await waitForSuspend(s, name, false, 10_000);
    await c.settled();
    const reconciles = (await targetReconciles(c)) - reconcilesBefore;
    assert.equal((await kustomizationWrites(c)) - writesBefore, TARGETS, "one write per target");
    // Each write's watch event used to bring its target back: 2 reconciles per target. It is known now by the version the
    // API server answered, also when it arrives before the answer is read (kept until then): one reconcile per target.
    assert.equal(reconciles, TARGETS, `${reconciles} reconciles of ${TARGETS} targets`);
    // A later change by someone else still is reconciled: set back at once.
    const reverted = (await s.custom.patchNamespacedCustomObject({
      ...KUSTOMIZATIONS,
      namespace: s.namespace,
      name: "app-0",
      body: [{ op: "replace", path: "/spec/suspend", value: true }],
    })) as FluxObject;
    const after = await waitFor("app-0 set back after the revert", async () => {
      const k = await getKustomization(s, "app-0");
      return k.metadata?.resourceVersion !== reverted.metadata?.resourceVersion && k.spec?.suspend === false ? k : undefined;
    });
    assert.equal(after.spec?.suspend, false);
  } finally {
    await c.stop();
  }
});
