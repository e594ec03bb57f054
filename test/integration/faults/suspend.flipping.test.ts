// Fault: other writers flip spec.suspend back every second for 20 s: fluxgate's writes stay bounded and the fight is reported.

import { KubernetesObjectApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import { startFaultProxy } from "../../harness/fault-proxy.ts";
import { createWindow, eventsOf, getWindow, KUSTOMIZATIONS, setup, YEARLY, type Setup } from "../controller/helpers.ts";
import { counter, createTargets, startControllerVia, targetsLabelled, waitAllSuspend } from "./helpers.ts";

const plane = sharedControlPlane();

const FIGHT_MS = 20_000;
const FLIP_EVERY_MS = 1_000;

/** What kustomize-controller does when a parent Kustomization's manifest says suspend: false (server-side apply). */
async function parentApplies(s: Setup, name: string): Promise<void> {
  await s.cp.kubeConfig
    .makeApiClient(KubernetesObjectApi)
    .patch(
      { apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", metadata: { name, namespace: s.namespace }, spec: { suspend: false } },
      undefined,
      undefined,
      "kustomize-controller",
      true,
      PatchStrategy.ServerSideApply,
    );
}

/** What `flux resume` or `kubectl patch` does: a merge patch, an Update by another manager. */
async function personPatches(s: Setup, name: string): Promise<void> {
  await s.custom.patchNamespacedCustomObject(
    { ...KUSTOMIZATIONS, namespace: s.namespace, name, body: { spec: { suspend: false } }, fieldManager: "flux" },
    setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
  );
}

test("two writers flipping suspend back every second for 20 s: fluxgate backs off (bounded writes per target), reports SuspendReverted naming each", async () => {
  const s = await setup(plane());
  const proxy = await startFaultProxy(s.cp);
  const names = await createTargets(s, "app", 4, "closed");
  await createWindow(s, "closed", { schedules: [YEARLY], targets: targetsLabelled("closed") });
  const c = await startControllerVia(s, proxy.kubeConfigFor(s.controllerKubeConfig));
  try {
    await waitAllSuspend(s, names, true, 20_000);
    const writer = (name: string): Promise<void> => (names.indexOf(name) % 2 === 0 ? parentApplies(s, name) : personPatches(s, name));
    const start = Date.now();
    while (Date.now() < start + FIGHT_MS) {
      const tick = Date.now();
      await Promise.all(names.map(writer));
      await sleep(Math.max(0, tick + FLIP_EVERY_MS - Date.now()));
    }
    const end = Date.now();
    const writes = names.map(
      (n) => proxy.requests.filter((r) => r.method === "PATCH" && r.path.endsWith(`/kustomizations/${n}`) && r.at >= start && r.at < end).length,
    );
    // Backoff 1, 2, 4, 8, 16 s after each revert: writes at about 0, 1, 3, 7 and 15 s of the fight.
    for (const [i, n] of writes.entries()) {
      assert.ok(n <= 6, `${names[i]}: ${n} writes in ${FIGHT_MS / 1000} s against ${FIGHT_MS / FLIP_EVERY_MS} reverts`);
      assert.ok(n >= 3, `${names[i]}: fluxgate re-asserted the window (${n} writes)`);
    }
    // The window's status follows the targets, never faster than they change.
    const statusWrites = proxy.requests.filter(
      (r) => r.method === "PATCH" && r.path.endsWith("/reconciliationwindows/closed/status") && r.at >= start && r.at < end,
    ).length;
    assert.ok(statusWrites <= FIGHT_MS / FLIP_EVERY_MS + 2, `${statusWrites} status writes in ${FIGHT_MS / 1000} s`);

    const warnings = await waitFor("SuspendReverted on every target and the window", async () => {
      const events = await eventsOf(s, "SuspendReverted");
      return names.every((n) => events.some((e) => e.name === n)) && events.some((e) => e.kind === "ReconciliationWindow") ? events : undefined;
    });
    for (const [i, name] of names.entries()) {
      const mine = warnings.filter((e) => e.name === name);
      assert.equal(mine.length, 1, `${name}: one event for the fight, not one per revert`);
      assert.equal(mine[0]?.type, "Warning");
      assert.match(mine[0]?.message ?? "", i % 2 === 0 ? /by manager "kustomize-controller"/ : /by manager "flux"/);
    }
    const w = await getWindow(s, "closed");
    const condition = w.status?.conditions?.find((cond) => cond.type === "SuspendReverted");
    assert.equal(condition?.status, "True");
    assert.ok((await counter(c, "fluxgate_suspend_reverted_total")) >= names.length, "fluxgate_suspend_reverted_total counts the reverts");
    process.stdout.write(
      `# writes per target ${JSON.stringify(writes)}, window status writes ${statusWrites}, in ${FIGHT_MS / 1000} s of flips every ${FLIP_EVERY_MS} ms\n`,
    );
  } finally {
    await c.stop();
    await proxy.close();
  }
});
