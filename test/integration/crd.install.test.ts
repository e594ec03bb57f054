// Installing fluxgate: the real kustomize builds config/default, the real API server accepts all of it, and the controller's identity has least privilege.
import {
  ApiException,
  ApiextensionsV1Api,
  AuthorizationV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  loadAllYaml,
} from "@kubernetes/client-node";
import type { KubernetesObject, V1Deployment, V1Pod } from "@kubernetes/client-node";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parse } from "yaml";
import {
  applyManifests,
  controllerServiceAccount,
  fluxgateNamespace,
  freshNamespace,
  installFluxgate,
  kustomizeBuild,
  sharedControlPlane,
  statusOf,
} from "../harness/index.ts";

const plane = sharedControlPlane();
const ROOT = new URL("../../", import.meta.url);

test("the real kustomize builds config/default and the API server accepts every object", async () => {
  const cp = plane();
  const yaml = await kustomizeBuild("config/default");
  const objects = (loadAllYaml(yaml) as KubernetesObject[]).map((o) => `${o.kind}/${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`);
  assert.deepEqual(objects.sort(), [
    "ClusterRole//fluxgate-controller",
    "ClusterRoleBinding//fluxgate-controller",
    "CustomResourceDefinition//reconciliationwindows.fluxgate.io",
    "CustomResourceDefinition//windowoverrides.fluxgate.io",
    "Deployment/fluxgate-system/fluxgate-controller",
    "Namespace//fluxgate-system",
    "Role/flux-system/fluxgate-cluster-identity",
    "Role/fluxgate-system/fluxgate-leader-election",
    "RoleBinding/flux-system/fluxgate-cluster-identity",
    "RoleBinding/fluxgate-system/fluxgate-leader-election",
    "Service/fluxgate-system/fluxgate-controller-metrics",
    "ServiceAccount/fluxgate-system/fluxgate-controller",
  ]);
  // Flux is installed first: the Role that reads the cluster's identity lives in its namespace.
  await applyManifests(cp.kubeConfig, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: flux-system\n");
  const applied = await applyManifests(cp.kubeConfig, yaml);
  assert.equal(applied.length, objects.length);
  // The Kubernetes extensions survived the trip through the client (a plain YAML parse would lose them).
  const crd = await cp.kubeConfig.makeApiClient(ApiextensionsV1Api).readCustomResourceDefinition({ name: "reconciliationwindows.fluxgate.io" });
  const schema = crd.spec.versions[0]?.schema?.openAPIV3Schema?.properties;
  assert.equal(schema?.["spec"]?.x_kubernetes_validations?.length, 2);
  assert.equal(schema?.["status"]?.properties?.["conditions"]?.x_kubernetes_list_type, "map");

  const deployment = (applied.find((o) => o.kind === "Deployment") as V1Deployment).spec!.template.spec!;
  const container = deployment.containers[0]!;
  assert.equal(container.image, "ghcr.io/fluxgate/fluxgate:0.1.0");
  assert.deepEqual(container.args, ["controller", "--leader-elect", "--metrics-addr=:8080", "--health-addr=:8081"]);
  assert.equal(deployment.serviceAccountName, controllerServiceAccount);
  assert.equal(deployment.securityContext?.runAsUser, 65532);
  assert.equal(container.securityContext?.readOnlyRootFilesystem, true);
  assert.equal(container.livenessProbe?.httpGet?.path, "/healthz");
  assert.equal(container.readinessProbe?.httpGet?.path, "/readyz");
  assert.ok(container.resources?.limits?.["memory"] && container.resources.requests?.["cpu"]);
});

test("the controller's pod meets the restricted Pod Security Standard of its namespace", async () => {
  const cp = plane();
  await applyManifests(cp.kubeConfig, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: flux-system\n");
  await applyManifests(cp.kubeConfig, await kustomizeBuild("config/default"));
  const manifest = parse(readFileSync(new URL("config/manager/deployment.yaml", ROOT), "utf8")) as V1Deployment;
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const pod = (name: string, mutate: (p: V1Pod) => void = () => undefined): V1Pod => {
    const p: V1Pod = { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: fluxgateNamespace }, spec: structuredClone(manifest.spec!.template.spec!) };
    mutate(p);
    return p;
  };
  // No kubelet runs here, so the pod stays Pending; admission is what is tested.
  await core.createNamespacedPod({ namespace: fluxgateNamespace, body: pod("fluxgate-pss-check") });
  await core.deleteNamespacedPod({ namespace: fluxgateNamespace, name: "fluxgate-pss-check", gracePeriodSeconds: 0 });
  // The check has teeth: the same pod with privilege escalation allowed is refused.
  const escalating = pod("fluxgate-pss-escalating", (p) => (p.spec!.containers[0]!.securityContext!.allowPrivilegeEscalation = true));
  await assert.rejects(core.createNamespacedPod({ namespace: fluxgateNamespace, body: escalating }), (err: unknown) => {
    const message = err instanceof ApiException ? (JSON.parse(String((err as ApiException<unknown>).body)) as { message: string }).message : "";
    return /violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false/.test(message);
  });
});

/** What the controller needs, and things it must not be able to do. `namespace` undefined means cluster-wide. */
const access: [verb: string, group: string, resource: string, namespace: string | undefined, allowed: boolean][] = [
  ["patch", "kustomize.toolkit.fluxcd.io", "kustomizations", "apps", true],
  ["watch", "kustomize.toolkit.fluxcd.io", "kustomizations", undefined, true],
  ["patch", "helm.toolkit.fluxcd.io", "helmreleases", "apps", true],
  ["list", "image.toolkit.fluxcd.io", "imageupdateautomations", undefined, true],
  ["patch", "image.toolkit.fluxcd.io", "imageupdateautomations", "apps", true],
  ["watch", "source.toolkit.fluxcd.io", "gitrepositories", undefined, true],
  ["create", "source.toolkit.fluxcd.io", "ocirepositories", "apps", true],
  ["get", "source.toolkit.fluxcd.io", "helmcharts", "apps", true],
  ["list", "source.toolkit.fluxcd.io", "buckets", undefined, true],
  ["watch", "fluxgate.io", "windowoverrides", undefined, true],
  ["update", "fluxgate.io", "reconciliationwindows", "apps", true],
  ["patch", "fluxgate.io", "reconciliationwindows/status", "apps", true],
  ["update", "fluxgate.io", "windowoverrides/status", "apps", true],
  ["update", "fluxgate.io", "reconciliationwindows/finalizers", "apps", true],
  ["create", "", "events", "apps", true],
  ["patch", "events.k8s.io", "events", "apps", true],
  ["create", "coordination.k8s.io", "leases", fluxgateNamespace, true],
  ["update", "coordination.k8s.io", "leases", fluxgateNamespace, true],
  // Denied: nothing on Secrets, nothing it does not use.
  ["get", "", "secrets", "apps", false],
  ["list", "", "secrets", undefined, false],
  ["get", "", "secrets", fluxgateNamespace, false],
  ["patch", "", "configmaps", "apps", false],
  ["create", "fluxgate.io", "reconciliationwindows", "apps", false],
  ["delete", "fluxgate.io", "windowoverrides", "apps", false],
  ["delete", "kustomize.toolkit.fluxcd.io", "kustomizations", "apps", false],
  ["update", "kustomize.toolkit.fluxcd.io", "kustomizations", "apps", false],
  ["patch", "source.toolkit.fluxcd.io", "helmrepositories", "apps", false],
  ["create", "coordination.k8s.io", "leases", "apps", false],
  ["patch", "apps", "deployments", fluxgateNamespace, false],
  ["create", "rbac.authorization.k8s.io", "rolebindings", fluxgateNamespace, false],
];

test("installFluxgate is idempotent and returns the controller's identity, which has exactly what it needs", async () => {
  const cp = plane();
  await installFluxgate(cp);
  const controller = await installFluxgate(cp);
  assert.equal(controller.username, `system:serviceaccount:${fluxgateNamespace}:${controllerServiceAccount}`);
  assert.match(readFileSync(controller.kubeconfigPath, "utf8"), /token:/);

  const reviews = controller.kubeConfig.makeApiClient(AuthorizationV1Api);
  const wrong: string[] = [];
  for (const [verb, group, resourcePath, namespace, allowed] of access) {
    const [resource, subresource] = resourcePath.split("/");
    const review = await reviews.createSelfSubjectAccessReview({
      body: { spec: { resourceAttributes: { verb, group, resource, subresource, namespace } } },
    });
    if (review.status?.allowed !== allowed)
      wrong.push(`${verb} ${group || "core"} ${resourcePath} in ${namespace ?? "all namespaces"}: expected ${allowed ? "allowed" : "denied"}`);
  }
  assert.deepEqual(wrong, []);
});

test("the controller's identity patches a Kustomization and a window's status for real, and is refused Secrets and ConfigMaps", async () => {
  const cp = plane();
  const controller = await installFluxgate(cp);
  const namespace = await freshNamespace(cp, "install");
  const admin = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  await admin.createNamespacedCustomObject({
    group: "kustomize.toolkit.fluxcd.io",
    version: "v1",
    plural: "kustomizations",
    namespace,
    body: {
      apiVersion: "kustomize.toolkit.fluxcd.io/v1",
      kind: "Kustomization",
      metadata: { name: "apps-rw", namespace },
      spec: { interval: "10m", path: "./deploy", prune: true, sourceRef: { kind: "GitRepository", name: "gitops" } },
    },
  });
  const window = parse(readFileSync(new URL("config/samples/fluxgate.io_v1alpha1_reconciliationwindow.yaml", ROOT), "utf8"));
  window.metadata.namespace = namespace;
  await admin.createNamespacedCustomObject({ group: "fluxgate.io", version: "v1alpha1", plural: "reconciliationwindows", namespace, body: window });
  await cp.kubeConfig.makeApiClient(CoreV1Api).createNamespacedSecret({ namespace, body: { metadata: { name: "token" }, stringData: { token: "s3cr3t" } } });
  await cp.kubeConfig.makeApiClient(CoreV1Api).createNamespacedConfigMap({ namespace, body: { metadata: { name: "settings" }, data: { a: "1" } } });

  const suspend = { apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", metadata: { name: "apps-rw", namespace }, spec: { suspend: true } };
  const patched = (await controller.kubeConfig
    .makeApiClient(KubernetesObjectApi)
    .patch(suspend, undefined, undefined, "fluxgate", false, PatchStrategy.ServerSideApply)) as KubernetesObject & { spec: { suspend: boolean } };
  assert.equal(patched.spec.suspend, true);

  const custom = controller.kubeConfig.makeApiClient(CustomObjectsApi);
  const status = await custom.patchNamespacedCustomObjectStatus({
    group: "fluxgate.io",
    version: "v1alpha1",
    plural: "reconciliationwindows",
    namespace,
    name: "weekday-changes",
    body: [{ op: "add", path: "/status", value: { state: "Closed", reason: "Outside every schedule" } }],
  });
  assert.equal((status as { status: { state: string } }).status.state, "Closed");

  const core = controller.kubeConfig.makeApiClient(CoreV1Api);
  assert.equal(await statusOf(core.readNamespacedSecret({ namespace, name: "token" })), 403, "get a Secret");
  assert.equal(await statusOf(core.listSecretForAllNamespaces()), 403, "list Secrets");
  const configMapPatch = [{ op: "replace", path: "/data/a", value: "2" }];
  assert.equal(await statusOf(core.patchNamespacedConfigMap({ namespace, name: "settings", body: configMapPatch })), 403, "patch a ConfigMap");

  const leases = controller.kubeConfig.makeApiClient(CoordinationV1Api);
  const lease = { metadata: { name: "fluxgate-leader" }, spec: { holderIdentity: "test", leaseDurationSeconds: 15 } };
  assert.equal(await statusOf(leases.createNamespacedLease({ namespace: fluxgateNamespace, body: lease })), 200, "take the Lease in its namespace");
  assert.equal(await statusOf(leases.createNamespacedLease({ namespace, body: lease })), 403, "a Lease elsewhere");
});
