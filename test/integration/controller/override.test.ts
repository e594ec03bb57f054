// WindowOverride: an Open or Freeze takes effect at once, ends to the second, and stays as an expired record.

import assert from "node:assert/strict";
import { test } from "node:test";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import { ALWAYS, createKustomization, createOverride, createWindow, eventsOf, getWindow, OVERRIDES, setup, startController, waitForSuspend, YEARLY } from "./helpers.ts";

const plane = sharedControlPlane();

interface OverrideObject {
  status?: { phase?: string; message?: string; expiredAt?: string };
}

test("an Open override opens a closed window at once and closes it again at its end", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await createWindow(s, "closed", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const c = await startController(s);
  try {
    await waitForSuspend(s, "apps-rw", true);
    const until = Math.ceil((Date.now() + 6_000) / 1000) * 1000;
    const created = Date.now();
    await createOverride(s, "break-glass", { windowRef: { name: "closed" }, action: "Open", until: new Date(until).toISOString().replace(".000Z", "Z"), reason: "hotfix INC-42" });
    const opened = await waitForSuspend(s, "apps-rw", false, 5_000);
    assert.ok(opened - created < 1_500, `opened ${opened - created} ms after the override was created`);
    const w = await waitFor("Overridden", async () => {
      const got = await getWindow(s, "closed");
      return got.status?.state === "Overridden" ? got : undefined;
    });
    assert.match(w.status?.reason ?? "", /^Opened by override break-glass \("hotfix INC-42"\)/);
    const closed = await waitForSuspend(s, "apps-rw", true, 10_000);
    assert.ok(closed >= until && closed - until < 1_000, `closed ${closed - until} ms after until`);
    const o = await waitFor("Expired", async () => {
      const got = (await s.custom.getNamespacedCustomObject({ ...OVERRIDES, namespace: s.namespace, name: "break-glass" })) as OverrideObject;
      return got.status?.phase === "Expired" ? got : undefined;
    });
    assert.equal(o.status?.expiredAt, new Date(until).toISOString().replace(".000Z", "Z"));
    await waitFor("override events", async () => {
      const started = await eventsOf(s, "OverrideStarted");
      const expired = await eventsOf(s, "OverrideExpired");
      return started.length > 0 && expired.length > 0 ? true : undefined;
    });
  } finally {
    await c.stop();
  }
});

test("a Freeze override beats an open window; an override longer than 7 days is Invalid and has no effect", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await createWindow(s, "open", { schedules: [ALWAYS], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const c = await startController(s);
  try {
    await waitForSuspend(s, "apps-rw", false);
    await waitFor("ownership", async () => (await getWindow(s, "open")).status?.targets?.open === 1 || undefined);
    await createOverride(s, "too-long", {
      windowRef: { name: "open" },
      action: "Freeze",
      until: new Date(Date.now() + 8 * 86_400_000).toISOString(),
      reason: "stop everything",
    });
    const invalid = await waitFor("Invalid", async () => {
      const got = (await s.custom.getNamespacedCustomObject({ ...OVERRIDES, namespace: s.namespace, name: "too-long" })) as OverrideObject;
      return got.status?.phase === "Invalid" ? got : undefined;
    });
    assert.match(invalid.status?.message ?? "", /spec\.until: is more than 7 days after the override was created/);
    await c.settled();
    await waitForSuspend(s, "apps-rw", false, 1_000);
    await createOverride(s, "incident", { windowRef: { name: "open" }, action: "Freeze", until: new Date(Date.now() + 3_600_000).toISOString(), reason: "incident INC-7" });
    await waitForSuspend(s, "apps-rw", true, 5_000);
    await s.custom.deleteNamespacedCustomObject({ ...OVERRIDES, namespace: s.namespace, name: "incident" });
    await waitForSuspend(s, "apps-rw", false, 5_000);
  } finally {
    await c.stop();
  }
});
