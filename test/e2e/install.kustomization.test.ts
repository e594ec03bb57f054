// Installing fluxgate the Flux way: a Flux Kustomization applies config/default from Git; the installed controller enforces a window; uninstalling in the
// documented order leaves no target suspended.

import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiextensionsV1Api, AppsV1Api, CustomObjectsApi, RbacAuthorizationV1Api } from "@kubernetes/client-node";
import { fluxNamespace, freshNamespace, kustomizeBuild, sharedControlPlane, waitFor } from "../harness/index.ts";
import { parseAllDocuments } from "yaml";
import {
  assertInstalled,
  createGitRepository,
  CRD_NAMES,
  deleteWindows,
  enforceClosedWindow,
  gone,
  KUSTOMIZATIONS,
  pushInstallSources,
  readyTrue,
  startInstalledController,
  suspendOf,
  type FluxObject,
} from "./install.ts";

const plane = sharedControlPlane({ flux: true, notifications: false });

test("a Flux Kustomization installs config/default from Git; the installed controller enforces a window; deleting the windows, then the Kustomization, leaves no target suspended", async (t) => {
  const cp = plane();
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const repoUrl = await pushInstallSources(cp, "fluxgate-install");
  await createGitRepository(cp, "fluxgate", repoUrl, "1m");
  // As docs/install.md shows it: the CRDs as health checks (a Deployment cannot become available without nodes).
  const started = Date.now();
  await custom.createNamespacedCustomObject({
    ...KUSTOMIZATIONS,
    namespace: fluxNamespace,
    body: {
      apiVersion: "kustomize.toolkit.fluxcd.io/v1",
      kind: "Kustomization",
      metadata: { name: "fluxgate" },
      spec: {
        interval: "1m",
        retryInterval: "2s",
        timeout: "1m",
        path: "./config/default",
        prune: true,
        sourceRef: { kind: "GitRepository", name: "fluxgate" },
        healthChecks: CRD_NAMES.map((name) => ({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name })),
      },
    },
  });
  const kustomization = (): Promise<FluxObject> =>
    custom.getNamespacedCustomObject({ ...KUSTOMIZATIONS, namespace: fluxNamespace, name: "fluxgate" }) as Promise<FluxObject>;
  await waitFor("the fluxgate Kustomization to be Ready", async () => readyTrue(await kustomization()), { timeoutMs: 120_000 });
  t.diagnostic(`Kustomization Ready ${Date.now() - started} ms after it was created`);
  const deployment = await assertInstalled(cp);
  // What kustomize-controller applied (its inventory) is every object `kustomize build config/default` makes.
  const inventory = ((await kustomization()) as { status?: { inventory?: { entries?: { id: string }[] } } }).status?.inventory?.entries?.map((x) => x.id) ?? [];
  const built = parseAllDocuments(await kustomizeBuild("config/default"))
    .map((d) => d.toJS() as { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } })
    .map((o) => `${o.metadata.namespace ?? ""}_${o.metadata.name}_${o.apiVersion.includes("/") ? o.apiVersion.split("/")[0] : ""}_${o.kind}`);
  assert.ok(built.length >= 10, `kustomize build config/default: ${built.join(", ")}`);
  assert.deepEqual([...inventory].sort(), [...built].sort(), "the Kustomization applied every object of config/default, and nothing else");

  const controller = await startInstalledController(cp, deployment);
  let stopped = false;
  t.after(async () => {
    if (!stopped) await controller.stop();
  });
  const namespace = await freshNamespace(cp, "e2e");
  const e = await enforceClosedWindow(cp.kubeConfig, namespace);

  // Uninstall, step 1: delete the windows while the controller runs; their finalizer releases the targets.
  await deleteWindows(cp.kubeConfig, e);
  assert.equal(await suspendOf(cp.kubeConfig, e), undefined, "deleting the window gave spec.suspend back to what the target's manifest declares (nothing)");
  // The controller logs the release once the finalizer is gone, which the test may see before the line comes through the controller's output.
  await waitFor(
    "the controller to log that its finalizer released the window's targets",
    () => Promise.resolve(controller.logs.some((l) => l.msg === "Released the targets of a deleted window") ? true : undefined),
    { timeoutMs: 10_000 },
  );

  // Step 2: delete the Kustomization; with prune, kustomize-controller deletes what it applied.
  await custom.deleteNamespacedCustomObject({ ...KUSTOMIZATIONS, namespace: fluxNamespace, name: "fluxgate" });
  await waitFor("the fluxgate Kustomization to be gone", async () => ((await gone(kustomization)) ? true : undefined), { timeoutMs: 60_000 });
  const apps = cp.kubeConfig.makeApiClient(AppsV1Api);
  const rbac = cp.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  const crds = cp.kubeConfig.makeApiClient(ApiextensionsV1Api);
  await waitFor(
    "the pruned objects to be gone",
    async () =>
      (await gone(() => apps.readNamespacedDeployment({ namespace: "fluxgate-system", name: "fluxgate-controller" }))) &&
      (await gone(() => rbac.readClusterRole({ name: "fluxgate-controller" }))) &&
      (await gone(() => rbac.readClusterRoleBinding({ name: "fluxgate-controller" }))) &&
      (await Promise.all(CRD_NAMES.map((name) => gone(() => crds.readCustomResourceDefinition({ name }))))).every(Boolean)
        ? true
        : undefined,
    { timeoutMs: 60_000 },
  );
  // The Deployment's pods go with it.
  await controller.stop();
  stopped = true;
  assert.equal(await suspendOf(cp.kubeConfig, e), undefined, "after the uninstall the target is not suspended");
});
