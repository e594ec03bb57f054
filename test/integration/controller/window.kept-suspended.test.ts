// A target kept suspended while its window is open (a second writer keeps setting spec.suspend: true): the window's gauges count it from the first sighting,
// through fluxgate's re-asserts, until it has been resumed for a quiet minute.

import { KubernetesObjectApi, PatchStrategy } from "@kubernetes/client-node";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import type { Controller } from "../../../src/controller/controller.ts";
import { KEPT_SUSPENDED_QUIET_MS } from "../../../src/controller/state.ts";
import { ALWAYS, createKustomization, createWindow, getWindow, setup, startController, TestClock, waitForSuspend, type Setup } from "./helpers.ts";

const plane = sharedControlPlane();

async function gauges(c: Controller, s: Setup, window: string): Promise<{ count: number | undefined; since: number | undefined }> {
  const labels = (v: { labels: Record<string, string | number> }): boolean => v.labels.namespace === s.namespace && v.labels.name === window;
  const count = (await c.metrics.suspendedWhileOpen.get()).values.find(labels)?.value;
  const since = (await c.metrics.suspendedWhileOpenSince.get()).values.find(labels)?.value;
  return { count, since };
}

test("a target a second writer keeps suspended while its window is open moves fluxgate_window_targets_suspended_while_open and keeps its since", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw", { suspend: false });
  await createWindow(s, "open", { schedules: [ALWAYS], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const clock = new TestClock();
  const c = await startController(s, clock);
  const objects = s.cp.kubeConfig.makeApiClient(KubernetesObjectApi);
  // Someone's script that suspends the Kustomization the way `flux suspend` would, again and again.
  const suspend = async (): Promise<void> => {
    await objects.patch(
      { apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", metadata: { name: "apps-rw", namespace: s.namespace }, spec: { suspend: true } },
      undefined,
      undefined,
      "night-shift-script",
      true,
      PatchStrategy.ServerSideApply,
    );
  };
  try {
    await waitForSuspend(s, "apps-rw", false);
    await waitFor("the window reports its target open", async () => (await getWindow(s, "open")).status?.targets?.open === 1 || undefined);
    await c.settled();
    assert.deepEqual(await gauges(c, s, "open"), { count: 0, since: 0 }, "nothing kept suspended yet");

    const started = clock.now();
    // The script keeps at it until the gauge counts: fluxgate sets a single suspend back at once (a
    // parent's revert is answered without delay), so the window may never see that one.
    const first = await waitFor("the gauge counts the target", async () => {
      await suspend();
      const g = await gauges(c, s, "open");
      return g.count === 1 ? g : undefined;
    });
    assert.ok(
      first.since !== undefined && first.since * 1000 >= started - 1_000 && first.since * 1000 <= clock.now(),
      `since ${String(first.since)} is when it was first seen`,
    );

    // The writer keeps at it for 8 s while fluxgate re-asserts (with back-off): one stretch, the same since.
    let samples = 0;
    const end = Date.now() + 8_000;
    while (Date.now() < end) {
      await suspend();
      await sleep(300);
      const g = await gauges(c, s, "open");
      assert.deepEqual(g, first, "still counted, since unchanged");
      samples++;
    }
    assert.ok(samples >= 10, `${samples} samples`);

    // The writer stops: fluxgate resumes the target; it stops counting once it has stayed resumed for the quiet minute.
    await waitForSuspend(s, "apps-rw", false, 40_000);
    // The window looks at its targets a second after they change (debounced).
    await sleep(1_500);
    await c.settled();
    assert.deepEqual(await gauges(c, s, "open"), first, "a resume shorter than the quiet minute does not end the stretch");
    clock.set(clock.now() + KEPT_SUSPENDED_QUIET_MS + 1_000);
    await waitFor("the gauge back to 0", async () => ((await gauges(c, s, "open")).count === 0 ? true : undefined), { timeoutMs: 20_000 });
    assert.deepEqual(await gauges(c, s, "open"), { count: 0, since: 0 });
  } finally {
    await c.stop();
  }
});
