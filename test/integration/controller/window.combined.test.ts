// Several windows over one target: an allow window and a freeze window combine by precedence; deletion releases.

import assert from "node:assert/strict";
import { test } from "node:test";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import { ALWAYS, createKustomization, createWindow, getKustomization, getWindow, setup, startController, waitForSuspend, WINDOWS, YEARLY } from "./helpers.ts";

const plane = sharedControlPlane();

test("a freeze in one window beats an allow in another; removing the freeze opens the target", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await createWindow(s, "allow", { schedules: [ALWAYS], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  await createWindow(s, "holiday", {
    schedules: [YEARLY],
    freezes: [{ from: "2026-01-01T00:00", to: "2036-01-01T00:00", reason: "Change freeze" }],
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
  });
  const c = await startController(s);
  try {
    await waitForSuspend(s, "apps-rw", true);
    const allow = await waitFor("allow status", async () => {
      const w = await getWindow(s, "allow");
      return w.status?.targets?.closed === 1 ? w : undefined;
    });
    assert.equal(allow.status?.state, "Open", "the allow window itself is open");
    const holiday = await getWindow(s, "holiday");
    assert.equal(holiday.status?.state, "Frozen");
    assert.match(holiday.status?.reason ?? "", /^Frozen by freeze "Change freeze"/);
    // The two windows never fight: settled, nothing more is written.
    await c.settled();
    const rv = (await getKustomization(s, "apps-rw")).metadata?.resourceVersion;
    c.resync();
    await c.settled();
    assert.equal((await getKustomization(s, "apps-rw")).metadata?.resourceVersion, rv);

    await s.custom.deleteNamespacedCustomObject({ ...WINDOWS, namespace: s.namespace, name: "holiday" });
    await waitForSuspend(s, "apps-rw", false);
  } finally {
    await c.stop();
  }
});

test("deleting the last window that selects a target releases it: resumed, and fluxgate owns none of its fields", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await createWindow(s, "closed", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const c = await startController(s);
  try {
    await waitForSuspend(s, "apps-rw", true);
    await waitFor("finalizer", async () => ((await getWindow(s, "closed")).metadata?.finalizers ?? []).length > 0 || undefined);
    await s.custom.deleteNamespacedCustomObject({ ...WINDOWS, namespace: s.namespace, name: "closed" });
    await waitForSuspend(s, "apps-rw", false);
    const target = await getKustomization(s, "apps-rw");
    assert.equal(target.spec?.suspend, undefined, "spec.suspend is gone with fluxgate's ownership");
    assert.ok(!(target.metadata?.managedFields ?? []).some((m) => m.manager === "fluxgate"), "no field is owned by fluxgate");
    await waitFor("window gone", async () => {
      try {
        await getWindow(s, "closed");
        return undefined;
      } catch {
        return true;
      }
    });
  } finally {
    await c.stop();
  }
});

test("changing a window's selector releases the target it no longer selects", async () => {
  const s = await setup(plane());
  await createKustomization(s, "a");
  await createKustomization(s, "b");
  await createWindow(s, "closed", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "a" }] });
  const c = await startController(s);
  try {
    await waitForSuspend(s, "a", true);
    await s.custom.patchNamespacedCustomObject({
      ...WINDOWS,
      namespace: s.namespace,
      name: "closed",
      body: [{ op: "replace", path: "/spec/targets/0/name", value: "b" }],
    });
    await waitForSuspend(s, "b", true);
    await waitForSuspend(s, "a", false);
  } finally {
    await c.stop();
  }
});
