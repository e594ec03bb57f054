// Transition latency and cost of the controller on the real kube-apiserver: N Kustomizations over 20 windows and 10 namespaces.

import { CoreV1Api, CustomObjectsApi, KubernetesObjectApi, PatchStrategy, Watch, type KubernetesObject } from "@kubernetes/client-node";
import { Controller, type Clock } from "../src/controller/controller.ts";
import { jsonLogger } from "../src/controller/log.ts";
import { Metrics } from "../src/controller/metrics.ts";
import { installFluxgate, startControlPlane, type ControlPlane } from "../test/harness/index.ts";

const WINDOWS = 20;
/** Requests in flight, for the controller and for the floor alike. */
const CONCURRENCY = Number(process.env.FLUXGATE_BENCH_CONCURRENCY ?? 16);
const NAMESPACES = 10;
const KUSTOMIZATIONS = { group: "kustomize.toolkit.fluxcd.io", version: "v1", plural: "kustomizations" };

export interface TransitionLine {
  bench: "controller.transition";
  targets: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  writesPerTarget: number;
  floorMs: number;
  ratio: number;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/** Runs `fn` over `items` with at most `limit` at once. */
async function pool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

/**
 * One transition of `targets` Kustomizations from closed to open at a scheduled instant. The
 * controller runs with an injected clock set so the instant is a few seconds ahead; a watch
 * records when each target's spec.suspend flipped. The floor is the same number of
 * server-side-apply patches sent by a plain client with the same concurrency.
 */
export async function transitionBench(cp: ControlPlane, targets: number, round: number): Promise<TransitionLine> {
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `bench-${round}-${i}`);
  for (const name of namespaces) await core.createNamespace({ body: { metadata: { name } } });
  const items = Array.from({ length: targets }, (_, i) => ({ namespace: namespaces[i % NAMESPACES] as string, name: `app-${i}`, window: i % WINDOWS }));
  await pool(items, 32, async (t) => {
    await custom.createNamespacedCustomObject({
      ...KUSTOMIZATIONS,
      namespace: t.namespace,
      body: {
        apiVersion: "kustomize.toolkit.fluxcd.io/v1",
        kind: "Kustomization",
        metadata: { name: t.name, labels: { "bench.fluxgate.io/window": `w${t.window}` } },
        spec: { interval: "10m", path: "./deploy", prune: true, sourceRef: { kind: "GitRepository", name: "gitops" } },
      },
    });
  });
  const identity = await installFluxgate(cp);
  // Each window selects its share of targets in every namespace; all open at the same instant.
  const opensAt = Date.parse("2026-11-23T07:00:00Z");
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
          schedules: [{ start: "0 7 * * MON", duration: "8h" }],
          targets: namespaces.map((namespace) => ({ kind: "Kustomization", namespace, labelSelector: { matchLabels: { "bench.fluxgate.io/window": `w${w}` } } })),
        },
      },
    });
  }
  const offset = { ms: opensAt - 20_000 - Date.now() };
  const clock: Clock = { now: () => Date.now() + offset.ms };
  const metrics = new Metrics();
  const controller = new Controller({
    kubeConfig: identity.kubeConfig,
    namespaces: [],
    targetKinds: ["Kustomization"],
    resyncPeriodMs: 600_000,
    log: jsonLogger("error"),
    metrics,
    clock,
    concurrency: CONCURRENCY,
  });
  await controller.start();
  const suspendedCount = async (): Promise<number> => {
    const list = (await custom.listClusterCustomObject({ ...KUSTOMIZATIONS, labelSelector: "bench.fluxgate.io/window" })) as { items: { spec?: { suspend?: boolean } }[] };
    return list.items.filter((k) => k.spec?.suspend === true).length;
  };
  while ((await suspendedCount()) < targets) await new Promise((r) => setTimeout(r, 500));
  await controller.settled();

  // Watch every target and record when it opened; then move the clock to 2 s before the instant.
  const opened = new Map<string, number>();
  const list = (await custom.listClusterCustomObject({ ...KUSTOMIZATIONS })) as { metadata?: { resourceVersion?: string } };
  const watch = await new Watch(cp.kubeConfig).watch(
    `/apis/${KUSTOMIZATIONS.group}/${KUSTOMIZATIONS.version}/${KUSTOMIZATIONS.plural}`,
    { resourceVersion: list.metadata?.resourceVersion, labelSelector: "bench.fluxgate.io/window" },
    (_phase: string, obj: KubernetesObject & { spec?: { suspend?: boolean } }) => {
      const key = `${obj.metadata?.namespace}/${obj.metadata?.name}`;
      if (obj.spec?.suspend !== true && !opened.has(key)) opened.set(key, Date.now());
    },
    () => undefined,
  );
  const writesBefore = await metrics.applyCount("kustomizations");
  const instant = Date.now() + 2_000;
  offset.ms = opensAt - instant;
  controller.resync(); // re-plans timers against the moved clock, as after a clock change
  const deadline = Date.now() + 120_000;
  while (opened.size < targets && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  watch.abort();
  await controller.settled();
  const writes = (await metrics.applyCount("kustomizations")) - writesBefore;
  await controller.stop();
  if (opened.size < targets) throw new Error(`only ${opened.size} of ${targets} targets opened within 120 s`);
  const latencies = [...opened.values()].map((t) => t - instant).sort((a, b) => a - b);

  // The floor: the same patches from a plain client, as fast as it goes with the same concurrency.
  const objects = identity.kubeConfig.makeApiClient(KubernetesObjectApi);
  const floorStart = Date.now();
  await pool(items, CONCURRENCY, async (t) => {
    await objects.patch(
      { apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", metadata: { name: t.name, namespace: t.namespace }, spec: { suspend: true } },
      undefined,
      undefined,
      "fluxgate-bench-floor",
      true,
      PatchStrategy.ServerSideApply,
    );
  });
  const floorMs = Date.now() - floorStart;
  const p99 = percentile(latencies, 99);
  return {
    bench: "controller.transition",
    targets,
    p50Ms: percentile(latencies, 50),
    p99Ms: p99,
    maxMs: latencies[latencies.length - 1] ?? NaN,
    writesPerTarget: Math.round((writes / targets) * 100) / 100,
    floorMs,
    ratio: Math.round((p99 / floorMs) * 100) / 100,
  };
}

/** The transition bench at each size, each on a fresh control plane. */
export async function controllerBenches(sizes: readonly number[]): Promise<TransitionLine[]> {
  const out: TransitionLine[] = [];
  for (const [i, size] of sizes.entries()) {
    const cp = await startControlPlane();
    try {
      out.push(await transitionBench(cp, size, i));
    } finally {
      await cp.stop();
    }
  }
  return out;
}
