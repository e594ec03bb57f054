// `fluxgate release --all`: with fluxgate's CRDs deleted and its controller gone, the targets it left suspended are given back.

import { ApiextensionsV1Api, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import assert from "node:assert/strict";
import { test } from "node:test";
import type { FluxObject } from "../../../src/kube/flux.ts";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import {
  createKustomization,
  createWindow,
  getKustomization,
  getWindow,
  KUSTOMIZATIONS,
  setup,
  startController,
  waitForSuspend,
  WINDOWS,
  YEARLY,
} from "../controller/helpers.ts";
import { fluxgate, GITREPOSITORIES, kubeFlags } from "./helpers.ts";

// Its own control plane: this file deletes fluxgate's CRDs.
const plane = sharedControlPlane();

const ownedByFluxgate = (o: FluxObject): string[] => (o.metadata?.managedFields ?? []).filter((m) => m.manager === "fluxgate").map((m) => m.operation ?? "");

test("release --all gives back what fluxgate's field manager owns, with its CRDs deleted: targets resume, gated sources lose their ownerReference and are listed", async () => {
  const s = await setup(plane());
  const ns = s.namespace;
  await createKustomization(s, "apps-rw");
  // Suspended by someone else as well: fluxgate's release leaves their value.
  await s.custom.createNamespacedCustomObject({
    ...KUSTOMIZATIONS,
    namespace: ns,
    fieldManager: "kustomize-controller",
    body: {
      apiVersion: "kustomize.toolkit.fluxcd.io/v1",
      kind: "Kustomization",
      metadata: { name: "parked" },
      spec: { interval: "10m", path: "./parked", prune: true, suspend: true, sourceRef: { kind: "GitRepository", name: "gitops" } },
    },
  });
  await createKustomization(s, "untouched");
  await s.custom.createNamespacedCustomObject({
    ...KUSTOMIZATIONS,
    namespace: ns,
    body: {
      apiVersion: "kustomize.toolkit.fluxcd.io/v1",
      kind: "Kustomization",
      metadata: { name: "apps-gated" },
      spec: { interval: "10m", path: "./deploy", prune: true, sourceRef: { kind: "GitRepository", name: "gitops-weekday" } },
    },
  });
  await createWindow(s, "weekday-changes", {
    schedules: [YEARLY],
    targets: [
      { kind: "Kustomization", name: "apps-rw" },
      { kind: "Kustomization", name: "parked" },
    ],
  });
  const c = await startController(s);
  try {
    await waitForSuspend(s, "apps-rw", true);
    await waitFor("fluxgate owns parked's spec.suspend too", async () =>
      ownedByFluxgate(await getKustomization(s, "parked")).includes("Apply") ? true : undefined,
    );
  } finally {
    await c.stop();
  }
  // A gated source as Gate mode creates it: applied by fluxgate, labelled, owned by its window.
  const window = await getWindow(s, "weekday-changes");
  const commit = "3f2a9c1d0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a49";
  await s.custom.patchNamespacedCustomObject(
    {
      ...GITREPOSITORIES,
      namespace: ns,
      name: "gitops-weekday",
      fieldManager: "fluxgate",
      force: true,
      body: {
        apiVersion: "source.toolkit.fluxcd.io/v1",
        kind: "GitRepository",
        metadata: {
          name: "gitops-weekday",
          namespace: ns,
          labels: { "fluxgate.io/window": "weekday-changes" },
          ownerReferences: [
            { apiVersion: "fluxgate.io/v1alpha1", kind: "ReconciliationWindow", name: "weekday-changes", uid: window.metadata?.uid ?? "", controller: true },
          ],
        },
        spec: { url: "https://git.example/fleet.git", interval: "1m", ref: { branch: "main", commit } },
      },
    },
    setHeaderOptions("Content-Type", PatchStrategy.ServerSideApply),
  );

  // The uninstall gone wrong: the controller is gone, the CRDs deleted, the windows' finalizers removed by hand.
  const crds = s.cp.kubeConfig.makeApiClient(ApiextensionsV1Api);
  for (const name of ["reconciliationwindows.fluxgate.io", "windowoverrides.fluxgate.io"]) await crds.deleteCustomResourceDefinition({ name });
  // While the CRDs terminate, the window waits on its finalizer: status says so, and how to give the targets back.
  await waitFor(
    "the window being deleted",
    async () => {
      const w = (await s.custom.getNamespacedCustomObject({ ...WINDOWS, namespace: ns, name: "weekday-changes" })) as {
        metadata?: { deletionTimestamp?: string };
      };
      return w.metadata?.deletionTimestamp !== undefined ? true : undefined;
    },
    { timeoutMs: 30_000 },
  );
  const terminating = await fluxgate("status", "-A", "--kubeconfig", s.cp.kubeconfigPath);
  assert.equal(terminating.code, 0, terminating.stderr);
  assert.match(
    terminating.stdout,
    /weekday-changes: being deleted since .*: the controller releases its targets first \(is it running\?\)\. If fluxgate is being uninstalled \(its CRDs deleted\), give every target back with: fluxgate release --all$/m,
  );
  assert.doesNotMatch(terminating.stdout, /kubectl apply -k config\/default/);
  await s.custom.patchNamespacedCustomObject(
    { ...WINDOWS, namespace: ns, name: "weekday-changes", body: { metadata: { finalizers: null } } },
    setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
  );
  await waitFor(
    "the CRDs gone",
    async () => {
      const left = (await crds.listCustomResourceDefinition()).items.filter((d) => d.spec.group === "fluxgate.io");
      return left.length === 0 ? true : undefined;
    },
    { timeoutMs: 30_000 },
  );
  assert.equal((await getKustomization(s, "apps-rw")).spec?.suspend, true, "left suspended");

  const refused = await fluxgate("release", ...kubeFlags(s));
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /^error: release needs --all/);

  const dry = await fluxgate("release", "--all", "--dry-run", ...kubeFlags(s));
  assert.equal(dry.code, 0, dry.stderr);
  assert.equal(
    dry.stdout,
    [
      `Would release Kustomization ${ns}/apps-rw: spec.suspend true → unset (resumed); fluxgate gives up spec.suspend`,
      `Would release Kustomization ${ns}/parked: spec.suspend stays true (also set by kustomize-controller); fluxgate gives up spec.suspend`,
      `  still suspended: remove spec.suspend from what kustomize-controller applies (e.g. the parent Kustomization's manifest in Git), or run flux resume`,
      `Kept gated source GitRepository ${ns}/gitops-weekday (of window weekday-changes, pinned to ${commit}): would remove its ownerReference to window weekday-changes, so garbage collection cannot delete it; point Kustomization/${ns}/apps-gated back at the upstream source, then delete it`,
      `Dry run: would release 2 object(s), kept 1 gated source(s) in namespace ${ns}. Nothing was changed.`,
      // The test control plane has no image-automation CRDs: said, not an error.
      "Note: ImageUpdateAutomation: not served by the cluster (its CRD is not installed); nothing to release",
      "",
    ].join("\n"),
  );
  assert.equal((await getKustomization(s, "apps-rw")).spec?.suspend, true, "a dry run changes nothing");

  const run = await fluxgate("release", "--all", ...kubeFlags(s), "-o", "json");
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout) as {
    dryRun: boolean;
    released: { name: string; suspendAfter: boolean }[];
    gatedSources: { name: string; ownerReferenceRemoved: boolean; referencedBy: string[] }[];
    notes: string[];
  };
  assert.equal(result.dryRun, false);
  assert.deepEqual(
    result.released.map((r) => [r.name, r.suspendAfter]),
    [
      ["apps-rw", false],
      ["parked", true],
    ],
  );
  assert.deepEqual(result.gatedSources, [
    {
      kind: "GitRepository",
      namespace: ns,
      name: "gitops-weekday",
      window: "weekday-changes",
      pinned: commit,
      ownerReferenceRemoved: true,
      referencedBy: [`Kustomization/${ns}/apps-gated`],
    },
  ]);

  const resumed = await getKustomization(s, "apps-rw");
  assert.equal(resumed.spec?.suspend, undefined, "resumed: the field fluxgate owned is gone");
  assert.deepEqual(ownedByFluxgate(resumed), []);
  const parked = await getKustomization(s, "parked");
  assert.equal(parked.spec?.suspend, true);
  assert.deepEqual(ownedByFluxgate(parked), []);
  const gated = (await s.custom.getNamespacedCustomObject({ ...GITREPOSITORIES, namespace: ns, name: "gitops-weekday" })) as FluxObject;
  assert.deepEqual(gated.metadata?.ownerReferences ?? [], []);
  assert.equal((gated.spec?.ref as { commit?: string }).commit, commit, "kept as it was");
  assert.deepEqual(ownedByFluxgate(await getKustomization(s, "untouched")), []);

  const again = await fluxgate("release", "--all", ...kubeFlags(s));
  assert.equal(again.code, 0, again.stderr);
  assert.match(
    again.stdout,
    new RegExp(
      `^Kept gated source GitRepository ${ns}/gitops-weekday \\(of window weekday-changes, pinned to ${commit}\\): it has no ownerReference to a window;`,
      "m",
    ),
  );
  assert.doesNotMatch(again.stdout, /Released Kustomization/);
});
