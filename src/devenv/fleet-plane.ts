// Several local clusters at once for `fluxgate demo --fleet`: one etcd they share under separate prefixes, one Git server, a control plane with Flux each.

import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanUpOnExit, etcdSpawnOptions, startControlPlane, type ControlPlane } from "./control-plane.ts";
import { startGitServer } from "./flux.ts";
import type { GitServer } from "./git.ts";
import { httpOk } from "./http-probe.ts";
import { residentBytes, spawnComponent, stopComponents, waitReady, type ComponentProcess } from "./process.ts";
import { readState, writeState, type ControlPlaneState } from "./state.ts";
import { controlPlaneTools, ensureFluxCrds, ensureTools, fluxTools } from "./tools.ts";

export interface FleetPlaneOptions {
  /** The clusters' names (DNS labels): each gets a kube-apiserver, Flux's source-, kustomize- and notification-controller. */
  readonly clusters: readonly string[];
  readonly log?: (line: string) => void;
}

/** Running clusters that share one etcd and one Git server. */
export interface FleetPlane {
  readonly dir: string;
  /** Each cluster's control plane, by name, in the order given. */
  readonly clusters: ReadonlyMap<string, ControlPlane>;
  /** The Git server every cluster's source-controller pulls from. */
  readonly git: GitServer & { readonly gitUrl: string };
  /** Every process started, with its resident memory now (bytes). */
  processes(): Promise<{ name: string; pid: number; rss: number }[]>;
  /** Stops every cluster, then etcd and the Git server, and removes the directory. */
  stop(): Promise<void>;
}

/** The processes of the fleet's own state, then of each cluster, as they run now. */
async function startedProcesses(dir: string, clusters: readonly ControlPlane[]): Promise<{ name: string; proc: ComponentProcess }[]> {
  const out: { name: string; proc: ComponentProcess }[] = [];
  for (const p of (await readState(dir))?.processes ?? []) out.push({ name: p.name, proc: p });
  for (const cp of clusters) {
    const cluster = cp.dir.slice(dir.length + 1);
    for (const p of (await readState(cp.dir))?.processes ?? []) out.push({ name: `${cluster}/${p.name}`, proc: p });
  }
  return out;
}

/**
 * Starts one etcd and one Git server, then every cluster at once: a kube-apiserver keeping its
 * objects in the shared etcd under `/<cluster>/registry`, with source-, kustomize- and
 * notification-controller pulling from the shared Git server.
 *
 * @example const fleet = await startFleetPlane({ clusters: ["edge-berlin", "edge-tokyo"] }); try { ... } finally { await fleet.stop(); }
 */
export async function startFleetPlane(options: FleetPlaneOptions): Promise<FleetPlane> {
  const log = options.log ?? ((line: string) => process.stderr.write(`[fluxgate fleet] ${line}\n`));
  // Built once, before the clusters start side by side (each would otherwise check them at once).
  const tools = await ensureTools([...controlPlaneTools, ...fluxTools.filter((t) => t !== "helm-controller")], log);
  await ensureFluxCrds(log);
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-fleet-"));
  const logDir = join(dir, "logs");
  await mkdir(logDir);
  const state: ControlPlaneState = { createdDir: true, created: [], processes: [] };
  await writeState(dir, state);
  cleanUpOnExit(dir, state);
  const started = async (proc: ComponentProcess): Promise<void> => {
    state.processes.push(proc);
    await writeState(dir, state);
  };
  const planes: ControlPlane[] = [];
  const stop = async (): Promise<void> => {
    // The clusters first, and their kube-apiservers before the etcd they keep their objects in.
    await Promise.all(planes.map((cp) => cp.stop()));
    await stopComponents([...state.processes].reverse());
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const etcd = await etcdSpawnOptions(tools.etcd.path, join(dir, "etcd"), logDir);
    const etcdProc = spawnComponent(etcd.spawn);
    await started(etcdProc);
    const git = await startGitServer(join(dir, "git"), logDir);
    await started(git.proc);
    await Promise.all([waitReady(etcdProc, () => httpOk(`${etcd.url}/health`), 30_000), git.ready()]);
    const server = { gitRoot: join(dir, "git"), gitUrl: git.gitUrl };
    const results = await Promise.allSettled(
      options.clusters.map((name) =>
        startControlPlane({
          dir: join(dir, name),
          flux: true,
          notifications: true,
          fluxEvents: true,
          helm: false,
          etcd: { url: etcd.url, prefix: `/${name}/registry` },
          git: server,
          log: (line) => log(`${name}: ${line}`),
        }),
      ),
    );
    for (const r of results) if (r.status === "fulfilled") planes.push(r.value);
    const failed = results.find((r) => r.status === "rejected");
    if (failed !== undefined) throw failed.reason;
    return {
      dir,
      clusters: new Map(options.clusters.map((name, i) => [name, planes[i] as ControlPlane])),
      git: server,
      processes: async () => (await startedProcesses(dir, planes)).map(({ name, proc }) => ({ name, pid: proc.pid, rss: residentBytes(proc.pid) })),
      stop,
    };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}
