// Shared setup of the CLI tests: fluxgate run in-process, a small fleet at a fixed instant, and a controller across namespaces.

import { CoreV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { after } from "node:test";
import type { Controller, Clock } from "../../../src/controller/controller.ts";
import { fixedClock } from "../../support/clock.ts";
import { startTestController } from "../../support/controller.ts";
import { installFluxgate, sharedControlPlane, waitFor, type ControlPlane } from "../../harness/index.ts";
import { KUSTOMIZATIONS, OVERRIDES, WINDOWS, type WindowObject } from "../controller/helpers.ts";

export const GITREPOSITORIES = { group: "source.toolkit.fluxcd.io", version: "v1", plural: "gitrepositories" };

export { fluxgate, type Run } from "../../support/cli.ts";
export { fixedClock };

/** kubectl's flags for a test's namespace, with the admin kubeconfig. */
export function kubeFlags(s: { cp: { kubeconfigPath: string }; namespace: string }): string[] {
  return ["--kubeconfig", s.cp.kubeconfigPath, "-n", s.namespace];
}

/** Starts a controller in this process watching every namespace, with the least-privilege identity of config/rbac. */
export async function startClusterController(kubeConfig: KubeConfig, clock?: Clock): Promise<Controller> {
  // The controller's own tests read its logs; here they would only bury the CLI's output (FLUXGATE_TEST_LOG=debug shows them).
  return await startTestController({ kubeConfig, ...(clock !== undefined ? { clock } : {}), logs: "quiet" });
}

export async function createNamespace(cp: ControlPlane, name: string): Promise<void> {
  try {
    await cp.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
  } catch (e) {
    if ((e as { code?: number }).code !== 409) throw e;
  }
}

/** A Flux Kustomization; with `applied` and a source revision, what kustomize-controller and source-controller would report. */
export async function kustomization(
  custom: CustomObjectsApi,
  namespace: string,
  name: string,
  options: { labels?: Record<string, string>; applied?: string } = {},
): Promise<void> {
  await custom.createNamespacedCustomObject({
    ...KUSTOMIZATIONS,
    namespace,
    body: {
      apiVersion: "kustomize.toolkit.fluxcd.io/v1",
      kind: "Kustomization",
      metadata: { name, ...(options.labels !== undefined ? { labels: options.labels } : {}) },
      spec: { interval: "10m", path: "./deploy", prune: true, sourceRef: { kind: "GitRepository", name: "gitops" } },
    },
  });
  if (options.applied !== undefined) {
    await custom.patchNamespacedCustomObjectStatus({
      ...KUSTOMIZATIONS,
      namespace,
      name,
      body: [{ op: "add", path: "/status", value: { lastAppliedRevision: options.applied } }],
    });
  }
}

/** The GitRepository `gitops` with an artifact at `revision`, produced at `at`. */
export async function gitRepository(custom: CustomObjectsApi, namespace: string, revision: string, at: string): Promise<void> {
  await custom.createNamespacedCustomObject({
    ...GITREPOSITORIES,
    namespace,
    body: {
      apiVersion: "source.toolkit.fluxcd.io/v1",
      kind: "GitRepository",
      metadata: { name: "gitops" },
      spec: { url: "https://git.example/fleet.git", interval: "1m", ref: { branch: "main" } },
    },
  });
  await custom.patchNamespacedCustomObjectStatus({
    ...GITREPOSITORIES,
    namespace,
    name: "gitops",
    body: [
      {
        op: "add",
        path: "/status",
        value: {
          artifact: {
            path: "gitrepository/gitops.tar.gz",
            url: "http://source-controller/gitops.tar.gz",
            revision,
            digest: "sha256:0000000000000000000000000000000000000000000000000000000000000000",
            lastUpdateTime: at,
          },
        },
      },
    ],
  });
}

export async function window(custom: CustomObjectsApi, namespace: string, name: string, spec: Record<string, unknown>): Promise<void> {
  await custom.createNamespacedCustomObject({
    ...WINDOWS,
    namespace,
    body: { apiVersion: "fluxgate.io/v1alpha1", kind: "ReconciliationWindow", metadata: { name }, spec },
  });
}

export async function readWindow(custom: CustomObjectsApi, namespace: string, name: string): Promise<WindowObject> {
  return (await custom.getNamespacedCustomObject({ ...WINDOWS, namespace, name })) as WindowObject;
}

export interface OverrideObject {
  metadata?: { name?: string; annotations?: Record<string, string> };
  spec?: { windowRef?: { name?: string }; action?: string; until?: string; reason?: string };
  status?: { phase?: string; message?: string };
}

/** The overrides in a namespace (retried while the API server is still starting the CRD's storage). */
export async function listOverrides(custom: CustomObjectsApi, namespace: string): Promise<OverrideObject[]> {
  return await waitFor(
    "overrides listed",
    async () => ((await custom.listNamespacedCustomObject({ ...OVERRIDES, namespace })) as { items: OverrideObject[] }).items,
    { timeoutMs: 10_000 },
  );
}

/**
 * Tue 2026-12-22 09:47 UTC (10:47 in Berlin, 04:47 in New York): inside the holiday freeze, inside
 * the weekday window, between two nightly windows.
 */
export const FLEET_NOW = Date.parse("2026-12-22T09:47:00Z");

/**
 * A small fleet, as an on-call engineer would find it at FLEET_NOW:
 * - flux-system: `weekday-changes` (open Mon 08:00 → Thu 17:00 Berlin, never on Fridays) and
 *   `holiday-freeze` both select `apps-rw`, whose source has a revision waiting; `live-config`
 *   keeps `apps-rt` open around the clock.
 * - edge: `nightly` (22:00 New York, 2 h) holds `podinfo-rw`, which has a revision waiting;
 *   `legacy` has a schedule that never occurs (30 February) and is invalid.
 */
export async function seedFleet(cp: ControlPlane): Promise<{ custom: CustomObjectsApi; controllerKubeConfig: KubeConfig }> {
  const identity = await installFluxgate(cp);
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  await createNamespace(cp, "flux-system");
  await createNamespace(cp, "edge");
  await gitRepository(custom, "flux-system", "main@sha1:7d3e1f0a9b8c2d4e6f708192a3b4c5d6e7f80912", "2026-12-22T07:00:00Z");
  await kustomization(custom, "flux-system", "apps-rw", {
    labels: { "fluxgate.io/type": "window" },
    applied: "main@sha1:2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c",
  });
  await kustomization(custom, "flux-system", "apps-rt", { applied: "main@sha1:7d3e1f0a9b8c2d4e6f708192a3b4c5d6e7f80912" });
  await window(custom, "flux-system", "weekday-changes", {
    timeZone: "Europe/Berlin",
    schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }],
    freezes: [{ start: "0 0 * * FRI", duration: "24h", reason: "No deploys on Fridays" }],
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
  });
  await window(custom, "flux-system", "holiday-freeze", {
    timeZone: "Europe/Berlin",
    freezes: [{ from: "2026-12-20T00:00", to: "2027-01-05T00:00", reason: "Holiday freeze" }],
    targets: [{ kind: "Kustomization", labelSelector: { matchLabels: { "fluxgate.io/type": "window" } } }],
  });
  await window(custom, "flux-system", "live-config", {
    schedules: [{ start: "0 0 * * *", duration: "24h" }],
    targets: [{ kind: "Kustomization", name: "apps-rt" }],
  });
  await gitRepository(custom, "edge", "main@sha1:c0ffee0123456789abcdef0123456789abcdef01", "2026-12-21T23:30:00Z");
  await kustomization(custom, "edge", "podinfo-rw", { applied: "main@sha1:badc0de456789abcdef0123456789abcdef01234" });
  await window(custom, "edge", "nightly", {
    timeZone: "America/New_York",
    schedules: [{ start: "0 22 * * *", duration: "2h" }],
    targets: [{ kind: "Kustomization", name: "podinfo-rw" }],
  });
  await window(custom, "edge", "legacy", { schedules: [{ start: "0 0 30 2 *", duration: "1h" }], targets: [{ kind: "Kustomization", name: "legacy-app" }] });
  return { custom, controllerKubeConfig: identity.kubeConfig };
}

/** Waits until the controller has reported every window of the fleet, pending revisions included. */
export async function fleetReported(custom: CustomObjectsApi): Promise<void> {
  const expected: Array<[string, string, (w: WindowObject) => boolean]> = [
    ["flux-system", "weekday-changes", (w) => w.status?.targets?.pending === 1 && w.status.targets.closed === 1],
    ["flux-system", "holiday-freeze", (w) => w.status?.targets?.pending === 1 && w.status.targets.closed === 1],
    ["flux-system", "live-config", (w) => w.status?.targets?.open === 1],
    ["edge", "nightly", (w) => w.status?.targets?.pending === 1 && w.status.targets.closed === 1],
    ["edge", "legacy", (w) => w.status?.conditions?.some((c) => c.type === "Stalled" && c.status === "True") === true],
  ];
  for (const [namespace, name, ready] of expected) {
    await waitFor(`${namespace}/${name} reported`, async () => (ready(await readWindow(custom, namespace, name)) ? true : undefined), {
      timeoutMs: 20_000,
      intervalMs: 100,
    });
  }
}

export interface Fleet {
  cp: ControlPlane;
  kubeconfig: string;
  custom: CustomObjectsApi;
}

/**
 * One control plane for the calling file with the fleet seeded and a controller at FLEET_NOW.
 * The fleet is made on first use (in a test: the hooks of one file do not wait for each other),
 * and the controller stops before the API server does.
 */
export function sharedFleet(): () => Promise<Fleet> {
  let controller: Controller | undefined;
  after(async () => {
    await controller?.stop();
  });
  const plane = sharedControlPlane();
  let seeded: Promise<Fleet> | undefined;
  return () =>
    (seeded ??= (async () => {
      const cp = plane();
      const { custom, controllerKubeConfig } = await seedFleet(cp);
      controller = await startClusterController(controllerKubeConfig, fixedClock(FLEET_NOW));
      await fleetReported(custom);
      return { cp, kubeconfig: cp.kubeconfigPath, custom };
    })());
}
