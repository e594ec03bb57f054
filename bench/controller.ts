// Transition latency and cost of the controller on the real kube-apiserver: N Kustomizations over 20 windows and 10 namespaces.

import { CustomObjectsApi, KubernetesObjectApi, PatchStrategy, Watch, type KubernetesObject } from "@kubernetes/client-node";
import { Controller, type Clock } from "../src/controller/controller.ts";
import { jsonLogger } from "../src/kube/log.ts";
import { controllerV8Flags } from "../src/cli/heap.ts";
import { Connection } from "../src/kube/connection.ts";
import { Metrics } from "../src/controller/metrics.ts";
import { startControlPlane, type ControlPlane } from "../src/devenv/control-plane.ts";
import { installFluxgate } from "../src/devenv/install.ts";
import { BENCH_LABEL, GITREPOSITORIES, KUSTOMIZATIONS, WINDOWS, percentile, pool, seedFleet, setArtifact, suspendedCount } from "./fleet.ts";

// FLUXGATE_BENCH_CONTROLLER_V8=1: this process runs V8 as `fluxgate controller` does (src/cli/heap.ts), to see
// what bytecode only costs a transition; the floor's client, in the same process, runs under the same flags.
if (process.env.FLUXGATE_BENCH_CONTROLLER_V8 === "1") controllerV8Flags(process.execArgv);

/**
 * Transitions per line (open, close, open, …) and floor runs after them; the line gives the median of
 * each side. One burst of 100 writes takes from 0.1 to 0.35 s on the shared machine, by whether the
 * API server's garbage collector lands in it (docs/performance-history.md): one run per side is a coin toss.
 */
const RUNS = 5;

/**
 * Every run, a transition or a floor's, starts after this long without a request: the API server's
 * garbage collector lands in a burst of 100 writes or not depending on what came just before it
 * (docs/performance-history.md), so both sides get the same history.
 */
const QUIET_MS = 2_000;

/** Requests in flight, for the controller and for the floor alike. */
const CONCURRENCY = Number(process.env.FLUXGATE_BENCH_CONCURRENCY ?? 16);

export interface TransitionLine {
  bench: "controller.transition";
  /** Suspend: each target's spec.suspend is written; the latencies are the targets'. */
  mode: "Suspend";
  targets: number;
  /** The median over the RUNS transitions of each one's p50, p99 and max. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Each transition's p99, in order: open, close, open, … */
  runsP99Ms: number[];
  writesPerTarget: number;
  /** Reconciles of targets from each instant until its last target moved, per target and transition. */
  reconcilesPerTarget: number;
  /** The floor as its client sees it: from its first write to its last answer (the median of RUNS runs). */
  floorMs: number;
  /** The floor as fluxgate's latencies are seen: p99 from its first write until the same watch saw each target change (the median of RUNS runs). */
  floorSeenP99Ms: number;
  /** Each floor run's p99 as the watch saw it, in order. */
  floorRunsSeenP99Ms: number[];
  /** p99Ms / floorSeenP99Ms: both sides the median of RUNS runs, measured the same way (a write, then the watch). */
  ratio: number;
  /** p99Ms / floorMs, as this line gave `ratio` before floorSeenP99Ms was measured. */
  ratioToClient: number;
}

/**
 * RUNS transitions of `targets` Kustomizations at scheduled instants: open, close, open, … The
 * controller runs with an injected clock set so each instant is QUIET_MS ahead once the controller
 * has settled; a watch records when each target's spec.suspend took the window's value. The floor
 * is the same number of server-side-apply patches sent by a plain client with the same concurrency,
 * RUNS times after the same quiet, timed both as the client sees them and as fluxgate's are: by the
 * same watch, from the first write.
 */
export async function transitionBench(cp: ControlPlane, targets: number, round: number): Promise<TransitionLine> {
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const identity = await installFluxgate(cp);
  // Each window selects its share of targets in every namespace; all open and close at the same instants.
  const { targets: items } = await seedFleet(cp, targets, `bench-${round}`, { start: "0 7 * * MON", duration: "8h" });
  const opensAt = Date.parse("2026-11-23T07:00:00Z");
  const HOUR = 3_600_000;
  // Open, close, open a week later, …: each run writes spec.suspend to the other value, as the floor's runs do.
  const instants = Array.from({ length: RUNS }, (_, i) => opensAt + Math.floor(i / 2) * 7 * 24 * HOUR + (i % 2) * 8 * HOUR);
  // The clock stands still 20 s before the first instant until every target is suspended: on a loaded
  // machine enforcing the fleet can take longer than 20 s, and the windows must not open before.
  const offset: { ms: number; frozenAt: number | undefined } = { ms: 0, frozenAt: opensAt - 20_000 };
  const clock: Clock = { now: () => offset.frozenAt ?? Date.now() + offset.ms };
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
  while ((await suspendedCount(cp)) < targets) await new Promise((r) => setTimeout(r, 500));
  await controller.settled();

  // One watch of every target, for the transitions and the floors: each run sets spec.suspend to its value,
  // and the watch records when it first saw each target with that value.
  let run: { suspend: boolean; seen: Map<string, number> } | null = null;
  const list = (await custom.listClusterCustomObject({ ...KUSTOMIZATIONS })) as { metadata?: { resourceVersion?: string } };
  const watch = await new Watch(cp.kubeConfig).watch(
    `/apis/${KUSTOMIZATIONS.group}/${KUSTOMIZATIONS.version}/${KUSTOMIZATIONS.plural}`,
    { resourceVersion: list.metadata?.resourceVersion, labelSelector: BENCH_LABEL },
    (_phase: string, obj: KubernetesObject & { spec?: { suspend?: boolean } }) => {
      const key = `${obj.metadata?.namespace}/${obj.metadata?.name}`;
      if (run !== null && (obj.spec?.suspend === true) === run.suspend && !run.seen.has(key)) run.seen.set(key, Date.now());
    },
    () => undefined,
  );
  /** Waits until the watch saw every target in the run's state; the run's p99, p50 and max from `from`. */
  const awaitRun = async (current: NonNullable<typeof run>, from: number, what: string, boundMs: number): Promise<number[]> => {
    const deadline = Date.now() + boundMs;
    while (current.seen.size < targets && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    if (current.seen.size < targets) throw new Error(`the watch saw ${current.seen.size} of ${targets} targets of ${what} within ${boundMs / 1000} s`);
    const latencies = [...current.seen.values()].map((t) => t - from).sort((a, b) => a - b);
    return [percentile(latencies, 99), percentile(latencies, 50), latencies[latencies.length - 1] ?? NaN];
  };
  const targetReconciles = async (): Promise<number> => (await metrics.reconciles.get()).values.find((v) => v.labels.kind === "Target")?.value ?? 0;
  const writesBefore = await metrics.applyCount("kustomizations");
  const transitions: Array<{ p99: number; p50: number; max: number }> = [];
  let reconciles = 0;
  for (const [i, at] of instants.entries()) {
    // Settled (the last transition's events and window statuses written), then QUIET_MS without a request.
    await controller.settled();
    const current = { suspend: i % 2 === 1, seen: new Map<string, number>() };
    run = current;
    const instant = Date.now() + QUIET_MS;
    offset.ms = at - instant;
    offset.frozenAt = undefined;
    controller.resync(); // re-plans timers against the moved clock, as after a clock change
    // Counted from just before the instant: the re-plans of the moved clock (this resync, and the one its clock jump
    // brings within a second) are the bench's, not the transition's.
    const atInstant = new Promise<number>((resolve, reject) =>
      setTimeout(
        () => (Date.now() < instant ? resolve(targetReconciles()) : reject(new Error(`transition ${i + 1}: the reconciles were counted after the instant`))),
        Math.max(0, instant - Date.now() - 20),
      ),
    );
    atInstant.catch(() => undefined); // awaited after the run, which may end first
    const [p99, p50, max] = await awaitRun(current, instant, `transition ${i + 1}`, 120_000);
    // Reconciles of targets until the last one moved: one per target at the instant, and those its own writes' watch events bring back.
    reconciles += (await targetReconciles()) - (await atInstant);
    transitions.push({ p99: p99 as number, p50: p50 as number, max: max as number });
  }
  await controller.settled();
  const writes = (await metrics.applyCount("kustomizations")) - writesBefore;
  await controller.stop();

  // The floor: the same patches from a plain client, as fast as it goes with the same concurrency.
  // With kept-alive connections, as the controller's client has: the best this client can do. RUNS
  // times, each setting spec.suspend to the other value (true first), each after QUIET_MS.
  const objects = new Connection(identity.kubeConfig).api(KubernetesObjectApi);
  const floors: Array<{ clientMs: number; seenP99Ms: number }> = [];
  for (let i = 0; i < RUNS; i++) {
    const current = { suspend: i % 2 === 0, seen: new Map<string, number>() };
    run = current;
    await new Promise((r) => setTimeout(r, QUIET_MS));
    const floorStart = Date.now();
    await pool(items, CONCURRENCY, async (t) => {
      await objects.patch(
        {
          apiVersion: "kustomize.toolkit.fluxcd.io/v1",
          kind: "Kustomization",
          metadata: { name: t.name, namespace: t.namespace },
          spec: { suspend: current.suspend },
        },
        undefined,
        undefined,
        "fluxgate-bench-floor",
        true,
        PatchStrategy.ServerSideApply,
      );
    });
    const clientMs = Date.now() - floorStart;
    const [seenP99Ms] = await awaitRun(current, floorStart, `floor run ${i + 1}`, 30_000);
    floors.push({ clientMs, seenP99Ms: seenP99Ms as number });
  }
  watch.abort();
  const p99 = median(transitions.map((t) => t.p99));
  const floorMs = median(floors.map((f) => f.clientMs));
  const floorSeenP99 = median(floors.map((f) => f.seenP99Ms));
  return {
    bench: "controller.transition",
    mode: "Suspend",
    targets,
    p50Ms: median(transitions.map((t) => t.p50)),
    p99Ms: p99,
    maxMs: median(transitions.map((t) => t.max)),
    runsP99Ms: transitions.map((t) => t.p99),
    writesPerTarget: Math.round((writes / targets / RUNS) * 100) / 100,
    reconcilesPerTarget: Math.round((reconciles / targets / RUNS) * 100) / 100,
    floorMs,
    floorSeenP99Ms: floorSeenP99,
    floorRunsSeenP99Ms: floors.map((f) => f.seenP99Ms),
    ratio: Math.round((p99 / floorSeenP99) * 100) / 100,
    ratioToClient: Math.round((p99 / floorMs) * 100) / 100,
  };
}

function median(xs: readonly number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
}

export interface GateTransitionLine {
  bench: "controller.transition";
  /** Gate: one gated source per window is moved to the upstream revision; the targets are not written. */
  mode: "Gate";
  targets: number;
  windows: number;
  /** From the instant until each window's gated source was pinned to the new revision (the windows' p50, p99, max). */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The controller's writes of gated sources per window, and of targets, in the transition. */
  writesPerWindow: number;
  targetWrites: number;
}

const COMMIT_A = "a".repeat(40);
const COMMIT_B = "b".repeat(40);

interface GitRepository extends KubernetesObject {
  spec?: { ref?: { commit?: string } };
}

/**
 * The same fleet with its 20 windows in Gate mode: each window pins the GitRepository its targets
 * use, and at the instant it opens moves that one object to the revision that arrived upstream
 * while it was closed. Measured as the Suspend transition is: an injected clock two seconds ahead
 * of the instant and a watch recording when each gated source's pin changed.
 */
export async function gateTransitionBench(cp: ControlPlane, targets: number, round: number): Promise<GateTransitionLine> {
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const identity = await installFluxgate(cp);
  const { namespaces } = await seedFleet(cp, targets, `gate-${round}`, { start: "0 7 * * MON", duration: "8h" }, { gate: { revision: COMMIT_A } });
  const namespace = namespaces[0] as string;
  const opensAt = Date.parse("2026-11-23T07:00:00Z");
  const offset: { ms: number; frozenAt: number | undefined } = { ms: 0, frozenAt: opensAt - 20_000 };
  const clock: Clock = { now: () => offset.frozenAt ?? Date.now() + offset.ms };
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
  const gated = async (): Promise<GitRepository[]> =>
    ((await custom.listNamespacedCustomObject({ ...GITREPOSITORIES, namespace })) as { items: GitRepository[] }).items.filter((g) =>
      g.metadata?.name?.startsWith("gated-"),
    );
  await controller.start();
  // Closed: every gated source is created, pinned to the upstream revision at creation.
  while ((await gated()).filter((g) => g.spec?.ref?.commit === COMMIT_A).length < WINDOWS) await new Promise((r) => setTimeout(r, 500));
  // A new revision arrives upstream while closed: the pins hold.
  await pool(
    Array.from({ length: WINDOWS }, (_, w) => w),
    WINDOWS,
    (w) => setArtifact(cp, namespace, `upstream-w${w}`, COMMIT_B),
  );
  await new Promise((r) => setTimeout(r, 3_000));
  await controller.settled();
  if ((await gated()).some((g) => g.spec?.ref?.commit !== COMMIT_A)) throw new Error("a gated source moved while its window was closed");

  const moved = new Map<string, number>();
  const list = (await custom.listNamespacedCustomObject({ ...GITREPOSITORIES, namespace })) as { metadata?: { resourceVersion?: string } };
  const watch = await new Watch(cp.kubeConfig).watch(
    `/apis/${GITREPOSITORIES.group}/${GITREPOSITORIES.version}/namespaces/${namespace}/${GITREPOSITORIES.plural}`,
    { resourceVersion: list.metadata?.resourceVersion },
    (_phase: string, obj: GitRepository) => {
      const name = obj.metadata?.name ?? "";
      if (name.startsWith("gated-") && obj.spec?.ref?.commit === COMMIT_B && !moved.has(name)) moved.set(name, Date.now());
    },
    () => undefined,
  );
  const [sourcesBefore, targetsBefore] = [await metrics.applyCount("gitrepositories"), await metrics.applyCount("kustomizations")];
  const instant = Date.now() + 2_000;
  offset.ms = opensAt - instant;
  offset.frozenAt = undefined;
  controller.resync();
  const deadline = Date.now() + 120_000;
  while (moved.size < WINDOWS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  watch.abort();
  await controller.settled();
  const [sourcesAfter, targetsAfter] = [await metrics.applyCount("gitrepositories"), await metrics.applyCount("kustomizations")];
  await controller.stop();
  if (moved.size < WINDOWS) throw new Error(`only ${moved.size} of ${WINDOWS} gated sources moved within 120 s`);
  const latencies = [...moved.values()].map((t) => t - instant).sort((a, b) => a - b);
  return {
    bench: "controller.transition",
    mode: "Gate",
    targets,
    windows: WINDOWS,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies[latencies.length - 1] ?? NaN,
    writesPerWindow: Math.round(((sourcesAfter - sourcesBefore) / WINDOWS) * 100) / 100,
    targetWrites: targetsAfter - targetsBefore,
  };
}

/** The transition bench at each size, in Suspend mode and then in Gate mode, each on a fresh control plane. */
export async function controllerBenches(sizes: readonly number[]): Promise<Array<TransitionLine | GateTransitionLine>> {
  const out: Array<TransitionLine | GateTransitionLine> = [];
  for (const [i, size] of sizes.entries()) {
    for (const mode of ["Suspend", "Gate"] as const) {
      const cp = await startControlPlane();
      try {
        out.push(mode === "Suspend" ? await transitionBench(cp, size, i) : await gateTransitionBench(cp, size, i));
      } finally {
        await cp.stop();
      }
    }
  }
  return out;
}
