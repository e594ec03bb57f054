// Fault: the API server answers 500 and then 409 to every write across a transition (a fault-injecting proxy): backoff, convergence, metrics.

import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import { startFaultProxy, WRITE_METHODS, type FaultProxy } from "../../harness/fault-proxy.ts";
import { ALWAYS, createWindow, eventsOf, getWindow, setup, type Setup } from "../controller/helpers.ts";
import { counter, createTargets, setFreezes, startControllerVia, targetsLabelled, utc, waitAllSuspend } from "./helpers.ts";

const plane = sharedControlPlane();

const TARGETS = 10;
/** Each fault starts this long before its transition and lasts FAULT_MS. */
const LEAD_MS = 1_000;
const FAULT_MS = 4_000;

/** Apply attempts per target (PATCH of one Kustomization) within [from, to). */
function attemptsPerTarget(proxy: FaultProxy, from: number, to: number): number[] {
  const per = new Map<string, number>();
  for (const r of proxy.requests) {
    if (r.method === "PATCH" && r.path.includes("/kustomizations/") && r.at >= from && r.at < to) per.set(r.path, (per.get(r.path) ?? 0) + 1);
  }
  return [...per.values()];
}

async function transitionEvents(s: Setup): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const reason of ["WindowOpened", "WindowClosed"]) {
    for (const e of await eventsOf(s, reason)) out.set(`${e.kind}/${e.name}`, [...(out.get(`${e.kind}/${e.name}`) ?? []), reason]);
  }
  return out;
}

test("500s and then 409s on every write across two transitions: retries back off, targets converge, errors are counted, no event lost or doubled", async () => {
  const s = await setup(plane());
  const proxy = await startFaultProxy(s.cp);
  const names = await createTargets(s, "app", TARGETS, "w");
  await createWindow(s, "w", { schedules: [ALWAYS], targets: targetsLabelled("w") });
  const c = await startControllerVia(s, proxy.kubeConfigFor(s.controllerKubeConfig));
  try {
    await waitFor("the window Open", async () => ((await getWindow(s, "w")).status?.state === "Open" ? true : undefined));
    // Frozen from T1 to T2: one transition under 500s, one under 409s.
    const t1 = Math.ceil((Date.now() + LEAD_MS + 1_000) / 1000) * 1000;
    const t2 = t1 + 9_000;
    await setFreezes(s, "w", [{ from: utc(t1), to: utc(t2), reason: "fault drill" }]);
    const measured: Record<string, number> = {};
    for (const [code, at, suspend] of [
      [500, t1, true],
      [409, t2, false],
    ] as const) {
      await sleep(at - LEAD_MS - Date.now());
      const start = Date.now();
      const failedBefore = await counter(c, "fluxgate_errors_total", { operation: "reconcile-Target" });
      proxy.inject({ code, ms: FAULT_MS, methods: WRITE_METHODS });
      const end = start + FAULT_MS;
      const converged = await waitAllSuspend(s, names, suspend, 30_000);
      assert.ok(converged >= end, "nothing converged through the fault");
      measured[`after${code}`] = converged - end;
      // Backoff from 200 ms, doubling: 0.2 + 0.4 + 0.8 + 1.6 s fit in the 3 s of fault after the transition.
      const attempts = attemptsPerTarget(proxy, start, end);
      assert.equal(attempts.length, TARGETS, `every target was tried during the ${code}s`);
      measured[`writesPerTarget${code}`] = Math.max(...attempts);
      assert.ok(Math.max(...attempts) <= 6, `at most 6 writes per target in ${FAULT_MS} ms of ${code}s (${attempts.join(", ")})`);
      // The next retry after the fault comes within one backoff step (≤ 3.2 s, jitter 20 %).
      assert.ok(converged - end < 4_500, `converged ${converged - end} ms after the ${code}s ended`);
      const failed = (await counter(c, "fluxgate_errors_total", { operation: "reconcile-Target" })) - failedBefore;
      assert.ok(failed >= TARGETS, `fluxgate_errors_total{operation="reconcile-Target"} rose by ${failed}`);
      assert.ok(
        (await counter(c, "fluxgate_api_requests_total", { verb: "apply", resource: "kustomizations", code: String(code) })) >= TARGETS,
        `fluxgate_api_requests_total counts the ${code}s`,
      );
    }
    const w = await waitFor("the window Open again", async () => {
      const got = await getWindow(s, "w");
      return got.status?.state === "Open" ? got : undefined;
    });
    assert.equal(w.status?.nextClose, undefined, "nothing else is scheduled");
    // Every announcement happened once: the window's two transitions and each target's two.
    await c.settled();
    await sleep(500);
    const events = await transitionEvents(s);
    assert.deepEqual(events.get("ReconciliationWindow/w")?.sort(), ["WindowClosed", "WindowOpened"], "the window: one event per transition");
    for (const name of names)
      assert.deepEqual(events.get(`Kustomization/${name}`)?.sort(), ["WindowClosed", "WindowOpened"], `${name}: one event per transition`);
    process.stdout.write(`# ${JSON.stringify(measured)}: converged (ms) after 4 s of injected errors, most writes to one target during them\n`);
  } finally {
    await c.stop();
    await proxy.close();
  }
});

test("events refused with 500s for 8 s from a transition while the targets' writes pass: each target's event and the window's recorded once, after the fault", async () => {
  const s = await setup(plane());
  const proxy = await startFaultProxy(s.cp);
  const names = await createTargets(s, "ev", TARGETS, "e");
  await createWindow(s, "e", { schedules: [ALWAYS], targets: targetsLabelled("e") });
  const c = await startControllerVia(s, proxy.kubeConfigFor(s.controllerKubeConfig));
  try {
    await waitFor("the window Open", async () => ((await getWindow(s, "e")).status?.state === "Open" ? true : undefined));
    await c.settled();
    const t1 = Math.ceil((Date.now() + LEAD_MS + 1_000) / 1000) * 1000;
    await setFreezes(s, "e", [{ from: utc(t1), to: utc(t1 + 3_600_000), reason: "fault drill" }]);
    await sleep(t1 - LEAD_MS - Date.now());
    const start = Date.now();
    // Longer than the other faults, so that on a slow machine too every target's first try meets it; the tries span 25 to 37 s.
    proxy.inject({ code: 500, ms: 2 * FAULT_MS, methods: ["POST"], paths: /\/events$/ });
    await waitAllSuspend(s, names, true, 30_000);
    // The window's event is tried again by its reconcile (the status waits for it), on the queue's backoff.
    await waitFor("the window's event", async () => ((await eventsOf(s, "WindowClosed")).some((e) => e.kind === "ReconciliationWindow") ? true : undefined), {
      timeoutMs: 45_000,
    });
    await c.settled();
    const refused = proxy.requests.filter((r) => r.injected && r.at >= start && r.path.endsWith("/events"));
    const refusedTargets = new Set(
      refused
        .map((r) => (JSON.parse(r.body ?? "{}") as { involvedObject?: { kind?: string; name?: string } }).involvedObject)
        .filter((o) => o?.kind === "Kustomization")
        .map((o) => o?.name),
    );
    assert.equal(refusedTargets.size, TARGETS, `every target's event met the fault (refused: ${[...refusedTargets].join(", ")})`);
    const events = await transitionEvents(s);
    assert.deepEqual(events.get("ReconciliationWindow/e"), ["WindowClosed"], "the window: its event once");
    for (const name of names) assert.deepEqual(events.get(`Kustomization/${name}`), ["WindowClosed"], `${name}: its event once`);
    process.stdout.write(`# ${refused.length} event creates refused; every transition event recorded once after the fault\n`);
  } finally {
    await c.stop();
    await proxy.close();
  }
});
