// The bench fleet on a real kube-apiserver: N Kustomizations in 10 namespaces, selected by 20 windows by label.

import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import type { ControlPlane } from "../src/devenv/control-plane.ts";
import type { ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";

export const WINDOWS = 20;
export const NAMESPACES = 10;
export const KUSTOMIZATIONS = { group: "kustomize.toolkit.fluxcd.io", version: "v1", plural: "kustomizations" };
export const BENCH_LABEL = "bench.fluxgate.io/window";

export interface FleetTarget {
  namespace: string;
  name: string;
  window: number;
}

export interface Fleet {
  namespaces: string[];
  targets: FleetTarget[];
}

/** Runs `fn` over `items` with at most `limit` at once. */
export async function pool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

/** The address `fluxgate serve` prints once it is ready; rejects with its output when it exits first. */
export function servedUrl(proc: ChildProcess & { stdout: Readable }): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = "";
    proc.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const m = /Config Service on (http:\/\/\S+)/.exec(out);
      if (m !== null) resolve(m[1] as string);
    });
    proc.once("exit", (code) => reject(new Error(`serve exited (${String(code)}):\n${out}`)));
  });
}

export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

export const GITREPOSITORIES = { group: "source.toolkit.fluxcd.io", version: "v1", plural: "gitrepositories" };

export interface SeedOptions {
  /**
   * Windows in Gate mode: window `w<i>` gates the GitRepository `upstream-w<i>` (created in the first
   * namespace with an artifact at `revision`, a 40-hex commit) into `gated-w<i>`, and its targets take
   * their artifact from `gated-w<i>`.
   */
  gate?: { revision: string };
}

/** Sets the artifact of a GitRepository's status (no source-controller runs on the bench's control plane). */
export async function setArtifact(cp: ControlPlane, namespace: string, name: string, commit: string): Promise<void> {
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const artifact = {
    path: "x",
    url: "http://x/x.tar.gz",
    revision: `main@sha1:${commit}`,
    digest: `sha256:${"0".repeat(64)}`,
    lastUpdateTime: new Date().toISOString(),
  };
  await custom.patchNamespacedCustomObjectStatus({ ...GITREPOSITORIES, namespace, name, body: [{ op: "add", path: "/status", value: { artifact } }] });
}

/**
 * Creates `size` Kustomizations spread over 10 namespaces and 20 windows (in the first
 * namespace) with the given schedule; each window selects its share in every namespace by label.
 */
export async function seedFleet(cp: ControlPlane, size: number, prefix: string, schedule: Record<string, string>, options: SeedOptions = {}): Promise<Fleet> {
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `${prefix}-${i}`);
  for (const name of namespaces) await core.createNamespace({ body: { metadata: { name } } });
  const targets = Array.from({ length: size }, (_, i) => ({ namespace: namespaces[i % NAMESPACES] as string, name: `app-${i}`, window: i % WINDOWS }));
  await pool(targets, 32, async (t) => {
    await custom.createNamespacedCustomObject({
      ...KUSTOMIZATIONS,
      namespace: t.namespace,
      body: {
        apiVersion: "kustomize.toolkit.fluxcd.io/v1",
        kind: "Kustomization",
        metadata: { name: t.name, labels: { [BENCH_LABEL]: `w${t.window}` } },
        spec: {
          interval: "10m",
          path: "./deploy",
          prune: true,
          sourceRef:
            options.gate === undefined
              ? { kind: "GitRepository", name: "gitops" }
              : { kind: "GitRepository", name: `gated-w${t.window}`, namespace: namespaces[0] as string },
        },
      },
    });
  });
  for (let w = 0; w < WINDOWS; w++) {
    if (options.gate !== undefined) {
      await custom.createNamespacedCustomObject({
        ...GITREPOSITORIES,
        namespace: namespaces[0] as string,
        body: {
          apiVersion: "source.toolkit.fluxcd.io/v1",
          kind: "GitRepository",
          metadata: { name: `upstream-w${w}` },
          spec: { url: "https://git.example/fleet.git", interval: "10m", ref: { branch: "main" } },
        },
      });
      await setArtifact(cp, namespaces[0] as string, `upstream-w${w}`, options.gate.revision);
    }
    const gate =
      options.gate === undefined ? {} : { mode: "Gate", gate: { upstream: { kind: "GitRepository", name: `upstream-w${w}` }, gatedName: `gated-w${w}` } };
    await custom.createNamespacedCustomObject({
      group: "fluxgate.io",
      version: "v1alpha1",
      plural: "reconciliationwindows",
      namespace: namespaces[0] as string,
      body: {
        apiVersion: "fluxgate.io/v1alpha1",
        kind: "ReconciliationWindow",
        metadata: { name: `w${w}` },
        spec: {
          schedules: [schedule],
          ...gate,
          targets: namespaces.map((namespace) => ({ kind: "Kustomization", namespace, labelSelector: { matchLabels: { [BENCH_LABEL]: `w${w}` } } })),
        },
      },
    });
  }
  return { namespaces, targets };
}

/** How many of the fleet's Kustomizations have spec.suspend true. */
export async function suspendedCount(cp: ControlPlane): Promise<number> {
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const list = (await custom.listClusterCustomObject({ ...KUSTOMIZATIONS, labelSelector: BENCH_LABEL })) as { items: { spec?: { suspend?: boolean } }[] };
  return list.items.filter((k) => k.spec?.suspend === true).length;
}
