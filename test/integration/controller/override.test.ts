// WindowOverride: an Open or Freeze takes effect at once, ends to the second, and stays as an expired record.

import { PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import assert from "node:assert/strict";
import { test } from "node:test";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import {
  ALWAYS,
  createKustomization,
  createOverride,
  createWindow,
  eventsOf,
  getKustomization,
  getWindow,
  OVERRIDES,
  quiet,
  setup,
  startController,
  waitForSuspend,
  YEARLY,
} from "./helpers.ts";

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
    await createOverride(s, "break-glass", {
      windowRef: { name: "closed" },
      action: "Open",
      until: new Date(until).toISOString().replace(".000Z", "Z"),
      reason: "hotfix INC-42",
    });
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
    assert.match(invalid.status?.message ?? "", /spec\.until: is more than 7 days after the override was asked for/);
    await c.settled();
    await waitForSuspend(s, "apps-rw", false, 1_000);
    await createOverride(s, "incident", {
      windowRef: { name: "open" },
      action: "Freeze",
      until: new Date(Date.now() + 3_600_000).toISOString(),
      reason: "incident INC-7",
    });
    await waitForSuspend(s, "apps-rw", true, 5_000);
    await s.custom.deleteNamespacedCustomObject({ ...OVERRIDES, namespace: s.namespace, name: "incident" });
    await waitForSuspend(s, "apps-rw", false, 5_000);
  } finally {
    await c.stop();
  }
});

interface OverrideWithConditions {
  status?: {
    phase?: string;
    message?: string;
    observedGeneration?: number;
    cancelledAt?: string;
    cancelledBy?: string;
    expiredAt?: string;
    conditions?: { type: string; status: string; reason: string; message: string; observedGeneration?: number }[];
  };
}

async function overridePhase(s: Awaited<ReturnType<typeof setup>>, name: string, phase: string): Promise<OverrideWithConditions> {
  return await waitFor(`${name} ${phase}`, async () => {
    const got = (await s.custom.getNamespacedCustomObject({ ...OVERRIDES, namespace: s.namespace, name })) as OverrideWithConditions;
    return got.status?.phase === phase ? got : undefined;
  });
}

test("an override whose window does not exist is WindowNotFound (Warning, Ready=False) and does nothing, until the window is created", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  const c = await startController(s);
  try {
    // A mistyped Freeze: the window "nightly" does not exist (yet).
    await createOverride(s, "stop", {
      windowRef: { name: "nightly" },
      action: "Freeze",
      until: new Date(Date.now() + 3_600_000).toISOString(),
      reason: "incident INC-9",
    });
    const waiting = await overridePhase(s, "stop", "WindowNotFound");
    assert.match(waiting.status?.message ?? "", new RegExp(`^window nightly does not exist in ${s.namespace}: this override has no effect until it does`));
    const ready = waiting.status?.conditions?.find((x) => x.type === "Ready");
    assert.equal(ready?.status, "False");
    assert.equal(ready?.reason, "WindowNotFound");
    assert.equal(ready?.observedGeneration, 1);
    assert.equal(waiting.status?.conditions?.find((x) => x.type === "Stalled")?.status, "False");
    const warnings = await waitFor("WindowNotFound event", async () => {
      const events = (await eventsOf(s, "WindowNotFound")).filter((e) => e.name === "stop");
      return events.length > 0 ? events : undefined;
    });
    assert.equal(warnings[0]?.type, "Warning");
    assert.equal((await eventsOf(s, "OverrideStarted")).length, 0, "no Normal event says it started");

    await createWindow(s, "nightly", { schedules: [ALWAYS], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
    const active = await overridePhase(s, "stop", "Active");
    assert.equal(active.status?.conditions?.find((x) => x.type === "Ready")?.status, "True");
    assert.equal(active.status?.conditions?.find((x) => x.type === "Ready")?.reason, "OverrideStarted");
    await waitForSuspend(s, "apps-rw", true, 5_000);
  } finally {
    await c.stop();
  }
});

test("a cancellation (annotations) ends an override at once and keeps it: Cancelled, by whom and when, an OverrideCancelled event; an unreadable one is Invalid", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await createWindow(s, "closed", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const c = await startController(s);
  try {
    await waitForSuspend(s, "apps-rw", true);
    const until = new Date(Math.ceil((Date.now() + 3_600_000) / 1000) * 1000).toISOString().replace(".000Z", "Z");
    await createOverride(s, "hotfix", { windowRef: { name: "closed" }, action: "Open", until, reason: "hotfix INC-42" });
    await waitForSuspend(s, "apps-rw", false, 5_000);
    const at = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "Z");
    await s.custom.patchNamespacedCustomObject(
      {
        ...OVERRIDES,
        namespace: s.namespace,
        name: "hotfix",
        body: { metadata: { annotations: { "fluxgate.io/cancelled-at": at, "fluxgate.io/cancelled-by": "alice" } } },
      },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    await waitForSuspend(s, "apps-rw", true, 5_000);
    const cancelled = await overridePhase(s, "hotfix", "Cancelled");
    assert.equal(cancelled.status?.cancelledBy, "alice");
    assert.equal(cancelled.status?.cancelledAt, at);
    assert.equal(cancelled.status?.expiredAt, at);
    assert.equal(cancelled.status?.message, `cancelled by alice at ${at} (it was to last until ${until}); kept as a record until deleted`);
    assert.equal(cancelled.status?.conditions?.find((x) => x.type === "Ready")?.reason, "OverrideCancelled");
    const events = await waitFor("OverrideCancelled events", async () => {
      const got = await eventsOf(s, "OverrideCancelled");
      return got.length >= 2 ? got : undefined;
    });
    assert.deepEqual(events.map((e) => e.kind).sort(), ["ReconciliationWindow", "WindowOverride"]);
    assert.ok(
      events.every((e) => e.type === "Normal" && e.message.includes("cancelled by alice")),
      JSON.stringify(events),
    );
    assert.equal((await eventsOf(s, "OverrideExpired")).length, 0, "a cancelled override is not announced as expired");

    await s.custom.patchNamespacedCustomObject(
      { ...OVERRIDES, namespace: s.namespace, name: "hotfix", body: { metadata: { annotations: { "fluxgate.io/cancelled-at": "yesterday" } } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    const invalid = await overridePhase(s, "hotfix", "Invalid");
    assert.match(invalid.status?.message ?? "", /^metadata\.annotations\[fluxgate\.io\/cancelled-at\]: must be an RFC 3339 date-time/);
    assert.equal(invalid.status?.conditions?.find((x) => x.type === "Stalled")?.status, "True");
    await c.settled();
    assert.equal((await getWindow(s, "closed")).status?.state, "Closed");
  } finally {
    await c.stop();
  }
});

test("an override moved to another window (its windowRef changed) lets the first go and holds the second, nothing else changing", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-a");
  await createKustomization(s, "apps-b");
  await createWindow(s, "a", { schedules: [ALWAYS], targets: [{ kind: "Kustomization", name: "apps-a" }] });
  await createWindow(s, "b", { schedules: [ALWAYS], targets: [{ kind: "Kustomization", name: "apps-b" }] });
  const until = new Date(Math.ceil((Date.now() + 3_600_000) / 1000) * 1000).toISOString().replace(".000Z", "Z");
  await createOverride(s, "incident", { windowRef: { name: "a" }, action: "Freeze", until, reason: "incident INC-9" });
  const c = await startController(s);
  try {
    await waitForSuspend(s, "apps-a", true);
    await quiet(c);
    assert.notEqual((await getKustomization(s, "apps-b")).spec?.suspend, true, "window b is open");
    await s.custom.patchNamespacedCustomObject(
      { ...OVERRIDES, namespace: s.namespace, name: "incident", body: { spec: { windowRef: { name: "b" } } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    await waitForSuspend(s, "apps-b", true);
    await waitForSuspend(s, "apps-a", false);
  } finally {
    await c.stop();
  }
});
