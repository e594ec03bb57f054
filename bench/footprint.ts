// Resident memory of the controller beside Flux's kustomize-controller on one control plane, and its cold start to /readyz.

import { startControlPlane, type ControlPlane } from "../src/devenv/control-plane.ts";
import { installFluxgate } from "../src/devenv/install.ts";
import { readState } from "../src/devenv/state.ts";
import { buildCli, type BuiltCli } from "../scripts/bundle.ts";
import { seedFleet } from "./fleet.ts";
import { deployedEnv, memoryMiB, sleep, spawnController, until, whenAll, type Controller } from "./process.ts";

export interface FootprintLine {
  bench: "controller.footprint";
  targets: number;
  /** Resident memory of `fluxgate controller` (the built CLI, the Deployment's environment), idle, every target enforced. */
  rssMiB: number;
  /** Resident memory of Flux's kustomize-controller at the same moment, on the same control plane, watching the same targets. */
  kustomizeControllerRssMiB: number;
  /** rssMiB / kustomizeControllerRssMiB. */
  ratio: number;
}

export interface ColdStartLine {
  bench: "controller.coldstart";
  targets: number;
  /** "dist": the built CLI with the controller bundle, as the image runs it; "src": the TypeScript sources. */
  entry: "dist" | "src";
  runs: number;
  minMs: number;
  medianMs: number;
  maxMs: number;
}

async function stop(c: Controller): Promise<void> {
  c.child.kill("SIGTERM");
  await c.exited;
}

/** Milliseconds from spawning the process until /readyz answers 200 (informers synced). */
async function coldStart(kubeconfigPath: string, env: Record<string, string>, main: string): Promise<number> {
  const started = performance.now();
  const c = spawnController(kubeconfigPath, env, main);
  try {
    const health = await c.healthAddr;
    await until("/readyz", async () => (await fetch(`http://${health}/readyz`).catch(() => undefined))?.status === 200, 60_000, 5);
    return Math.round(performance.now() - started);
  } finally {
    await stop(c);
  }
}

function coldStartLine(targets: number, entry: "dist" | "src", ms: number[]): ColdStartLine {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    bench: "controller.coldstart",
    targets,
    entry,
    runs: sorted.length,
    minMs: sorted[0] ?? NaN,
    medianMs: sorted[Math.floor(sorted.length / 2)] ?? NaN,
    maxMs: sorted[sorted.length - 1] ?? NaN,
  };
}

/**
 * On a control plane with source- and kustomize-controller: seeds `size` Kustomizations under 20
 * closed windows, runs the built controller until every target is suspended and it has been idle
 * for `idleSeconds`, and reads both processes' resident memory from /proc. Then starts the
 * controller `runs` times more, to /readyz, from the build and from the sources.
 */
export async function footprintBench(cp: ControlPlane, cli: BuiltCli, size: number, idleSeconds: number, runs: number): Promise<[FootprintLine, ...ColdStartLine[]]> {
  const identity = await installFluxgate(cp);
  await seedFleet(cp, size, `footprint-${size}`, { start: "0 0 1 1 *", duration: "1h" });
  const kustomizeController = (await readState(cp.dir))?.processes.find((p) => p.name === "kustomize-controller");
  if (kustomizeController === undefined) throw new Error("the control plane runs no kustomize-controller");
  const env = await deployedEnv();

  const c = spawnController(identity.kubeconfigPath, env, cli.main);
  let footprint: FootprintLine;
  try {
    await whenAll(cp, size, true, 120_000 + size * 60);
    await sleep(10_000 + idleSeconds * 1000);
    const rss = (await memoryMiB(c.child.pid as number)).rss;
    const kustomize = (await memoryMiB(kustomizeController.pid)).rss;
    footprint = { bench: "controller.footprint", targets: size, rssMiB: rss, kustomizeControllerRssMiB: kustomize, ratio: Math.round((rss / kustomize) * 100) / 100 };
  } finally {
    await stop(c);
  }
  const dist: number[] = [];
  const src: number[] = [];
  for (let i = 0; i < runs; i++) {
    dist.push(await coldStart(identity.kubeconfigPath, env, cli.main));
    src.push(await coldStart(identity.kubeconfigPath, env, "src/cli/main.ts"));
  }
  return [footprint, coldStartLine(size, "dist", dist), coldStartLine(size, "src", src)];
}

/** The footprint and cold-start benches at each size, each on a fresh control plane with Flux, from one build of the CLI. */
export async function footprintBenches(sizes: readonly number[], idleSeconds: number, runs: number): Promise<Array<FootprintLine | ColdStartLine>> {
  const cli = await buildCli();
  const out: Array<FootprintLine | ColdStartLine> = [];
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
