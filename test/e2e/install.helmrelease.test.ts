// Installing fluxgate with a HelmRelease of charts/fluxgate (rendered by the real helm-controller): the same objects as config/default, a working controller,
// and an uninstall with the controller gone first that `fluxgate release --all` cleans up.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import { test } from "node:test";
import { parseAllDocuments } from "yaml";
import { ApiextensionsV1Api, AppsV1Api, CoreV1Api, CustomObjectsApi, RbacAuthorizationV1Api, type V1CustomResourceDefinition } from "@kubernetes/client-node";
import { fluxgateNamespace, fluxNamespace, freshNamespace, kustomizeBuild, pushCommit, sharedControlPlane, waitFor } from "../harness/index.ts";
import { fluxgate } from "../support/cli.ts";
import {
  assertInstalled,
  createGitRepository,
  CRD_NAMES,
  deleteWindows,
  enforceClosedWindow,
  gone,
  HELMRELEASES,
  pushInstallSources,
  readyTrue,
  startInstalledController,
  suspendOf,
  WINDOWS,
  waitForCrds,
  type FluxObject,
} from "./install.ts";

const plane = sharedControlPlane({ flux: true, notifications: false });

/** Labels and annotations Helm and helm-controller put on what they install; the rest must be equal. */
const HELM_LABELS = [
  "app.kubernetes.io/instance",
  "app.kubernetes.io/managed-by",
  "app.kubernetes.io/version",
  "helm.sh/chart",
  "helm.toolkit.fluxcd.io/name",
  "helm.toolkit.fluxcd.io/namespace",
];
const HELM_ANNOTATION = /^meta\.helm\.sh\//;

interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
}

function withoutHelmMarks(o: Manifest): Manifest {
  const copy = structuredClone(o);
  for (const l of HELM_LABELS) delete copy.metadata.labels?.[l];
  for (const a of Object.keys(copy.metadata.annotations ?? {})) if (HELM_ANNOTATION.test(a)) delete copy.metadata.annotations?.[a];
  if (copy.metadata.annotations !== undefined && Object.keys(copy.metadata.annotations).length === 0) delete copy.metadata.annotations;
  return copy;
}

/** A client model as the plain JSON it stands for. */
function plain(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

function byKey(objects: Manifest[]): Map<string, Manifest> {
  return new Map(objects.map((o) => [`${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`, withoutHelmMarks(o)]));
}

function parseObjects(yaml: string): Manifest[] {
  return parseAllDocuments(yaml)
    .map((d) => d.toJS() as Manifest | null)
    .filter((o): o is Manifest => o !== null);
}

/**
 * A HelmRelease of charts/fluxgate from the GitRepository `source`, as docs/install.md shows it, but
 * for disableWait: a control plane without nodes runs no pods, so the Deployment never becomes available.
 */
function helmRelease(name: string, source: string, values: object = {}): object {
  return {
    apiVersion: "helm.toolkit.fluxcd.io/v2",
    kind: "HelmRelease",
    metadata: { name },
    spec: {
      interval: "1m",
      releaseName: "fluxgate",
      targetNamespace: fluxgateNamespace,
      storageNamespace: fluxgateNamespace,
      chart: { spec: { chart: "./charts/fluxgate", reconcileStrategy: "Revision", sourceRef: { kind: "GitRepository", name: source }, interval: "1m" } },
      install: { createNamespace: true, crds: "CreateReplace", disableWait: true },
      upgrade: { crds: "CreateReplace", disableWait: true },
      values,
    },
  };
}

interface HelmReleaseObject extends FluxObject {
  status?: FluxObject["status"] & { storageNamespace?: string; history?: { name: string; version: number }[] };
}

/** What Helm recorded for the latest release: the chart's templates as rendered (and post-rendered by helm-controller). */
async function releasedManifest(core: CoreV1Api, hr: HelmReleaseObject): Promise<string> {
  const latest = hr.status?.history?.[0];
  const storage = hr.status?.storageNamespace;
  assert.ok(latest !== undefined && storage !== undefined, `the HelmRelease names its release: ${JSON.stringify(hr.status)}`);
  const secret = await core.readNamespacedSecret({ namespace: storage, name: `sh.helm.release.v1.${latest.name}.v${latest.version}` });
  // Helm's storage: base64 of gzipped JSON, and the Secret's data base64 once more.
  const encoded = Buffer.from(secret.data?.["release"] ?? "", "base64").toString("utf8");
  const release = JSON.parse(gunzipSync(Buffer.from(encoded, "base64")).toString("utf8")) as { manifest: string };
  return release.manifest;
}

test("a HelmRelease of charts/fluxgate installs the same objects as config/default; the installed controller enforces a window; with the controller uninstalled first, fluxgate release --all resumes the target", async (t) => {
  const cp = plane();
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const repoUrl = await pushInstallSources(cp, "fluxgate-chart");
  await createGitRepository(cp, "fluxgate", repoUrl, "1m");
  const started = Date.now();
  await custom.createNamespacedCustomObject({ ...HELMRELEASES, namespace: fluxNamespace, body: helmRelease("fluxgate", "fluxgate") });
  const current = (): Promise<HelmReleaseObject> =>
    custom.getNamespacedCustomObject({ ...HELMRELEASES, namespace: fluxNamespace, name: "fluxgate" }) as Promise<HelmReleaseObject>;
  await waitFor("the fluxgate HelmRelease to be Ready", async () => readyTrue(await current()), { timeoutMs: 120_000 });
  t.diagnostic(`HelmRelease Ready ${Date.now() - started} ms after it was created`);
  const deployment = await assertInstalled(cp);

  // One truth: the chart renders what kustomize builds from config/default, but for the Namespace
  // (Helm's release namespace is made by install.createNamespace) and the CRDs (crds/, the same
  // files as config/crd, test/unit/api/crd.generated.test.ts).
  const chart = byKey(parseObjects(await releasedManifest(core, await current())));
  const kustomize = byKey(parseObjects(await kustomizeBuild("config/default")).filter((o) => o.kind !== "Namespace" && o.kind !== "CustomResourceDefinition"));
  assert.deepEqual([...chart.keys()].sort(), [...kustomize.keys()].sort(), "the chart and config/default make the same objects");
  for (const [key, object] of kustomize) assert.deepEqual(chart.get(key), object, `${key}: the chart renders what config/default declares`);

  const controller = await startInstalledController(cp, deployment);
  let stopped = false;
  t.after(async () => {
    if (!stopped) await controller.stop();
  });
  const namespace = await freshNamespace(cp, "e2e");
  const e = await enforceClosedWindow(cp.kubeConfig, namespace);

  // Uninstalled out of order: the HelmRelease goes (and the controller's pods with its Deployment)
  // while the window still holds its target. Helm keeps the CRDs, so the window stays too.
  await custom.deleteNamespacedCustomObject({ ...HELMRELEASES, namespace: fluxNamespace, name: "fluxgate" });
  await waitFor("the HelmRelease to be gone", async () => ((await gone(current)) ? true : undefined), { timeoutMs: 60_000 });
  const apps = cp.kubeConfig.makeApiClient(AppsV1Api);
  const rbac = cp.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  await waitFor(
    "helm uninstall to remove the Deployment and RBAC",
    async () =>
      (await gone(() => apps.readNamespacedDeployment({ namespace: fluxgateNamespace, name: "fluxgate-controller" }))) &&
      (await gone(() => rbac.readClusterRoleBinding({ name: "fluxgate-controller" })))
        ? true
        : undefined,
    { timeoutMs: 60_000 },
  );
  await controller.stop();
  stopped = true;
  assert.equal(await suspendOf(cp.kubeConfig, e), true, "with the controller gone first, the target stays suspended: what release --all is for");

  // The way out docs/install.md gives: release everything fluxgate holds, then let the windows go.
  const dry = await fluxgate("release", "--all", "-A", "--dry-run", "--kubeconfig", cp.kubeconfigPath);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, new RegExp(`Would release Kustomization ${namespace}/${e.target}: spec.suspend true → unset \\(resumed\\)`));
  assert.equal(await suspendOf(cp.kubeConfig, e), true, "--dry-run changed nothing");
  const run = await fluxgate("release", "--all", "-A", "--kubeconfig", cp.kubeconfigPath);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(await suspendOf(cp.kubeConfig, e), undefined, "release --all gave spec.suspend back to what the target's manifest declares (nothing)");

  await custom.patchNamespacedCustomObject({ ...WINDOWS, namespace, name: e.window, body: [{ op: "remove", path: "/metadata/finalizers" }] });
  const crds = cp.kubeConfig.makeApiClient(ApiextensionsV1Api);
  for (const name of CRD_NAMES) await crds.deleteCustomResourceDefinition({ name });
  await waitFor(
    "the CRDs (and with them the window) to be gone",
    async () => ((await Promise.all(CRD_NAMES.map((name) => gone(() => crds.readCustomResourceDefinition({ name }))))).every(Boolean) ? true : undefined),
    {
      timeoutMs: 60_000,
    },
  );
  assert.equal(await suspendOf(cp.kubeConfig, e), undefined, "after the uninstall the target is not suspended");
});

/** Stand-ins for the Prometheus Operator's CRDs (schema-less): enough for Helm to apply the monitors the chart renders. */
function monitorCrd(kind: "ServiceMonitor" | "PodMonitor"): V1CustomResourceDefinition {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.monitoring.coreos.com` },
    spec: {
      group: "monitoring.coreos.com",
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      scope: "Namespaced",
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", x_kubernetes_preserve_unknown_fields: true } } }],
    },
  };
}

test("chart values: namespaced RBAC, watched namespaces, controller flags, monitors; the controller enforces with RoleBindings only; an upgrade with crds CreateReplace replaces changed CRDs; windows deleted before the HelmRelease leave no target suspended; a bad value fails the install with its reason", async (t) => {
  const cp = plane();
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const namespace = await freshNamespace(cp, "e2e");
  const crds = cp.kubeConfig.makeApiClient(ApiextensionsV1Api);
  for (const kind of ["ServiceMonitor", "PodMonitor"] as const) await crds.createCustomResourceDefinition({ body: monitorCrd(kind) });
  const repoUrl = await pushInstallSources(cp, "fluxgate-chart-values");
  await createGitRepository(cp, "fluxgate-values", repoUrl, "2s");
  const get = (name: string): Promise<FluxObject> =>
    custom.getNamespacedCustomObject({ ...HELMRELEASES, namespace: fluxNamespace, name }) as Promise<FluxObject>;

  // A value the chart refuses: the install fails and says why.
  await custom.createNamespacedCustomObject({
    ...HELMRELEASES,
    namespace: fluxNamespace,
    body: helmRelease("fluxgate-bad", "fluxgate-values", { rbac: { scope: "namespaced" } }),
  });
  const failed = await waitFor("the bad HelmRelease to fail", async () =>
    (await get("fluxgate-bad")).status?.conditions?.find(
      (c) => c.type === "Ready" && c.status === "False" && /rbac\.scope namespaced needs watchNamespaces/.test(c.message ?? ""),
    ),
  );
  assert.match(failed.message ?? "", /rbac\.scope namespaced needs watchNamespaces/);
  await custom.deleteNamespacedCustomObject({ ...HELMRELEASES, namespace: fluxNamespace, name: "fluxgate-bad" });
  await waitFor("the bad HelmRelease to be gone", async () => ((await gone(() => get("fluxgate-bad"))) ? true : undefined));

  await custom.createNamespacedCustomObject({
    ...HELMRELEASES,
    namespace: fluxNamespace,
    body: helmRelease("fluxgate", "fluxgate-values", {
      replicas: 1,
      image: { repository: "registry.example.com/fluxgate", tag: "dev" },
      leaderElection: { leaseDuration: "6s" },
      watchNamespaces: [namespace],
      targetKinds: ["Kustomization"],
      noCrossNamespaceRefs: true,
      logLevel: "debug",
      eventsAddress: "http://notification-controller.flux-system.svc.cluster.local./",
      rbac: { scope: "namespaced" },
      heapSizeMiB: 256,
      // Values merge with the defaults; null removes one (here: the CPU limit).
      resources: { requests: { cpu: "100m", memory: "256Mi" }, limits: { cpu: null, memory: "768Mi" } },
      metrics: { serviceMonitor: { enabled: true, interval: "30s", labels: { release: "prometheus" } }, podMonitor: { enabled: true } },
    }),
  });
  await waitFor("the HelmRelease to be Ready", async () => readyTrue(await get("fluxgate")), { timeoutMs: 120_000 });
  await waitForCrds(cp.kubeConfig);
  const deployment = await cp.kubeConfig.makeApiClient(AppsV1Api).readNamespacedDeployment({ namespace: fluxgateNamespace, name: "fluxgate-controller" });
  const container = deployment.spec?.template.spec?.containers[0];
  assert.equal(deployment.spec?.replicas, 1);
  assert.equal(container?.image, "registry.example.com/fluxgate:dev");
  assert.deepEqual(container?.args, [
    "controller",
    "--leader-elect",
    "--metrics-addr=:8080",
    "--health-addr=:8081",
    "--leader-election-lease-duration=6s",
    `--namespace=${namespace}`,
    "--target-kinds=Kustomization",
    "--no-cross-namespace-refs",
    "--events-address=http://notification-controller.flux-system.svc.cluster.local./",
    "--log-level=debug",
  ]);
  assert.equal(container?.env?.find((v) => v.name === "NODE_OPTIONS")?.value, "--max-old-space-size=256 --max-semi-space-size=2");
  assert.deepEqual(plain(container?.resources), { requests: { cpu: "100m", memory: "256Mi" }, limits: { memory: "768Mi" } });
  const rbac = cp.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  assert.ok(await gone(() => rbac.readClusterRoleBinding({ name: "fluxgate-controller" })), "namespaced scope binds no ClusterRoleBinding");
  const binding = await rbac.readNamespacedRoleBinding({ namespace, name: "fluxgate-controller" });
  assert.deepEqual(plain(binding.roleRef), { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "fluxgate-controller" });
  const monitors = async (plural: string): Promise<{ spec: Record<string, unknown>; metadata: { labels?: Record<string, string> } }> =>
    (await custom.getNamespacedCustomObject({
      group: "monitoring.coreos.com",
      version: "v1",
      plural,
      namespace: fluxgateNamespace,
      name: "fluxgate-controller",
    })) as {
      spec: Record<string, unknown>;
      metadata: { labels?: Record<string, string> };
    };
  const podLabels = deployment.spec?.template.metadata?.labels;
  const serviceMonitor = await monitors("servicemonitors");
  assert.equal(serviceMonitor.metadata.labels?.["release"], "prometheus");
  assert.deepEqual(serviceMonitor.spec, {
    namespaceSelector: { matchNames: [fluxgateNamespace] },
    selector: { matchLabels: plain(podLabels) },
    endpoints: [{ port: "http-metrics", path: "/metrics", interval: "30s" }],
  });
  const service = await cp.kubeConfig.makeApiClient(CoreV1Api).readNamespacedService({ namespace: fluxgateNamespace, name: "fluxgate-controller-metrics" });
  assert.deepEqual(plain(service.spec?.selector), plain(podLabels), "the ServiceMonitor's selector finds the Service, whose selector finds the pods");
  const podMonitor = await monitors("podmonitors");
  assert.deepEqual(podMonitor.spec, {
    namespaceSelector: { matchNames: [fluxgateNamespace] },
    selector: { matchLabels: plain(podLabels) },
    podMetricsEndpoints: [{ port: "http-metrics", path: "/metrics" }],
  });
  assert.ok(
    container?.ports?.some((p) => p.name === "http-metrics"),
    "the monitors' port is the container's",
  );

  // The controller, as the Deployment runs it, with RBAC in its namespace only (and events to a
  // receiver that does not exist here: posting them fails quietly, enforcement does not depend on it).
  const controller = await startInstalledController(cp, deployment);
  t.after(() => controller.stop());
  const e = await enforceClosedWindow(cp.kubeConfig, namespace);

  // Upgrading: Helm never touches crds/ on an upgrade; upgrade.crds CreateReplace makes helm-controller replace them.
  const crdFile = "charts/fluxgate/crds/fluxgate.io_windowoverrides.yaml";
  const changed = (await readFile(new URL(`../../${crdFile}`, import.meta.url), "utf8")).replace(
    "    app.kubernetes.io/component: crd\n",
    '    app.kubernetes.io/component: crd\n    fluxgate.io/upgraded: "true"\n',
  );
  assert.match(changed, /fluxgate\.io\/upgraded/);
  await pushCommit(repoUrl, { [crdFile]: changed }, "a changed CRD");
  await waitFor(
    "the upgrade to replace the CRD",
    async () =>
      (await crds.readCustomResourceDefinition({ name: "windowoverrides.fluxgate.io" })).metadata?.labels?.["fluxgate.io/upgraded"] === "true"
        ? true
        : undefined,
    { timeoutMs: 90_000 },
  );
  assert.equal(await suspendOf(cp.kubeConfig, e), true, "the window holds across the upgrade");

  // Uninstalling in the documented order: the windows first (their finalizer releases the targets), then the HelmRelease.
  await deleteWindows(cp.kubeConfig, e);
  assert.equal(await suspendOf(cp.kubeConfig, e), undefined, "deleting the window gave spec.suspend back to what the target's manifest declares (nothing)");
  await custom.deleteNamespacedCustomObject({ ...HELMRELEASES, namespace: fluxNamespace, name: "fluxgate" });
  await waitFor("the HelmRelease to be gone", async () => ((await gone(() => get("fluxgate"))) ? true : undefined), { timeoutMs: 60_000 });
  await waitFor(
    "helm uninstall to remove the Deployment",
    async () =>
      (await gone(() => cp.kubeConfig.makeApiClient(AppsV1Api).readNamespacedDeployment({ namespace: fluxgateNamespace, name: "fluxgate-controller" })))
        ? true
        : undefined,
    {
      timeoutMs: 60_000,
    },
  );
  await controller.stop();
  assert.equal(await suspendOf(cp.kubeConfig, e), undefined, "after the uninstall the target is not suspended");
});
