// Resident memory of the controller beside Flux's kustomize-controller on one control plane, and its cold start to /readyz.

import { startControlPlane, type ControlPlane } from "../src/devenv/control-plane.ts";
import { installFluxgate } from "../src/devenv/install.ts";
import { readState } from "../src/devenv/state.ts";
import { buildCli, type BuiltCli } from "../scripts/bundle.ts";
import { seedFleet } from "./fleet.ts";
import { controllerMetrics, cpuMs, deployedEnv, memoryMiB, sleep, spawnController, sumOf, until, whenAll, type Controller } from "./process.ts";
import { summarizeHeap, writtenSnapshot, type HeapLine } from "./heap.ts";
import { startFloor, type Floor } from "./floor.ts";
import { execFile } from "node:child_process";
import { cp as copyDir, mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

export interface FootprintLine {
  bench: "controller.footprint";
  targets: number;
  /** Resident memory of `fluxgate controller` (the built CLI, the Deployment's environment), idle, every target enforced. */
  rssMiB: number;
  /** Resident memory of Flux's kustomize-controller at the same moment, on the same control plane, watching the same targets. */
  kustomizeControllerRssMiB: number;
  /** CPU time of the controller process from its spawn until every target was enforced (1,000 or 5,000 writes and events). */
  enforceCpuMs: number;
  /** rssMiB / kustomizeControllerRssMiB. */
  ratio: number;
  /** Of rssMiB: anonymous memory (V8's heap, malloc) and pages of files (the node binary, libraries). */
  rssAnonMiB: number;
  rssFileMiB: number;
  /** The V8 heap: reserved, in use (live objects and garbage not yet collected), and memory outside it that JS objects hold (buffers). */
  heapTotalMiB: number;
  heapUsedMiB: number;
  externalMiB: number;
  /** Of kustomizeControllerRssMiB: anonymous memory (Go's heap and stacks) and pages of its binary. */
  kustomizeControllerRssAnonMiB: number;
  kustomizeControllerRssFileMiB: number;
  /**
   * The floor, at the same moment: a Node program without fluxgate's code, run with the same
   * environment, that lists and watches the same Kustomizations with node:https and keeps them
   * whole (bench/floor.ts). Its resident memory, anonymous and file pages, and the controller's
   * resident memory above it.
   */
  floorRssMiB: number;
  floorRssAnonMiB: number;
  floorRssFileMiB: number;
  overFloorMiB: number;
}

export interface ColdStartLine {
  bench: "controller.coldstart";
  targets: number;
  /** "dist": the built CLI with the controller bundle, as the image runs it; "src": the TypeScript sources. */
  entry: "dist" | "src";
  /**
   * V8's compiled code from Node's compile cache: "image" is a copy, for each start, of a cache
   * filled as the image's build fills it (warmCompileCache); "none" starts without one
   * (NODE_DISABLE_COMPILE_CACHE).
   */
  compileCache: "image" | "none";
  runs: number;
  minMs: number;
  medianMs: number;
  maxMs: number;
  /**
   * Medians of the parts: spawn to the log line "Started controller" (Node's start, loading the code, the kubeconfig, probes listening), from there to "Synced
   * informers" (which kinds are served, every list and watch), from there to /readyz answering 200.
   */
  medianLoadMs: number;
  medianSyncMs: number;
  medianReadyMs: number;
  /** The 1-minute load average of the machine when the runs began, and its number of CPUs: what the times were measured under. */
  loadAverage: number;
  cpus: number;
}

interface ColdStart {
  totalMs: number;
  loadMs: number;
  syncMs: number;
  readyMs: number;
}

async function stop(c: Controller): Promise<void> {
  c.child.kill("SIGTERM");
  await c.exited;
}

/** Milliseconds from spawning the process until /readyz answers 200 (informers synced), and its parts. */
async function coldStart(kubeconfigPath: string, env: Record<string, string>, main: string, warmCache: string | undefined): Promise<ColdStart> {
  let cache: string | undefined;
  if (warmCache !== undefined) {
    cache = await mkdtemp(join(tmpdir(), "fluxgate-compile-cache-"));
    await copyDir(warmCache, cache, { recursive: true });
  }
  const c = spawnController(kubeconfigPath, cache === undefined ? { ...env, NODE_DISABLE_COMPILE_CACHE: "1" } : { ...env, NODE_COMPILE_CACHE: cache }, main);
  try {
    const health = await c.healthAddr;
    await until("/readyz", async () => (await fetch(`http://${health}/readyz`).catch(() => undefined))?.status === 200, 60_000, 5);
    const ready = Date.now();
    const [started, synced] = await Promise.all([c.startedAt, c.syncedAt]);
    return { totalMs: ready - c.spawnedAt, loadMs: started - c.spawnedAt, syncMs: synced - started, readyMs: ready - synced };
  } finally {
    await stop(c);
    if (cache !== undefined) await rm(cache, { recursive: true, force: true });
  }
}

/**
 * Fills a compile cache as the image's build does (Dockerfile, build stage): `fluxgate controller`
 * with a kubeconfig that does not exist loads its code with its V8 flags, fails (exit 2), and Node
 * writes V8's code of what it loaded into NODE_COMPILE_CACHE.
 */
export async function warmCompileCache(main: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-compile-cache-"));
  const failed = await promisify(execFile)(process.execPath, [main, "controller", "--kubeconfig", join(dir, "none")], {
    env: { ...process.env, NODE_COMPILE_CACHE: dir },
  }).then(
    () => undefined,
    (err: { code?: number; stderr?: string }) => err,
  );
  if (failed?.code !== 2)
    throw new Error(`warming the compile cache: fluxgate controller did not fail on the missing kubeconfig: ${failed?.stderr ?? "it ran"}`);
  return dir;
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

function coldStartLine(targets: number, entry: "dist" | "src", compileCache: "image" | "none", runs: ColdStart[], loadAverage: number): ColdStartLine {
  const sorted = runs.map((r) => r.totalMs).sort((a, b) => a - b);
  return {
    bench: "controller.coldstart",
    targets,
    entry,
    compileCache,
    runs: sorted.length,
    minMs: sorted[0] ?? NaN,
    medianMs: median(sorted),
    maxMs: sorted[sorted.length - 1] ?? NaN,
    medianLoadMs: median(runs.map((r) => r.loadMs)),
    medianSyncMs: median(runs.map((r) => r.syncMs)),
    medianReadyMs: median(runs.map((r) => r.readyMs)),
    loadAverage: Math.round(loadAverage * 10) / 10,
    cpus: cpus().length,
  };
}

/**
 * On a control plane with source- and kustomize-controller: seeds `size` Kustomizations under 20
 * closed windows, runs the built controller until every target is suspended and it has been idle
 * for `idleSeconds`, and reads both processes' resident memory from /proc (and the controller's
 * heap from its /metrics); then takes a heap snapshot of it and sums what it holds. Then starts the
 * controller `runs` times more, to /readyz, from the build and from the sources, timing each part.
 */
export async function footprintBench(
  cp: ControlPlane,
  cli: BuiltCli,
  size: number,
  idleSeconds: number,
  runs: number,
): Promise<[FootprintLine, HeapLine, ...ColdStartLine[]]> {
  const identity = await installFluxgate(cp);
  await seedFleet(cp, size, `footprint-${size}`, { start: "0 0 1 1 *", duration: "1h" });
  const kustomizeController = (await readState(cp.dir))?.processes.find((p) => p.name === "kustomize-controller");
  if (kustomizeController === undefined) throw new Error("the control plane runs no kustomize-controller");
  const env = await deployedEnv();
  const warmCache = await warmCompileCache(cli.main);

  // A heap snapshot on SIGUSR2, taken after the resident memory was read.
  const snapshots = await mkdtemp(join(tmpdir(), "fluxgate-heap-"));
  const floor: Floor = await startFloor(identity.kubeConfig, env);
  const c = spawnController(
    identity.kubeconfigPath,
    { ...env, NODE_COMPILE_CACHE: warmCache, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ""} --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshots}` },
    cli.main,
  );
  let footprint: FootprintLine;
  let heap: HeapLine;
  try {
    await whenAll(cp, size, true, 120_000 + size * 60, c);
    const enforceCpuMs = await cpuMs(c.child.pid as number);
    if ((await floor.synced) < size) throw new Error(`the floor program listed fewer than ${size} Kustomizations`);
    await sleep(10_000 + idleSeconds * 1000);
    const [own, kustomize, bare, metrics] = await Promise.all([
      memoryMiB(c.child.pid as number),
      memoryMiB(kustomizeController.pid),
      memoryMiB(floor.child.pid as number),
      controllerMetrics(c),
    ]);
    const mib = (name: string): number => Math.round(sumOf(metrics, name) / 104_857.6) / 10;
    footprint = {
      bench: "controller.footprint",
      targets: size,
      rssMiB: own.rss,
      kustomizeControllerRssMiB: kustomize.rss,
      enforceCpuMs,
      ratio: Math.round((own.rss / kustomize.rss) * 100) / 100,
      rssAnonMiB: own.anon,
      rssFileMiB: own.file,
      heapTotalMiB: mib("fluxgate_process_nodejs_heap_size_total_bytes"),
      heapUsedMiB: mib("fluxgate_process_nodejs_heap_size_used_bytes"),
      externalMiB: mib("fluxgate_process_nodejs_external_memory_bytes"),
      kustomizeControllerRssAnonMiB: kustomize.anon,
      kustomizeControllerRssFileMiB: kustomize.file,
      floorRssMiB: bare.rss,
      floorRssAnonMiB: bare.anon,
      floorRssFileMiB: bare.file,
      overFloorMiB: Math.round((own.rss - bare.rss) * 10) / 10,
    };
    c.child.kill("SIGUSR2");
    heap = summarizeHeap(await writtenSnapshot(snapshots), size);
  } finally {
    await stop(c);
    await floor.stop();
    await rm(snapshots, { recursive: true, force: true });
  }
  const image: ColdStart[] = [];
  const none: ColdStart[] = [];
  const src: ColdStart[] = [];
  const loadAverage = loadavg()[0] as number;
  try {
    for (let i = 0; i < runs; i++) {
      image.push(await coldStart(identity.kubeconfigPath, env, cli.main, warmCache));
      none.push(await coldStart(identity.kubeconfigPath, env, cli.main, undefined));
      src.push(await coldStart(identity.kubeconfigPath, env, "src/cli/main.ts", undefined));
    }
  } finally {
    await rm(warmCache, { recursive: true, force: true });
  }
  return [
    footprint,
    heap,
    coldStartLine(size, "dist", "image", image, loadAverage),
    coldStartLine(size, "dist", "none", none, loadAverage),
    coldStartLine(size, "src", "none", src, loadAverage),
  ];
}

/** The footprint and cold-start benches at each size, each on a fresh control plane with Flux, from one build of the CLI. */
export async function footprintBenches(sizes: readonly number[], idleSeconds: number, runs: number): Promise<Array<FootprintLine | HeapLine | ColdStartLine>> {
  const cli = await buildCli();
  const out: Array<FootprintLine | HeapLine | ColdStartLine> = [];
  try {
    for (const size of sizes) {
      const cp = await startControlPlane({ flux: true, helm: false, notifications: false });
      try {
        out.push(...(await footprintBench(cp, cli, size, idleSeconds, runs)));
      } finally {
        await cp.stop();
      }
    }
  } finally {
    await cli.remove();
  }
  return out;
}
