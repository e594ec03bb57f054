// Holiday freezes in the controller: frozen on the holiday with its name in the status; an unknown country, or holidays from labels the controller
// does not know, stall the window with the field named and leave its targets as they are; holidays from labels the cluster's identity states.

import assert from "node:assert/strict";
import { test } from "node:test";
import { CLUSTER_IDENTITY_NAME, CLUSTER_IDENTITY_NAMESPACE } from "../../../src/api/constants.ts";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import { createKustomization, createWindow, getKustomization, getWindow, setup, startController, TestClock, ALWAYS } from "./helpers.ts";

const plane = sharedControlPlane();

test("on Fronleichnam a Bavarian holiday freeze holds the window frozen, and the status names the holiday", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw", { suspend: false });
  await createWindow(s, "bavaria", {
    timeZone: "Europe/Berlin",
    schedules: [ALWAYS],
    freezes: [{ holidays: { country: "DE", subdivision: "BY" } }],
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
  });
  const clock = new TestClock();
  clock.set(Date.parse("2026-06-04T10:00:00Z"));
  const c = await startController(s, clock);
  try {
    const w = await waitFor("Frozen", async () => {
      const got = await getWindow(s, "bavaria");
      return got.status?.state === "Frozen" ? got : undefined;
    });
    assert.match(w.status?.reason ?? "", /Fronleichnam/);
    assert.equal(w.status?.nextOpen, "2026-06-04T22:00:00Z");
    await waitFor("suspended", async () => (await getKustomization(s, "apps-rw")).spec?.suspend === true || undefined);
  } finally {
    await c.stop();
  }
});

test("an unknown country, or holidays from cluster labels the controller does not know, stall the window naming the field; the target is untouched", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw", { suspend: false });
  await createWindow(s, "nowhere", { schedules: [ALWAYS], freezes: [{ holidays: { country: "XX" } }], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  await createWindow(s, "by-labels", {
    schedules: [ALWAYS],
    freezes: [{ holidays: { fromClusterLabels: { country: "country" } } }],
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
  });
  const before = await getKustomization(s, "apps-rw");
  const c = await startController(s);
  try {
    const stalled = async (name: string): Promise<string> => {
      const w = await waitFor(`${name} Stalled`, async () => {
        const got = await getWindow(s, name);
        return got.status?.conditions?.find((cond) => cond.type === "Stalled" && cond.status === "True") !== undefined ? got : undefined;
      });
      const condition = w.status?.conditions?.find((cond) => cond.type === "Stalled");
      assert.equal(condition?.reason, "InvalidSpec");
      return condition?.message ?? "";
    };
    assert.match(await stalled("nowhere"), /^spec\.freezes\[0\]\.holidays\.country: unknown country "XX": .*did you mean/);
    assert.match(await stalled("by-labels"), /^spec\.freezes\[0\]\.holidays\.fromClusterLabels: takes the holidays from the cluster's labels/);
    await c.settled();
    const after = await getKustomization(s, "apps-rw");
    assert.equal(after.metadata?.resourceVersion, before.metadata?.resourceVersion, "the target was not written");
  } finally {
    await c.stop();
  }
});

test("holidays from the cluster's labels: the controller reads them from the cluster's identity, and follows it when the labels change", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw", { suspend: false });
  await s.core.createNamespacedConfigMap({
    namespace: CLUSTER_IDENTITY_NAMESPACE,
    body: { metadata: { name: CLUSTER_IDENTITY_NAME }, data: { cluster: "edge-munich", labels: "country: DE\nsubdivision: BY\n" } },
  });
  await createWindow(s, "local-holidays", {
    timeZone: "Europe/Berlin",
    schedules: [ALWAYS],
    freezes: [{ holidays: { fromClusterLabels: { country: "country", subdivision: "subdivision" } } }],
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
  });
  const clock = new TestClock();
  clock.set(Date.parse("2026-06-04T10:00:00Z"));
  const c = await startController(s, clock);
  try {
    const w = await waitFor("Frozen by Bavaria's Fronleichnam", async () => {
      const got = await getWindow(s, "local-holidays");
      return got.status?.state === "Frozen" ? got : undefined;
    });
    assert.match(w.status?.reason ?? "", /Fronleichnam/);
    await waitFor("suspended", async () => (await getKustomization(s, "apps-rw")).spec?.suspend === true || undefined);
    // The cluster is relabelled to a Land where 4 June 2026 is a working day: the window opens.
    await s.core.replaceNamespacedConfigMap({
      name: CLUSTER_IDENTITY_NAME,
      namespace: CLUSTER_IDENTITY_NAMESPACE,
      body: { metadata: { name: CLUSTER_IDENTITY_NAME }, data: { cluster: "edge-munich", labels: "country: DE\nsubdivision: BE\n" } },
    });
    await waitFor("Open in Berlin's Land", async () => ((await getWindow(s, "local-holidays")).status?.state === "Open" ? true : undefined));
    await waitFor("resumed", async () => (await getKustomization(s, "apps-rw")).spec?.suspend === false || undefined);
  } finally {
    await c.stop();
    await s.core.deleteNamespacedConfigMap({ name: CLUSTER_IDENTITY_NAME, namespace: CLUSTER_IDENTITY_NAMESPACE });
  }
});
