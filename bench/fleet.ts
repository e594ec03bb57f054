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

/**
 * Creates `size` Kustomizations spread over 10 namespaces and 20 windows (in the first
 * namespace) with the given schedule; each window selects its share in every namespace by label.
 */
export async function seedFleet(cp: ControlPlane, size: number, prefix: string, schedule: Record<string, string>): Promise<Fleet> {
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
        spec: { interval: "10m", path: "./deploy", prune: true, sourceRef: { kind: "GitRepository", name: "gitops" } },
      },
    });
  });
  for (let w = 0; w < WINDOWS; w++) {
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
