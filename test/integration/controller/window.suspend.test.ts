// Suspend mode on the real kube-apiserver: a closed window suspends its targets, an open one resumes them, status tells why.

import assert from "node:assert/strict";
import { test } from "node:test";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import {
  ALWAYS,
  createKustomization,
  createWindow,
  eventsOf,
  getKustomization,
  getWindow,
  kustomizationWrites,
  setup,
  startController,
  waitForSuspend,
  YEARLY,
} from "./helpers.ts";

const plane = sharedControlPlane();

test("a closed window suspends its targets with the fluxgate field manager; status says when it opens", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw", { labels: { "fluxgate.io/type": "window" } });
  await createKustomization(s, "apps-rt");
  await createWindow(s, "weekday-changes", {
    timeZone: "Europe/Berlin",
    schedules: [YEARLY],
    targets: [{ kind: "Kustomization", labelSelector: { matchLabels: { "fluxgate.io/type": "window" } } }],
  });
  const c = await startController(s);
  try {
    await waitForSuspend(s, "apps-rw", true);
    const target = await getKustomization(s, "apps-rw");
    const owner = target.metadata?.managedFields?.find((m) => m.manager === "fluxgate");
    assert.ok(owner !== undefined, "fluxgate owns a field of the target");
    assert.equal(owner.operation, "Apply");
    assert.equal((await getKustomization(s, "apps-rt")).spec?.suspend, undefined, "the real-time Kustomization is untouched");
    const window = await waitFor("window status", async () => {
      const w = await getWindow(s, "weekday-changes");
      return w.status?.targets?.closed === 1 ? w : undefined;
    });
    assert.equal(window.status?.state, "Closed");
    assert.match(window.status?.reason ?? "", /^Closed: no schedule is active; opens Fri 2027-01-01 00:00 CET$/);
    assert.equal(window.status?.nextOpen, "2026-12-31T23:00:00Z", "cron is read in the window's zone; status is UTC");
    assert.equal(window.status?.nextTransition, "2026-12-31T23:00:00Z");
    assert.deepEqual(window.status?.targets, { matched: 1, open: 0, closed: 1, pending: 0, conflicts: 0 });
    assert.ok(window.status?.conditions?.some((cond) => cond.type === "Ready" && cond.status === "True"));
    assert.ok(window.metadata?.finalizers?.includes("fluxgate.io/release-targets"));
    const closed = await waitFor("WindowClosed event", async () => {
      const events = await eventsOf(s, "WindowClosed");
      return events.some((e) => e.kind === "Kustomization" && e.name === "apps-rw") ? events : undefined;
    });
    assert.match(closed.find((e) => e.name === "apps-rw")?.message ?? "", /^Suspended by window weekday-changes: Closed/);
  } finally {
    await c.stop();
  }
});

test("an open window resumes a suspended target and asks Flux to reconcile at once", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw", { suspend: true });
  await createWindow(s, "always", { schedules: [ALWAYS], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const c = await startController(s);
  try {
    await waitForSuspend(s, "apps-rw", false);
    const target = await getKustomization(s, "apps-rw");
    assert.ok(target.metadata?.annotations?.["reconcile.fluxcd.io/requestedAt"] !== undefined, "requestedAt is set in the same write");
    const window = await waitFor("window Open", async () => {
      const w = await getWindow(s, "always");
      return w.status?.state === "Open" && w.status.targets?.open === 1 ? w : undefined;
    });
    assert.match(window.status?.reason ?? "", /^Open by schedule "0 0 \* \* \* → \+24h"/);
    assert.equal(window.status?.nextClose, undefined, "an always-open window never closes within the horizon");
  } finally {
    await c.stop();
  }
});

test("a target already in the right state costs one write to take ownership, then none", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await createWindow(s, "always", { schedules: [ALWAYS], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const c = await startController(s);
  try {
    await waitFor(
      "ownership",
      async () => ((await getKustomization(s, "apps-rw")).metadata?.managedFields ?? []).some((m) => m.manager === "fluxgate") || undefined,
    );
    await c.settled();
    const writes = (): Promise<number> => kustomizationWrites(c);
    const before = await writes();
    c.resync();
    await c.settled();
    c.resync();
    await c.settled();
    assert.equal(await writes(), before, "a resync of a settled target writes nothing");
    assert.equal(before, 1);
  } finally {
    await c.stop();
  }
});
