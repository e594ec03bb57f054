// Shared pieces of the fault tests: a seeded PRNG, an in-process controller on any kubeconfig, metric reads, targets by label.

import { PatchStrategy, setHeaderOptions, type KubeConfig } from "@kubernetes/client-node";
import type { Controller, Clock } from "../../../src/controller/controller.ts";
import { startTestController } from "../../support/controller.ts";
import { waitFor } from "../../harness/index.ts";
import { createKustomization, KUSTOMIZATIONS, WINDOWS, type Setup } from "../controller/helpers.ts";

/**
 * mulberry32: a small seeded PRNG, so a fault run is the same run every time. Returns floats in [0, 1).
 *
 * @example
 * const random = seeded(42); random(); // 0.6011037519201636
 */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The seed of a fault test: FLUXGATE_FAULT_SEED when set (to replay another run), else the test's fixed one. Printed. */
export function faultSeed(fixed: number): number {
  const fromEnv = process.env.FLUXGATE_FAULT_SEED;
  const seed = fromEnv === undefined || fromEnv === "" ? fixed : Number(fromEnv);
  if (!Number.isSafeInteger(seed)) throw new Error(`FLUXGATE_FAULT_SEED=${String(fromEnv)}: must be an integer`);
  process.stdout.write(`# seed ${seed} (replay with FLUXGATE_FAULT_SEED=${seed})\n`);
  return seed;
}

/** Starts an in-process controller that reaches the API through `kubeConfig` (e.g. a fault proxy), watching the test's namespace. */
export async function startControllerVia(s: Setup, kubeConfig: KubeConfig, options: { clock?: Clock; resyncPeriodMs?: number } = {}): Promise<Controller> {
  // Faults make the controller log errors by design: shown only with FLUXGATE_TEST_LOG=debug|error.
  return await startTestController({ kubeConfig, namespaces: [s.namespace], ...options, logs: "quiet" });
}

/** Sum of a counter's samples whose labels include `labels`. */
export async function counter(c: Controller, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = c.metrics.registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  return values.filter((v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want)).reduce((n, v) => n + v.value, 0);
}

/** Creates `count` Kustomizations `<prefix>-0..` labelled `fluxgate.io/window: <label>`; returns their names. */
export async function createTargets(s: Setup, prefix: string, count: number, label: string): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  await Promise.all(names.map((name) => createKustomization(s, name, { labels: { "fluxgate.io/window": label } })));
  return names;
}

/** The selector of targets created by createTargets with `label`. */
export function targetsLabelled(label: string): { kind: string; labelSelector: { matchLabels: Record<string, string> } }[] {
  return [{ kind: "Kustomization", labelSelector: { matchLabels: { "fluxgate.io/window": label } } }];
}

/** Waits until every named Kustomization has spec.suspend = `suspend`; returns when that was first seen for all. */
export async function waitAllSuspend(s: Setup, names: readonly string[], suspend: boolean, timeoutMs: number): Promise<number> {
  return await waitFor(
    `${names.length} targets with spec.suspend=${String(suspend)}`,
    async () => {
      const list = (await s.custom.listNamespacedCustomObject({ ...KUSTOMIZATIONS, namespace: s.namespace })) as {
        items: { metadata: { name: string }; spec?: { suspend?: boolean } }[];
      };
      const byName = new Map(list.items.map((k) => [k.metadata.name, k.spec?.suspend === true]));
      return names.every((n) => byName.get(n) === suspend) ? Date.now() : undefined;
    },
    { timeoutMs, intervalMs: 50 },
  );
}

/** Replaces a window's freezes (a merge patch, as an admin), e.g. to schedule transitions once the controller runs. */
export async function setFreezes(s: Setup, window: string, freezes: { from: string; to: string; reason: string }[]): Promise<void> {
  await s.custom.patchNamespacedCustomObject(
    { ...WINDOWS, namespace: s.namespace, name: window, body: { spec: { freezes } } },
    setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
  );
}

/** RFC 3339 UTC to the second, as absolute freezes take it ("...Z"). */
export function utc(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}
