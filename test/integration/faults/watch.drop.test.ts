// Fault: watch connections dropped and refused (a fault-injecting proxy): informers come back with backoff and miss nothing.

import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { sharedControlPlane } from "../../harness/index.ts";
import { startFaultProxy } from "../../harness/fault-proxy.ts";
import { createKustomization, createWindow, setup, waitForSuspend, YEARLY } from "../controller/helpers.ts";
import { counter, startControllerVia, targetsLabelled } from "./helpers.ts";

const plane = sharedControlPlane();

test("cut watches are re-established and changes made meanwhile are seen; refused watches are retried with a growing backoff", async () => {
  const s = await setup(plane());
  const proxy = await startFaultProxy(s.cp);
  await createWindow(s, "closed", { schedules: [YEARLY], targets: targetsLabelled("closed") });
  await createKustomization(s, "first", { labels: { "fluxgate.io/window": "closed" } });
  const c = await startControllerVia(s, proxy.kubeConfigFor(s.controllerKubeConfig));
  try {
    await waitForSuspend(s, "first", true);
    const informers = proxy.openWatches;
    assert.ok(informers >= 4, `the controller watches windows, overrides, targets and sources (${informers} watches open)`);

    // Cut every watch, then change something only a watch tells: a new target of the closed window.
    const seenAfter: number[] = [];
    for (let round = 0; round < 5; round++) {
      assert.equal(proxy.cutWatches(), informers, "every informer had its watch open again");
      const changed = Date.now();
      await createKustomization(s, `late-${round}`, { labels: { "fluxgate.io/window": "closed" } });
      seenAfter.push((await waitForSuspend(s, `late-${round}`, true, 10_000)) - changed);
      await until(() => proxy.openWatches === informers);
    }
    const cutErrors = await counter(c, "fluxgate_errors_total", { operation: "watch" });
    assert.ok(cutErrors >= 5 * informers, `every cut watch counts as an error (${cutErrors})`);

    // Now the API server refuses watches for 4 s: retries back off (0.5 s, 1 s, 2 s, ...), no hot loop.
    const faultMs = 4_000;
    const start = Date.now();
    proxy.inject({ code: 500, ms: faultMs, methods: ["GET"], watches: true });
    proxy.cutWatches();
    await createKustomization(s, "during-fault", { labels: { "fluxgate.io/window": "closed" } });
    const suspended = await waitForSuspend(s, "during-fault", true, 30_000);
    const attempts = new Map<string, number>();
    for (const r of proxy.requests) if (r.watch && r.at >= start && r.at < start + faultMs) attempts.set(r.path, (attempts.get(r.path) ?? 0) + 1);
    const most = Math.max(...attempts.values());
    // 0.5 + 1 + 2 s of backoff fit in 4 s: three attempts per informer, a fourth with jitter of the timers.
    assert.ok(most <= 4, `at most 4 watch attempts per informer in ${faultMs} ms of refusals (${JSON.stringify(Object.fromEntries(attempts))})`);
    const refused = proxy.requests.filter((r) => r.watch && r.injected).length;
    assert.ok((await counter(c, "fluxgate_errors_total", { operation: "watch" })) >= cutErrors + refused, "refused watches count as errors");
    const recovered = suspended - (start + faultMs);
    process.stdout.write(
      `# changes seen ${JSON.stringify(seenAfter)} ms after a cut; ${recovered} ms after 4 s of refused watches; ${most} attempts per informer\n`,
    );
    // The last backoff before the fault ended was 2 s (the next one 4 s): seen within one more backoff step.
    assert.ok(recovered < 5_000, `seen ${recovered} ms after the API server answered watches again`);
  } finally {
    await c.stop();
    await proxy.close();
  }
});

test("a controller stopped while its informers are reconnecting leaves no watch open behind", async () => {
  const s = await setup(plane());
  const proxy = await startFaultProxy(s.cp);
  await createWindow(s, "closed", { schedules: [YEARLY], targets: targetsLabelled("closed") });
  const c = await startControllerVia(s, proxy.kubeConfigFor(s.controllerKubeConfig));
  try {
    const informers = proxy.openWatches;
    assert.ok(informers >= 4);
    // Watches answered slowly: the informers' new watch requests are on their way when the controller stops.
    proxy.inject({ delayMs: 1_500, ms: 10_000, methods: ["GET"], watches: true });
    proxy.cutWatches();
    await until(() => proxy.requests.filter((r) => r.watch).length >= 2 * informers);
  } finally {
    await c.stop();
  }
  try {
    await sleep(2_500);
    assert.equal(proxy.openWatches, 0, "a watch opened after the stop was closed too (a watch left open keeps the process from exiting)");
  } finally {
    await proxy.close();
  }
});

async function until(ok: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the watches to reopen");
    await new Promise((r) => setTimeout(r, 20));
  }
}
