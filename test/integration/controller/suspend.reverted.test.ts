// Another field manager flipping spec.suspend back: reported by event and condition, with bounded writes, no hot loop.

import { KubernetesObjectApi, PatchStrategy } from "@kubernetes/client-node";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import { createKustomization, createWindow, eventsOf, getWindow, kustomizationWrites, setup, startController, waitForSuspend, YEARLY } from "./helpers.ts";

const plane = sharedControlPlane();

test("a parent-style writer setting suspend: false is named in a Warning event and a condition, and fluxgate backs off", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await createWindow(s, "closed", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const c = await startController(s);
  const objects = s.cp.kubeConfig.makeApiClient(KubernetesObjectApi);
  const revert = async (): Promise<void> => {
    // What kustomize-controller does when a parent Kustomization's manifest says suspend: false.
    await objects.patch(
      { apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", metadata: { name: "apps-rw", namespace: s.namespace }, spec: { suspend: false } },
      undefined,
      undefined,
      "kustomize-controller",
      true,
      PatchStrategy.ServerSideApply,
    );
  };
  try {
    await waitForSuspend(s, "apps-rw", true);
    const writes = (): Promise<number> => kustomizationWrites(c);
    // The first suspend is counted when its answer is read, which may be after the object shows it.
    const before = await waitFor("the first suspend counted", async () => {
      const n = await writes();
      return n >= 1 ? n : undefined;
    });
    const end = Date.now() + 10_000;
    while (Date.now() < end) {
      await revert();
      await sleep(500);
    }
    const during = (await writes()) - before;
    // Against reverts at 0, 0.5, 1, 1.5 s ...: the first two are answered at once, the third starts the
    // hot loop, then 1 s, 2 s, 4 s, 8 s after each write: writes near 0, 0.5, 1.5, 3.5 and 7.5 s, 5 of 20.
    assert.ok(during <= 5, `fluxgate wrote ${during} times in 10 s against a writer reverting every 500 ms`);
    assert.ok(during >= 2, `fluxgate re-asserted the window (${during} writes)`);
    const warning = await waitFor("SuspendReverted event", async () => {
      const events = await eventsOf(s, "SuspendReverted");
      return events.find((e) => e.kind === "Kustomization") ?? undefined;
    });
    assert.equal(warning.type, "Warning");
    assert.match(warning.message, /by manager "kustomize-controller"/);
    const w = await waitFor("condition", async () => {
      const got = await getWindow(s, "closed");
      return got.status?.conditions?.find((cond) => cond.type === "SuspendReverted" && cond.status === "True");
    });
    assert.match(w.message, /kustomize-controller/);
    const counter = await c.metrics.registry.getSingleMetricAsString("fluxgate_suspend_reverted_total");
    assert.match(counter, /fluxgate_suspend_reverted_total [1-9]/);
  } finally {
    await c.stop();
  }
});
