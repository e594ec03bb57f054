// Pending revisions: a target whose source offers a revision it has not applied is listed in the window's status.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { WindowStatus } from "../../../src/api/index.ts";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import {
  createKustomization,
  createOverride,
  createWindow,
  eventsOf,
  getWindow,
  KUSTOMIZATIONS,
  setup,
  startController,
  waitForSuspend,
  YEARLY,
} from "./helpers.ts";

const plane = sharedControlPlane();
const GITREPOSITORIES = { group: "source.toolkit.fluxcd.io", version: "v1", plural: "gitrepositories" };

test("the window lists a target whose source moved ahead of its last applied revision, and since when", async () => {
  const s = await setup(plane());
  await s.custom.createNamespacedCustomObject({
    ...GITREPOSITORIES,
    namespace: s.namespace,
    body: {
      apiVersion: "source.toolkit.fluxcd.io/v1",
      kind: "GitRepository",
      metadata: { name: "gitops" },
      spec: { url: "https://git.example/fleet.git", interval: "1m", ref: { branch: "main" } },
    },
  });
  await createKustomization(s, "apps-rw");
  // Revisions that arrive after the Kustomization was created (whole seconds, as the API server keeps times).
  const arrived = new Date(Math.ceil(Date.now() / 1000) * 1000 + 1000);
  const FIRST = arrived.toISOString().replace(".000Z", "Z");
  const SECOND = new Date(arrived.getTime() + 3_600_000).toISOString().replace(".000Z", "Z");
  // What source-controller and kustomize-controller would report.
  const artifact = (revision: string, at: string): Record<string, unknown> => ({
    path: "gitrepository/x.tar.gz",
    url: "http://source-controller/x.tar.gz",
    revision,
    digest: "sha256:0000000000000000000000000000000000000000000000000000000000000000",
    lastUpdateTime: at,
  });
  await s.custom.patchNamespacedCustomObjectStatus({
    ...GITREPOSITORIES,
    namespace: s.namespace,
    name: "gitops",
    body: [{ op: "add", path: "/status", value: { artifact: artifact("main@sha1:bbbb", FIRST) } }],
  });
  await s.custom.patchNamespacedCustomObjectStatus({
    ...KUSTOMIZATIONS,
    namespace: s.namespace,
    name: "apps-rw",
    body: [{ op: "add", path: "/status", value: { lastAppliedRevision: "main@sha1:aaaa" } }],
  });
  await createWindow(s, "closed", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const c = await startController(s);
  try {
    await waitForSuspend(s, "apps-rw", true);
    const w = await waitFor("pending in status", async () => {
      const got = await getWindow(s, "closed");
      return got.status?.targets?.pending === 1 ? got : undefined;
    });
    assert.deepEqual((w.status as { pending?: unknown }).pending, [
      {
        kind: "Kustomization",
        namespace: s.namespace,
        name: "apps-rw",
        appliedRevision: "main@sha1:aaaa",
        pendingRevision: "main@sha1:bbbb",
        revisions: 1,
        waitingSince: FIRST,
      },
    ]);
    const gauge = await c.metrics.registry.getSingleMetricAsString("fluxgate_window_pending_targets");
    assert.match(gauge, new RegExp(`fluxgate_window_pending_targets\\{namespace="${s.namespace}",name="closed"\\} 1`));
    // Another commit arrives while it waits: two revisions now, and it still waits since the first.
    await s.custom.patchNamespacedCustomObjectStatus({
      ...GITREPOSITORIES,
      namespace: s.namespace,
      name: "gitops",
      body: [{ op: "replace", path: "/status/artifact", value: artifact("main@sha1:cccc", SECOND) }],
    });
    const later = await waitFor("the second revision in status", async () => {
      const got = await getWindow(s, "closed");
      return (got.status as WindowStatus | undefined)?.pending?.[0]?.pendingRevision === "main@sha1:cccc" ? (got.status as WindowStatus) : undefined;
    });
    assert.deepEqual(later.pending?.[0], {
      kind: "Kustomization",
      namespace: s.namespace,
      name: "apps-rw",
      appliedRevision: "main@sha1:aaaa",
      pendingRevision: "main@sha1:cccc",
      revisions: 2,
      waitingSince: FIRST,
    });
    const metrics = await c.metrics.registry.metrics();
    assert.match(metrics, new RegExp(`fluxgate_window_pending_revisions\\{namespace="${s.namespace}",name="closed"\\} 2`));
    assert.match(
      metrics,
      new RegExp(`fluxgate_window_pending_since_timestamp_seconds\\{namespace="${s.namespace}",name="closed"\\} ${Date.parse(FIRST) / 1000}`),
    );
    // The window opens and Flux applies it: the pending list empties.
    await createOverride(s, "open-now", {
      windowRef: { name: "closed" },
      action: "Open",
      until: new Date(Date.now() + 3_600_000).toISOString(),
      reason: "test",
    });
    await waitFor("the window open", async () => ((await getWindow(s, "closed")).status?.state === "Overridden" ? true : undefined));
    await s.custom.patchNamespacedCustomObjectStatus({
      ...KUSTOMIZATIONS,
      namespace: s.namespace,
      name: "apps-rw",
      body: [{ op: "replace", path: "/status/lastAppliedRevision", value: "main@sha1:cccc" }],
    });
    await waitFor("pending cleared", async () => ((await getWindow(s, "closed")).status?.targets?.pending === 0 ? true : undefined));
    const applied = await waitFor("ChangesApplied event", async () => (await eventsOf(s, "ChangesApplied")).find((e) => e.name === "apps-rw"));
    assert.match(applied.message, /^Applied revision main@sha1:cccc \(was main@sha1:aaaa\) under window closed$/);
  } finally {
    await c.stop();
  }
});
