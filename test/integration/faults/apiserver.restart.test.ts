// Fault: kube-apiserver, then etcd, killed just before a transition and started again after it: the controller converges.

import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, test } from "node:test";
import { startControlPlane, waitFor, type ControlPlane, type RestartableComponent } from "../../harness/index.ts";
import { ALWAYS, createWindow, eventsOf, getWindow, setup } from "../controller/helpers.ts";
import { counter, createTargets, setFreezes, startControllerVia, targetsLabelled, utc, waitAllSuspend } from "./helpers.ts";

// Its own control plane, not a shared one: this test kills its API server and its etcd.
let cp: ControlPlane | undefined;
before(async () => {
  cp = await startControlPlane();
});
after(async () => {
  await cp?.stop();
});

const TARGETS = 10;
/** Killed this long before the transition, started again this long after it. */
const DOWN_BEFORE_MS = 1_000;
/**
 * The API server stays away long enough for the retries of the transition's writes to back off to
 * several seconds; etcd only briefly (without it the API server holds requests rather than failing them).
 */
const DOWN_AFTER_MS: Record<RestartableComponent, number> = { "kube-apiserver": 12_000, etcd: 2_000 };
/** The transition lands this soon after the API server is back (ready), whatever backoff the outage built. */
const BACK_WITHIN_MS = 2_000;

test("kube-apiserver and etcd down across a transition: the controller retries, converges once they are back, and counts the errors", async () => {
  assert.ok(cp !== undefined, "the control plane started");
  const plane = cp;
  const s = await setup(plane);
  const names = await createTargets(s, "app", TARGETS, "w");
  await createWindow(s, "w", { schedules: [ALWAYS], targets: targetsLabelled("w") });
  const c = await startControllerVia(s, s.controllerKubeConfig);
  try {
    await waitFor("the window Open", async () => ((await getWindow(s, "w")).status?.state === "Open" ? true : undefined));
    const t1 = Math.ceil((Date.now() + DOWN_BEFORE_MS + 1_000) / 1000) * 1000;
    // Room for the API server to start again and the targets to converge before the freeze ends, on a busy machine too.
    const t2 = t1 + DOWN_AFTER_MS["kube-apiserver"] + 30_000;
    await setFreezes(s, "w", [{ from: utc(t1), to: utc(t2), reason: "fault drill" }]);
    const measured: Record<string, number> = {};
    for (const [component, at, suspend] of [
      ["kube-apiserver", t1, true],
      ["etcd", t2, false],
    ] as [RestartableComponent, number, boolean][]) {
      const errorsBefore = await counter(c, "fluxgate_errors_total");
      await sleep(at - DOWN_BEFORE_MS - Date.now());
      await plane.stopComponent(component);
      await sleep(at + DOWN_AFTER_MS[component] - Date.now());
      await plane.startComponent(component);
      const back = Date.now();
      const converged = await waitAllSuspend(s, names, suspend, 60_000);
      measured[component] = converged - back;
      const errors = (await counter(c, "fluxgate_errors_total")) - errorsBefore;
      measured[`${component}Errors`] = errors;
      // Without etcd the API server holds requests (up to its own timeouts) rather than failing them: errors are not required then.
      if (component === "kube-apiserver") {
        assert.ok(errors > 0, `fluxgate_errors_total rose while ${component} was down (${errors})`);
        // The backoff built during the outage is dropped when the watches reconnect.
        assert.ok(
          measured[component] <= BACK_WITHIN_MS,
          `the transition landed ${measured[component]} ms after the API server was back (at most ${BACK_WITHIN_MS} ms)`,
        );
      }
    }
    const watchErrors = await counter(c, "fluxgate_errors_total", { operation: "watch" });
    assert.ok(watchErrors > 0, "dropped watches were counted");
    await waitFor("the window Open again", async () => ((await getWindow(s, "w")).status?.state === "Open" ? true : undefined));
    await c.settled();
    await sleep(500);
    const perObject = new Map<string, string[]>();
    for (const reason of ["WindowOpened", "WindowClosed"]) {
      for (const e of await eventsOf(s, reason)) perObject.set(`${e.kind}/${e.name}`, [...(perObject.get(`${e.kind}/${e.name}`) ?? []), reason].sort());
    }
    assert.deepEqual(perObject.get("ReconciliationWindow/w"), ["WindowClosed", "WindowOpened"], "the window: one event per transition");
    for (const name of names) assert.deepEqual(perObject.get(`Kustomization/${name}`), ["WindowClosed", "WindowOpened"], `${name}: one event per transition`);
    process.stdout.write(
      `# converged ${JSON.stringify(measured)} ms after the component was back (down ${JSON.stringify(DOWN_AFTER_MS)} ms after the transition); ${watchErrors} watch errors\n`,
    );
  } finally {
    await c.stop();
  }
});
