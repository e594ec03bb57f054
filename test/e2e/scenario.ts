// The users' scenario on real Flux (the demo's application files), with a parent Kustomization that applies apps-rt and apps-rw from Git.

import { AppsV1Api, CoreV1Api, CustomObjectsApi, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from "@kubernetes/client-node";
import { repositoryFiles } from "../../src/demo/scenario.ts";
import type { Controller } from "../../src/controller/controller.ts";
import { startTestController } from "../support/controller.ts";
import { createRepository, freshNamespace, installFluxgate, pushCommit, waitFor, type ControlPlane } from "../harness/index.ts";

/** Short Flux intervals keep the story quick. */
export const INTERVAL = "2s";

/** The Flux Kustomizations of the cluster directory; the parent Kustomization applies them from Git. */
export function fluxKustomizations(namespace: string, rwSource: string, rwSuspendInGit: boolean): string {
  const common = (name: string, path: string, source: string, extra: string): string => `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  interval: ${INTERVAL}
  retryInterval: ${INTERVAL}
  path: ${path}
  prune: true
  targetNamespace: ${namespace}
  sourceRef:
    kind: GitRepository
    name: ${source}
${extra}`;
  return [
    common("apps-rt", "./apps/nginx-rt", "gitops", ""),
    common("apps-rw", "./apps/nginx-rw", rwSource, `  dependsOn:\n    - name: apps-rt\n${rwSuspendInGit ? "  suspend: false\n" : ""}`),
  ].join("---\n");
}

export interface Scenario {
  cp: ControlPlane;
  namespace: string;
  repoUrl: string;
  custom: CustomObjectsApi;
  apps: AppsV1Api;
  core: CoreV1Api;
  /** Pushes the application files and the cluster directory; returns the commit. */
  push: (files: { conf: string; image: string; rwSuspendInGit?: boolean }, message: string) => Promise<string>;
  image: () => Promise<string | undefined>;
  conf: () => Promise<string | undefined>;
  apply: (body: KubernetesObject) => Promise<void>;
}

/** Creates the namespace, the repository with the first commit, the upstream GitRepository and the parent Kustomization. */
export async function startScenario(cp: ControlPlane, rwSource: string): Promise<Scenario> {
  const namespace = await freshNamespace(cp, "e2e");
  const repoUrl = await createRepository(cp, `fleet-${namespace}`);
  const objects = cp.kubeConfig.makeApiClient(KubernetesObjectApi);
  const apps = cp.kubeConfig.makeApiClient(AppsV1Api);
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const s: Scenario = {
    cp,
    namespace,
    repoUrl,
    custom: cp.kubeConfig.makeApiClient(CustomObjectsApi),
    apps,
    core,
    push: (f, message) =>
      pushCommit(
        repoUrl,
        {
          ...repositoryFiles({ conf: f.conf, image: f.image }),
          "clusters/e2e/apps.yaml": fluxKustomizations(namespace, rwSource, f.rwSuspendInGit ?? false),
        },
        message,
      ),
    image: async () => {
      try {
        return (await apps.readNamespacedDeployment({ namespace, name: "nginx" })).spec?.template.spec?.containers[0]?.image;
      } catch {
        return undefined;
      }
    },
    conf: async () => {
      try {
        return (await core.readNamespacedConfigMap({ namespace, name: "nginx-conf" })).data?.["nginx.conf"]?.split("\n")[0];
      } catch {
        return undefined;
      }
    },
    apply: async (body) => {
      await objects.patch(body, undefined, undefined, "e2e", true, PatchStrategy.ServerSideApply);
    },
  };
  return s;
}

/** The upstream GitRepository and the parent Kustomization (`flux`) that applies the cluster directory, every `parentInterval`. */
export async function applyFlux(s: Scenario, parentInterval = INTERVAL): Promise<void> {
  await s.apply({
    apiVersion: "source.toolkit.fluxcd.io/v1",
    kind: "GitRepository",
    metadata: { name: "gitops", namespace: s.namespace },
    spec: { url: s.repoUrl, interval: INTERVAL, ref: { branch: "main" } },
  } as KubernetesObject);
  await s.apply({
    apiVersion: "kustomize.toolkit.fluxcd.io/v1",
    kind: "Kustomization",
    metadata: { name: "flux", namespace: s.namespace },
    spec: {
      interval: parentInterval,
      retryInterval: parentInterval,
      path: "./clusters/e2e",
      prune: true,
      sourceRef: { kind: "GitRepository", name: "gitops" },
    },
  } as KubernetesObject);
}

/** The next whole minute at least `marginMs` ahead, and a cron expression (UTC) for exactly that minute. */
export function nextMinute(marginMs: number): { at: number; cron: string } {
  const at = Math.ceil((Date.now() + marginMs) / 60_000) * 60_000;
  const d = new Date(at);
  return { at, cron: `${d.getUTCMinutes()} ${d.getUTCHours()} ${d.getUTCDate()} ${d.getUTCMonth() + 1} *` };
}

export async function waitForValue<T>(what: string, probe: () => Promise<T | undefined>, expected: T, timeoutMs: number): Promise<number> {
  return await waitFor(what, async () => ((await probe()) === expected ? Date.now() : undefined), { timeoutMs, intervalMs: 100 });
}

/** fluxgate's controller in this process, with the least-privilege identity of config/rbac, watching the scenario's namespace. */
export async function startController(s: Scenario): Promise<Controller> {
  const identity = await installFluxgate(s.cp);
  return await startTestController({ kubeConfig: identity.kubeConfig, namespaces: [s.namespace], targetKinds: ["Kustomization"] });
}

const WINDOWS = { group: "fluxgate.io", version: "v1alpha1", plural: "reconciliationwindows" };

/** Creates a ReconciliationWindow in the scenario's namespace. */
export async function createWindow(s: Scenario, name: string, spec: Record<string, unknown>): Promise<void> {
  await s.custom.createNamespacedCustomObject({
    ...WINDOWS,
    namespace: s.namespace,
    body: { apiVersion: "fluxgate.io/v1alpha1", kind: "ReconciliationWindow", metadata: { name }, spec },
  });
}

/** Reads a ReconciliationWindow of the scenario's namespace. */
export async function readWindow<T>(s: Scenario, name: string): Promise<T> {
  return (await s.custom.getNamespacedCustomObject({ ...WINDOWS, namespace: s.namespace, name })) as T;
}
