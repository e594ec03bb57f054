// Shared setup of the controller tests: Flux targets, windows and overrides in a fresh namespace, and an in-process controller.

import { CoreV1Api, CustomObjectsApi, type KubeConfig, type KubernetesObject } from "@kubernetes/client-node";
import { setTimeout as sleep } from "node:timers/promises";
import type { Controller, Clock } from "../../../src/controller/controller.ts";
import { STATUS_DEBOUNCE_MS } from "../../../src/controller/context.ts";
import { TestClock } from "../../support/clock.ts";
import { startTestController } from "../../support/controller.ts";
import type { FluxObject } from "../../../src/kube/flux.ts";
import { freshNamespace, installFluxgate, waitFor, type ControlPlane } from "../../harness/index.ts";

export const KUSTOMIZATIONS = { group: "kustomize.toolkit.fluxcd.io", version: "v1", plural: "kustomizations" };
export const WINDOWS = { group: "fluxgate.io", version: "v1alpha1", plural: "reconciliationwindows" };
export const OVERRIDES = { group: "fluxgate.io", version: "v1alpha1", plural: "windowoverrides" };

export { TestClock } from "../../support/clock.ts";

export interface Setup {
  cp: ControlPlane;
  namespace: string;
  /** Admin access, for the test's own reads and writes. */
  custom: CustomObjectsApi;
  core: CoreV1Api;
  /** The controller's least-privilege identity from config/rbac. */
  controllerKubeConfig: KubeConfig;
  controllerKubeconfigPath: string;
}

export async function setup(cp: ControlPlane): Promise<Setup> {
  const identity = await installFluxgate(cp);
  const namespace = await freshNamespace(cp);
  return {
    cp,
    namespace,
    custom: cp.kubeConfig.makeApiClient(CustomObjectsApi),
    core: cp.kubeConfig.makeApiClient(CoreV1Api),
    controllerKubeConfig: identity.kubeConfig,
    controllerKubeconfigPath: identity.kubeconfigPath,
  };
}

export async function createKustomization(
  s: Setup,
  name: string,
  options: { labels?: Record<string, string>; suspend?: boolean; source?: string } = {},
): Promise<void> {
  await s.custom.createNamespacedCustomObject({
    ...KUSTOMIZATIONS,
    namespace: s.namespace,
    body: {
      apiVersion: "kustomize.toolkit.fluxcd.io/v1",
      kind: "Kustomization",
      metadata: { name, ...(options.labels !== undefined ? { labels: options.labels } : {}) },
      spec: {
        interval: "10m",
        path: "./deploy",
        prune: true,
        sourceRef: { kind: "GitRepository", name: options.source ?? "gitops" },
        ...(options.suspend !== undefined ? { suspend: options.suspend } : {}),
      },
    },
  });
}

export async function getKustomization(s: Setup, name: string): Promise<FluxObject> {
  return (await s.custom.getNamespacedCustomObject({ ...KUSTOMIZATIONS, namespace: s.namespace, name })) as FluxObject;
}

export async function createWindow(s: Setup, name: string, spec: Record<string, unknown>): Promise<void> {
  await s.custom.createNamespacedCustomObject({
    ...WINDOWS,
    namespace: s.namespace,
    body: { apiVersion: "fluxgate.io/v1alpha1", kind: "ReconciliationWindow", metadata: { name }, spec },
  });
}

export interface WindowObject extends KubernetesObject {
  status?: {
    state?: string;
    reason?: string;
    nextTransition?: string;
    nextOpen?: string;
    nextClose?: string;
    targets?: { matched: number; open: number; closed: number; pending: number; conflicts: number };
    conditions?: { type: string; status: string; reason: string; message: string }[];
  };
}

export async function getWindow(s: Setup, name: string): Promise<WindowObject> {
  return (await s.custom.getNamespacedCustomObject({ ...WINDOWS, namespace: s.namespace, name })) as WindowObject;
}

export async function createOverride(s: Setup, name: string, spec: Record<string, unknown>): Promise<void> {
  await s.custom.createNamespacedCustomObject({
    ...OVERRIDES,
    namespace: s.namespace,
    body: { apiVersion: "fluxgate.io/v1alpha1", kind: "WindowOverride", metadata: { name }, spec },
  });
}

/** Waits until the Kustomization's spec.suspend is `suspend` (absent counts as false) and returns when that was seen. */
export async function waitForSuspend(s: Setup, name: string, suspend: boolean, timeoutMs = 20_000): Promise<number> {
  return await waitFor(
    `${name} spec.suspend=${String(suspend)}`,
    async () => (((await getKustomization(s, name)).spec?.suspend === true) === suspend ? Date.now() : undefined),
    { timeoutMs, intervalMs: 50 },
  );
}

export async function eventsOf(s: Setup, reason: string): Promise<{ name: string; kind: string; message: string; type: string }[]> {
  const list = await s.core.listNamespacedEvent({ namespace: s.namespace });
  return list.items
    .filter((e) => e.reason === reason)
    .map((e) => ({ name: e.involvedObject.name ?? "", kind: e.involvedObject.kind ?? "", message: e.message ?? "", type: e.type ?? "" }));
}

/** Starts a controller in this process, watching the test's namespace with the least-privilege identity. */
export async function startController(s: Setup, clock: Clock = new TestClock(), options: { eventsAddress?: string } = {}): Promise<Controller> {
  return await startTestController({ kubeConfig: s.controllerKubeConfig, namespaces: [s.namespace], clock, ...options });
}

/**
 * Waits until the controller has nothing left to do, the windows' statuses too (they follow their targets' writes STATUS_DEBOUNCE_MS later, a delayed
 * key that `settled()` does not wait for): what it does after this comes from the next event alone.
 */
export async function quiet(c: Controller): Promise<void> {
  await c.settled();
  await sleep(STATUS_DEBOUNCE_MS + 500);
  await c.settled();
}

/** A schedule open around the clock: every day, for a whole day (occurrences touch and merge). */
export const ALWAYS = { start: "0 0 * * *", duration: "24h" };
/** A schedule that opens once a year on 1 January, so it is closed in tests run on any other day. */
export const YEARLY = { start: "0 0 1 1 *", duration: "1m" };

/** Server-side-apply writes the controller made to Kustomizations so far, from its own metrics. */
export async function kustomizationWrites(c: Controller): Promise<number> {
  return await c.metrics.applyCount("kustomizations");
}
