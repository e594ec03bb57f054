// Integration smoke: the harness's real kube-apiserver serves the Flux CRDs, server-side apply, watches, Leases and RBAC.
import { CoordinationV1Api, CoreV1Api, CustomObjectsApi, KubernetesObjectApi, PatchStrategy, V1MicroTime, Watch } from "@kubernetes/client-node";
import type { KubernetesObject } from "@kubernetes/client-node";
import assert from "node:assert/strict";
import { test } from "node:test";
import { freshNamespace, serviceAccountKubeconfig, sharedControlPlane, statusOf, waitFor } from "../harness/index.ts";

interface Kustomization extends KubernetesObject {
  spec: { suspend?: boolean; interval: string; path: string; prune: boolean; sourceRef: { kind: string; name: string } };
}

const plane = sharedControlPlane();

const kustomizations = { group: "kustomize.toolkit.fluxcd.io", version: "v1", plural: "kustomizations" };

function kustomization(namespace: string, name: string): Kustomization {
  return {
    apiVersion: "kustomize.toolkit.fluxcd.io/v1",
    kind: "Kustomization",
    metadata: { name, namespace },
    spec: { interval: "10m", path: "./deploy", prune: true, sourceRef: { kind: "GitRepository", name: "gitops" } },
  };
}

test("creates and reads a GitRepository and a Kustomization", async () => {
  const cp = plane();
  const namespace = await freshNamespace(cp);
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  await custom.createNamespacedCustomObject({
    group: "source.toolkit.fluxcd.io",
    version: "v1",
    plural: "gitrepositories",
    namespace,
    body: {
      apiVersion: "source.toolkit.fluxcd.io/v1",
      kind: "GitRepository",
      metadata: { name: "gitops" },
      spec: { url: "https://git.example/fleet.git", interval: "1m", ref: { branch: "main" } },
    },
  });
  await custom.createNamespacedCustomObject({ ...kustomizations, namespace, body: kustomization(namespace, "apps-rw") });

  const repo = (await custom.getNamespacedCustomObject({
    group: "source.toolkit.fluxcd.io",
    version: "v1",
    plural: "gitrepositories",
    namespace,
    name: "gitops",
  })) as { spec: { url: string; ref: { branch: string } } };
  assert.equal(repo.spec.url, "https://git.example/fleet.git");
  assert.equal(repo.spec.ref.branch, "main");

  const ks = (await custom.getNamespacedCustomObject({ ...kustomizations, namespace, name: "apps-rw" })) as Kustomization;
  assert.deepEqual(ks.spec.sourceRef, { kind: "GitRepository", name: "gitops" });
  assert.equal(ks.spec.path, "./deploy");

  // The real CRD schema validates: a Kustomization without its required sourceRef is rejected.
  const invalid = { ...kustomization(namespace, "broken"), spec: { interval: "1m", prune: true } };
  assert.equal(await statusOf(custom.createNamespacedCustomObject({ ...kustomizations, namespace, body: invalid })), 422);
});

test("server-side apply with field manager fluxgate owns only spec.suspend, and a watch sees the change", async () => {
  const cp = plane();
  const namespace = await freshNamespace(cp);
  const objects = cp.kubeConfig.makeApiClient(KubernetesObjectApi);
  const ssa = PatchStrategy.ServerSideApply;
  // The Git side (here "gitops") applies the whole object; fluxgate then applies only spec.suspend.
  const created = await objects.patch(kustomization(namespace, "apps-rw"), undefined, undefined, "gitops", false, ssa);

  const events: { phase: string; suspend: boolean | undefined }[] = [];
  const watch = await new Watch(cp.kubeConfig).watch(
    `/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/${namespace}/kustomizations`,
    { resourceVersion: created.metadata?.resourceVersion, fieldSelector: "metadata.name=apps-rw" },
    (phase: string, obj: Kustomization) => events.push({ phase, suspend: obj.spec.suspend }),
    () => undefined,
  );
  try {
    const suspendOnly = {
      apiVersion: "kustomize.toolkit.fluxcd.io/v1",
      kind: "Kustomization",
      metadata: { name: "apps-rw", namespace },
      spec: { suspend: true },
    };
    const applied = (await objects.patch(suspendOnly, undefined, undefined, "fluxgate", false, ssa)) as Kustomization;
    assert.equal(applied.spec.suspend, true);
    assert.equal(applied.spec.path, "./deploy", "fields of other managers are kept");

    const fluxgateEntries = (applied.metadata?.managedFields ?? []).filter((m) => m.manager === "fluxgate");
    assert.equal(fluxgateEntries.length, 1);
    assert.equal(fluxgateEntries[0]?.operation, "Apply");
    assert.deepEqual(fluxgateEntries[0]?.fieldsV1, { "f:spec": { "f:suspend": {} } });

    // Ownership is real: another manager applying a different value conflicts unless it forces.
    const flip = { ...suspendOnly, spec: { ...kustomization(namespace, "apps-rw").spec, suspend: false } };
    assert.equal(await statusOf(objects.patch(flip, undefined, undefined, "gitops", false, ssa)), 409);

    const seen = await waitFor("a MODIFIED watch event with spec.suspend=true", () =>
      Promise.resolve(events.find((e) => e.phase === "MODIFIED" && e.suspend === true)),
    );
    assert.equal(seen.suspend, true);
  } finally {
    watch.abort();
  }
});

test("a Lease can be taken, and not taken twice", async () => {
  const cp = plane();
  const namespace = await freshNamespace(cp);
  const leases = cp.kubeConfig.makeApiClient(CoordinationV1Api);
  const lease = (holderIdentity: string): Parameters<CoordinationV1Api["createNamespacedLease"]>[0] => ({
    namespace,
    body: {
      metadata: { name: "fluxgate-leader" },
      spec: { holderIdentity, leaseDurationSeconds: 15, acquireTime: new V1MicroTime(), renewTime: new V1MicroTime() },
    },
  });
  await leases.createNamespacedLease(lease("replica-a"));
  const held = await leases.readNamespacedLease({ namespace, name: "fluxgate-leader" });
  assert.equal(held.spec?.holderIdentity, "replica-a");
  assert.equal(await statusOf(leases.createNamespacedLease(lease("replica-b"))), 409);

  // Optimistic concurrency: a renewal based on a stale resourceVersion loses.
  const renewed = await leases.replaceNamespacedLease({
    namespace,
    name: "fluxgate-leader",
    body: { ...held, spec: { ...held.spec, renewTime: new V1MicroTime() } },
  });
  assert.notEqual(renewed.metadata?.resourceVersion, held.metadata?.resourceVersion);
  const stale = { ...held, spec: { ...held.spec, holderIdentity: "replica-b" } };
  assert.equal(await statusOf(leases.replaceNamespacedLease({ namespace, name: "fluxgate-leader", body: stale })), 409);
});

test("a restricted ServiceAccount is denied what RBAC does not grant", async () => {
  const cp = plane();
  const namespace = await freshNamespace(cp);
  const other = await freshNamespace(cp, "other");
  const sa = await serviceAccountKubeconfig(cp, {
    namespace,
    name: "reader",
    rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }],
  });
  assert.equal(sa.username, `system:serviceaccount:${namespace}:reader`);
  const admin = cp.kubeConfig.makeApiClient(CoreV1Api);
  await admin.createNamespacedConfigMap({ namespace, body: { metadata: { name: "settings" }, data: { a: "1" } } });

  const core = sa.kubeConfig.makeApiClient(CoreV1Api);
  const read = await core.readNamespacedConfigMap({ namespace, name: "settings" });
  assert.equal(read.data?.["a"], "1");
  assert.equal((await core.listNamespacedConfigMap({ namespace })).items.length, 1);

  const denied: Record<string, () => Promise<unknown>> = {
    "create configmaps": () => core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "new" } } }),
    "list configmaps in another namespace": () => core.listNamespacedConfigMap({ namespace: other }),
    "list secrets": () => core.listNamespacedSecret({ namespace }),
    "list kustomizations": () => sa.kubeConfig.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({ ...kustomizations, namespace }),
  };
  for (const [what, call] of Object.entries(denied)) assert.equal(await statusOf(call()), 403, what);
});
