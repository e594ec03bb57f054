// Fleet windows and fleet freezes on the real kube-apiserver: a clusterSelector that does not match the cluster's identity never suspends anything, and a
// cluster that cannot confirm its identity fails safe (it opens by no fleet window, honours every fleet freeze).

import assert from "node:assert/strict";
import { RbacAuthorizationV1Api } from "@kubernetes/client-node";
import { test } from "node:test";
import type { FluxObject } from "../../../src/kube/flux.ts";
import { CLUSTER_IDENTITY_NAME, CLUSTER_IDENTITY_NAMESPACE } from "../../../src/api/constants.ts";
import { installFluxgate, sharedControlPlane, waitFor } from "../../harness/index.ts";
import {
  ALWAYS,
  createKustomization,
  createOverride,
  createWindow,
  getKustomization,
  getWindow,
  kustomizationWrites,
  OVERRIDES,
  quiet,
  setup,
  startController,
  waitForSuspend,
  YEARLY,
  type Setup,
} from "./helpers.ts";

const plane = sharedControlPlane();

const fluxgateOwns = (k: FluxObject): boolean => (k.metadata?.managedFields ?? []).some((m) => m.manager === "fluxgate");

/** Writes (or, with null, deletes) the cluster's identity ConfigMap, as fluxgate init writes it into Git and Flux applies it. */
async function setIdentity(s: Setup, identity: { cluster: string; labels: string } | null): Promise<void> {
  try {
    await s.core.deleteNamespacedConfigMap({ name: CLUSTER_IDENTITY_NAME, namespace: CLUSTER_IDENTITY_NAMESPACE });
  } catch (e) {
    if ((e as { code?: number }).code !== 404) throw e;
  }
  if (identity === null) return;
  await s.core.createNamespacedConfigMap({
    namespace: CLUSTER_IDENTITY_NAMESPACE,
    body: { metadata: { name: CLUSTER_IDENTITY_NAME }, data: identity },
  });
}

async function readyOf(s: Setup, window: string, reason: string): Promise<{ status: string; message: string }> {
  return await waitFor(`window ${window} Ready reason ${reason}`, async () => {
    const ready = (await getWindow(s, window)).status?.conditions?.find((c) => c.type === "Ready");
    return ready?.reason === reason ? ready : undefined;
  });
}

async function phaseOf(s: Setup, name: string, phase: string): Promise<string> {
  return await waitFor(`override ${name} ${phase}`, async () => {
    const o = (await s.custom.getNamespacedCustomObject({ ...OVERRIDES, namespace: s.namespace, name })) as { status?: { phase?: string; message?: string } };
    return o.status?.phase === phase ? (o.status.message ?? "") : undefined;
  });
}

const inAnHour = (): string => new Date(Math.ceil((Date.now() + 3_600_000) / 1000) * 1000).toISOString().replace(".000Z", "Z");

test("a fleet window or fleet freeze whose clusterSelector does not match the cluster's identity never suspends (never writes) anything", async () => {
  const s = await setup(plane());
  await setIdentity(s, { cluster: "edge-paris", labels: "region: eu\nring: canary\n" });
  await createKustomization(s, "apps-rw");
  await createKustomization(s, "apps-rt");
  // Closed all year: on a prod cluster it would suspend apps-rw at once.
  await createWindow(s, "prod-changes", {
    clusterSelector: { matchLabels: { ring: "prod" } },
    schedules: [YEARLY],
    freezes: [{ from: "2000-01-01T00:00", to: "2100-01-01T00:00", reason: "prod freeze" }],
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
  });
  const c = await startController(s);
  try {
    const ready = await readyOf(s, "prod-changes", "NotSelected");
    assert.equal(ready.status, "True");
    assert.match(
      ready.message,
      /^Fleet window not for this cluster: for clusters matching ring=prod; cluster edge-paris \(region=eu,ring=canary\) does not match/,
    );
    const w = await getWindow(s, "prod-changes");
    assert.equal(w.status?.targets?.matched, 0, "it governs nothing here");
    // A fleet freeze of every window of the prod clusters: on this canary cluster it does nothing either.
    await createOverride(s, "prod-freeze", {
      clusterSelector: { matchLabels: { ring: "prod" } },
      windowSelector: {},
      action: "Freeze",
      until: inAnHour(),
      reason: "incident INC-7 on prod",
    });
    assert.match(await phaseOf(s, "prod-freeze", "NotSelected"), /^has no effect on this cluster: for clusters matching ring=prod; cluster edge-paris/);
    await c.settled();
    assert.equal(await kustomizationWrites(c), 0, "the controller wrote no Kustomization");
    for (const name of ["apps-rw", "apps-rt"]) {
      const k = await getKustomization(s, name);
      assert.equal(k.spec?.suspend, undefined, `${name} was never suspended`);
      assert.equal(fluxgateOwns(k), false, `fluxgate owns no field of ${name}`);
    }

    // The cluster's own window and a fleet freeze that selects it: the freeze (windowSelector {}) holds the window's targets.
    await createWindow(s, "apps-rt", { schedules: [ALWAYS], targets: [{ kind: "Kustomization", name: "apps-rt" }] });
    await createOverride(s, "canary-freeze", {
      clusterSelector: { matchLabels: { ring: "canary" } },
      windowSelector: {},
      action: "Freeze",
      until: inAnHour(),
      reason: "incident INC-8 on canary",
    });
    await waitForSuspend(s, "apps-rt", true);
    assert.match(await phaseOf(s, "canary-freeze", "Active"), /^freezes window/);
    assert.equal((await getKustomization(s, "apps-rw")).spec?.suspend, undefined, "the prod window's target is still untouched");
  } finally {
    await c.stop();
    await setIdentity(s, null);
  }
});

test("a fleet freeze holds a window created after it, and deleted (as Flux prunes it once it is gone from Git) lets the windows it held go at once", async () => {
  const s = await setup(plane());
  await setIdentity(s, { cluster: "edge-newyork", labels: "region: us\nring: canary\n" });
  await createKustomization(s, "apps-rw");
  await createOverride(s, "canary-hold", {
    clusterSelector: { matchLabels: { ring: "canary" } },
    windowSelector: {},
    action: "Freeze",
    until: inAnHour(),
    reason: "canary under investigation",
  });
  const c = await startController(s);
  try {
    // No window to freeze yet: it says so, and takes effect once one is created (that event alone).
    await phaseOf(s, "canary-hold", "WindowNotFound");
    await c.settled();
    await createWindow(s, "fleet-changes", { schedules: [ALWAYS], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
    await waitForSuspend(s, "apps-rw", true);
    await phaseOf(s, "canary-hold", "Active");
    await quiet(c);
    assert.equal((await getWindow(s, "fleet-changes")).status?.state, "Overridden");
    // Its deletion is the only event: it names no window, the windows it selected are planned again.
    await s.custom.deleteNamespacedCustomObject({ ...OVERRIDES, namespace: s.namespace, name: "canary-hold" });
    await waitForSuspend(s, "apps-rw", false);
    await waitFor("window fleet-changes Open", async () => ((await getWindow(s, "fleet-changes")).status?.state === "Open" ? true : undefined), {
      timeoutMs: 20_000,
    });
  } finally {
    await c.stop();
    await setIdentity(s, null);
  }
});

test("a cluster that cannot confirm its identity opens by no fleet window and honours every fleet freeze, then follows its identity once it is there", async () => {
  const s = await setup(plane());
  await setIdentity(s, null);
  await createKustomization(s, "apps-rw");
  await createKustomization(s, "apps-rt");
  // Open all day, every day: a cluster that confirmed it is prod would take changes.
  await createWindow(s, "prod-changes", {
    clusterSelector: { matchLabels: { ring: "prod" } },
    schedules: [ALWAYS],
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
  });
  await createWindow(s, "apps-rt", { schedules: [ALWAYS], targets: [{ kind: "Kustomization", name: "apps-rt" }] });
  // A fleet freeze for other clusters: it cannot be told it is not this one's, so it holds.
  await createOverride(s, "lab-freeze", {
    clusterSelector: { matchLabels: { ring: "lab" } },
    windowRef: { name: "apps-rt" },
    action: "Freeze",
    until: inAnHour(),
    reason: "lab maintenance",
  });
  // A fleet Open cannot be confirmed either: it opens nothing.
  await createOverride(s, "prod-open", {
    clusterSelector: { matchLabels: { ring: "prod" } },
    windowRef: { name: "prod-changes" },
    action: "Open",
    until: inAnHour(),
    reason: "hotfix",
  });
  const c = await startController(s);
  try {
    await waitForSuspend(s, "apps-rw", true);
    await waitForSuspend(s, "apps-rt", true);
    const ready = await readyOf(s, "prod-changes", "IdentityUnconfirmed");
    assert.equal(ready.status, "False");
    assert.match(ready.message, /ConfigMap flux-system\/fluxgate-cluster does not exist.*none of its schedules opens here, its freezes hold$/);
    assert.match(await phaseOf(s, "prod-open", "NotSelected"), /an Open opens nothing on a cluster that cannot confirm it is its own/);
    assert.match(await phaseOf(s, "lab-freeze", "Active"), /^freezes window apps-rt/);

    // A broken identity is no better than none.
    await setIdentity(s, { cluster: "edge-berlin", labels: "- ring\n" });
    await c.settled();
    assert.equal((await getKustomization(s, "apps-rw")).spec?.suspend, true);

    // Confirmed as a prod cluster: its fleet window opens, the lab freeze lets go, the fleet Open applies.
    await setIdentity(s, { cluster: "edge-berlin", labels: "region: eu\nring: prod\n" });
    await waitForSuspend(s, "apps-rw", false);
    await waitForSuspend(s, "apps-rt", false);
    assert.equal((await readyOf(s, "prod-changes", "Reconciled")).status, "True");
    assert.match(await phaseOf(s, "lab-freeze", "NotSelected"), /cluster edge-berlin \(region=eu,ring=prod\) does not match/);
    await phaseOf(s, "prod-open", "Active");

    // The identity goes away again: fail safe at once.
    await setIdentity(s, null);
    await waitForSuspend(s, "apps-rw", true);
    await waitForSuspend(s, "apps-rt", true);
  } finally {
    await c.stop();
    await setIdentity(s, null);
  }
});

test("a controller that may not read the identity (its Role missing) still governs its own windows, and its fleet windows fail safe", async () => {
  const s = await setup(plane());
  const rbac = s.cp.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  await rbac.deleteNamespacedRoleBinding({ name: "fluxgate-cluster-identity", namespace: CLUSTER_IDENTITY_NAMESPACE });
  try {
    await setIdentity(s, { cluster: "edge-berlin", labels: "ring: prod\n" });
    await createKustomization(s, "apps-rw");
    await createKustomization(s, "apps-rt");
    await createWindow(s, "prod-changes", {
      clusterSelector: { matchLabels: { ring: "prod" } },
      schedules: [ALWAYS],
      targets: [{ kind: "Kustomization", name: "apps-rw" }],
    });
    await createWindow(s, "apps-rt", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rt" }] });
    const c = await startController(s);
    try {
      await waitForSuspend(s, "apps-rt", true);
      await waitForSuspend(s, "apps-rw", true);
      assert.match(
        (await readyOf(s, "prod-changes", "IdentityUnconfirmed")).message,
        /could not be listed yet \(does the Role fluxgate-cluster-identity exist there/,
      );
    } finally {
      await c.stop();
    }
  } finally {
    await installFluxgate(s.cp);
    await setIdentity(s, null);
  }
});
