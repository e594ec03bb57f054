// An invalid window: Stalled with the field-level message, a Warning event, and its targets left exactly as they are.

import assert from "node:assert/strict";
import { test } from "node:test";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import { createKustomization, createWindow, eventsOf, getKustomization, getWindow, setup, startController, WINDOWS } from "./helpers.ts";

const plane = sharedControlPlane();

test("a schedule on an impossible date stalls the window and leaves its target untouched", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw", { suspend: false });
  await createWindow(s, "feb30", { schedules: [{ start: "0 0 30 2 *", duration: "1h" }], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const before = await getKustomization(s, "apps-rw");
  const c = await startController(s);
  try {
    const w = await waitFor("Stalled", async () => {
      const got = await getWindow(s, "feb30");
      return got.status?.conditions?.find((cond) => cond.type === "Stalled" && cond.status === "True") !== undefined ? got : undefined;
    });
    const stalled = w.status?.conditions?.find((cond) => cond.type === "Stalled");
    assert.equal(stalled?.reason, "InvalidSpec");
    assert.match(stalled?.message ?? "", /^spec\.schedules\[0\]\.start: /);
    assert.match(w.status?.reason ?? "", /targets are left as they are/);
    // Stalled observes the generation, so Flux's kstatus reads the window as Failed, not InProgress.
    assert.equal((w.status as { observedGeneration?: number } | undefined)?.observedGeneration, w.metadata?.generation);
    const event = await waitFor("InvalidSpec event", async () => (await eventsOf(s, "InvalidSpec"))[0]);
    assert.equal(event.type, "Warning");
    await c.settled();
    // For alerting: the window's state gauge says Invalid.
    const gauge = await c.metrics.windowState.get();
    const state = (st: string): number | undefined =>
      gauge.values.find((v) => v.labels.namespace === s.namespace && v.labels.name === "feb30" && v.labels.state === st)?.value;
    assert.deepEqual([state("Invalid"), state("Closed"), state("Open")], [1, 0, 0]);
    const after = await getKustomization(s, "apps-rw");
    assert.equal(after.metadata?.resourceVersion, before.metadata?.resourceVersion, "the target was not written");

    // Fixing the spec makes the window govern its target.
    await s.custom.patchNamespacedCustomObject({
      ...WINDOWS,
      namespace: s.namespace,
      name: "feb30",
      body: [{ op: "replace", path: "/spec/schedules/0/start", value: "0 0 1 1 *" }],
    });
    await waitFor("suspended", async () => (await getKustomization(s, "apps-rw")).spec?.suspend === true || undefined);
    const fixed = await waitFor("Ready", async () => {
      const got = await getWindow(s, "feb30");
      return got.status?.conditions?.find((cond) => cond.type === "Stalled" && cond.status === "False") !== undefined ? got : undefined;
    });
    assert.equal(fixed.status?.state, "Closed");
    // The gauge follows the status write (recordState, after the write's answer): this test may read the status first.
    const invalid = async (): Promise<number | undefined> =>
      (await c.metrics.windowState.get()).values.find((v) => v.labels.namespace === s.namespace && v.labels.name === "feb30" && v.labels.state === "Invalid")
        ?.value;
    await waitFor("the Invalid gauge at 0", async () => ((await invalid()) === 0 ? true : undefined));
  } finally {
    await c.stop();
  }
});
