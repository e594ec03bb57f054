// The effective windows of a cluster: what the real kustomize renders of its windows/ folder (fleet bases with the cluster's patches), as Flux applies it.

import { resolve } from "node:path";
import { type FieldProblem, InputError } from "../../errors.ts";
import { validateWindow, type ReconciliationWindow } from "../../api/index.ts";
import type { CompiledWindow } from "../../schedule/index.ts";
import { RepositoryInputError } from "../errors.ts";
import { readRepositoryFile, RepoFiles, requireDirectory } from "../files.ts";
import { findKustomize, KustomizeRunner } from "../kustomize.ts";
import { FLUX_NAMESPACE, windowsDir, type ClusterEntry, type RepositoryFile } from "../layout.ts";
import { field, isJson, str, type Json } from "../objects.ts";
import { CLUSTER_IDENTITY_NAME, CLUSTER_IDENTITY_NAMESPACE } from "../../api/index.ts";
import { fleetScope, readClusterIdentity, type ClusterIdentity, type FleetScope } from "../../policy/index.ts";
import { Renderer, type RenderedObject } from "../render.ts";
import { FLEET_WINDOW_LABEL } from "./layout.ts";
import { clusterContext } from "./select.ts";
import { clusterNamed } from "./windows.ts";

/** One window of a cluster as kustomize renders it. */
export interface EffectiveWindow {
  name: string;
  namespace: string;
  /** The fleet window it comes from (its fluxgate.io/fleet-window label), or null for a window of the cluster's own. */
  fleetWindow: string | null;
  /** The file it comes from (repository path), when kustomize said. */
  file: string | null;
  /** The rendered manifest, patches applied. */
  manifest: Json;
  /** The validated window; null when it is not valid (then `problems` says why). */
  window: ReconciliationWindow | null;
  /** The window compiled for this cluster (a holiday freeze from its labels); null when it is not valid. */
  compiled: CompiledWindow | null;
  problems: FieldProblem[];
  /** A window with a clusterSelector (the fleet folder's): whether the cluster's identity selects it (policy/fleet.ts); unconfirmed opens by no schedule. */
  fleet?: FleetScope | undefined;
}

/** What a cluster's windows/ folder renders: its windows, its overrides, or kustomize's message when the build failed. */
export interface RenderedWindows {
  cluster: string;
  windows: EffectiveWindow[];
  /** The WindowOverride manifests it renders that act on the cluster (a fleet freeze whose clusterSelector does not match it does not). */
  overrides: Json[];
  /** Windows and overrides it renders whose clusterSelector the cluster's identity does not match: applied by Flux, they govern nothing there. */
  notSelected: string[];
  /** The cluster's identity as its windows render it (ConfigMap flux-system/fluxgate-cluster), read as the controller reads it. */
  identity: ClusterIdentity;
  /** The rendered identity ConfigMap, when there is one. */
  identityManifest: Json | null;
  /** kustomize's message when the folder does not build (a patch that no longer applies, a missing base); then nothing else is known. */
  error: string | null;
}

/**
 * Renders the windows of a fleet's clusters with the real kustomize, through the renderer's pool
 * and its content-hash cache (clusters sharing a fleet base and no patch are built once). One
 * instance sees the files as they were when first read: open a new one after the repository changes.
 *
 * @example const fleet = await FleetWindows.open("/srv/fleet", { env: process.env }); const w = await fleet.of("edge-berlin"); await fleet.close();
 */
export class FleetWindows {
  readonly files: RepoFiles;
  readonly repository: RepositoryFile | null;
  private readonly renderer: Renderer;
  readonly runner: KustomizeRunner;

  /** `renderer`: share one with other renders of the same files (check does), so its cache serves both. */
  constructor(files: RepoFiles, repository: RepositoryFile | null, runner: KustomizeRunner, renderer?: Renderer) {
    this.files = files;
    this.repository = repository;
    this.runner = runner;
    this.renderer = renderer ?? new Renderer(files, runner);
  }

  /** Opens a repository: reads fluxgate.yaml and finds kustomize (`kustomize` flag, FLUXGATE_KUSTOMIZE, PATH, ...). */
  static async open(root: string, options: { kustomize?: string | undefined; env?: NodeJS.ProcessEnv; concurrency?: number } = {}): Promise<FleetWindows> {
    const dir = resolve(root);
    await requireDirectory(dir, "repository");
    const files = new RepoFiles(dir);
    const repository = await readRepositoryFile(files);
    const runner = new KustomizeRunner(await findKustomize(options.kustomize, options.env ?? process.env), { concurrency: options.concurrency });
    return new FleetWindows(files, repository, runner);
  }

  /** Builds answered from the cache so far. */
  get cacheHits(): number {
    return this.renderer.cacheHits;
  }

  async close(): Promise<void> {
    await this.renderer.close();
  }

  /** The windows of a cluster (a name of fluxgate.yaml, or its entry), rendered, and those its identity (as its windows render it) selects. */
  async of(cluster: string | ClusterEntry, now: number = Date.now()): Promise<RenderedWindows> {
    const entry = typeof cluster === "string" ? clusterNamed(this.repository, cluster) : cluster;
    const folder = await this.build(entry);
    return selectFor(entry, folder, readClusterIdentity(folder.identity?.body), now);
  }

  /** What kustomize renders of a cluster's windows/ folder, before its identity selects anything (FleetWindows.of selects). */
  async build(entry: ClusterEntry): Promise<RenderedFolder> {
    const dir = windowsDir(entry);
    if (!(await this.files.isDir(dir))) return { objects: [], identity: null, error: null };
    const rendered = await this.renderer.renderCluster(entry.name, dir, [{ name: "windows", namespace: FLUX_NAMESPACE, path: dir }]);
    const root = rendered.kustomizations.find((k) => k.path === dir);
    if (root === undefined || root.error !== null) return { objects: [], identity: null, error: root?.error ?? `cannot build ./${dir}` };
    const identity = root.objects.find(
      (o) => o.ref.group === "" && o.ref.kind === "ConfigMap" && o.ref.name === CLUSTER_IDENTITY_NAME && o.ref.namespace === CLUSTER_IDENTITY_NAMESPACE,
    );
    return {
      objects: root.objects.filter((o) => o.ref.group === "fluxgate.io"),
      identity: identity === undefined ? null : { body: identity.body, file: identity.file },
      error: null,
    };
  }
}

/** A cluster's windows/ folder as kustomize renders it, before the cluster's identity selects among its fleet windows and freezes. */
export interface RenderedFolder {
  /** The fluxgate.io objects it renders (windows and overrides), in kustomize's order. */
  objects: RenderedObject[];
  /** The identity ConfigMap it renders (flux-system/fluxgate-cluster) and the file it comes from, or null. */
  identity: { body: Json; file: string | null } | null;
  /** kustomize's message when the folder does not build; then nothing else is known. */
  error: string | null;
}

/** Whether a rendered window or override is the cluster's of `identity`: its spec.clusterSelector read as the controller reads it (policy/fleet.ts). */
export function scopeOf(body: Json, identity: ClusterIdentity): FleetScope {
  const selector = field(body, "spec", "clusterSelector");
  return fleetScope(isJson(selector) ? selector : undefined, identity);
}

/**
 * The windows and overrides of a rendered folder that act on the cluster of `identity` (as the
 * controller picks them), each window validated for the cluster.
 */
export function selectFor(entry: ClusterEntry, folder: RenderedFolder, identity: ClusterIdentity, now: number): RenderedWindows {
  const base = { cluster: entry.name, identity, identityManifest: folder.identity?.body ?? null, error: folder.error };
  if (folder.error !== null) return { ...base, windows: [], overrides: [], notSelected: [], identity: readClusterIdentity(undefined) };
  const windows: EffectiveWindow[] = [];
  const overrides: Json[] = [];
  const notSelected: string[] = [];
  for (const o of folder.objects) {
    const scope = scopeOf(o.body, identity);
    if (scope.kind === "not-selected") {
      notSelected.push(`${o.ref.kind} ${o.ref.name}`);
      continue;
    }
    if (o.ref.kind === "WindowOverride" && (scope.kind !== "unconfirmed" || str(field(o.body, "spec", "action")) === "Freeze")) overrides.push(o.body);
    if (o.ref.kind !== "ReconciliationWindow") continue;
    let window: ReconciliationWindow | null = null;
    let compiled: CompiledWindow | null = null;
    let problems: FieldProblem[] = [];
    try {
      // Validated for this cluster: a holiday freeze may take its country from the cluster's labels.
      ({ window, compiled } = validateWindow(o.body, now, { cluster: clusterContext(entry) }));
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      problems = [...e.problems];
    }
    const fleetWindow = str(field(o.body, "metadata", "labels", FLEET_WINDOW_LABEL)) ?? null;
    windows.push({
      name: o.ref.name,
      namespace: o.ref.namespace,
      fleetWindow,
      file: o.file,
      manifest: o.body,
      window,
      compiled,
      problems,
      ...(scope.kind === "own" ? {} : { fleet: scope }),
    });
  }
  windows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { ...base, windows, overrides, notSelected };
}

/**
 * The effective windows of one cluster of a repository: what `kustomize build` of its windows/
 * folder renders, fleet bases with the cluster's patches applied. Throws a RepositoryInputError
 * when the cluster is not in fluxgate.yaml or its windows folder does not build (kustomize's message).
 *
 * @example const windows = await effectiveWindows("/srv/fleet", "edge-berlin");
 */
export async function effectiveWindows(
  repo: string,
  cluster: string,
  options: { kustomize?: string | undefined; env?: NodeJS.ProcessEnv; now?: number } = {},
): Promise<EffectiveWindow[]> {
  const fleet = await FleetWindows.open(repo, options);
  try {
    const r = await fleet.of(cluster, options.now ?? Date.now());
    if (r.error !== null)
      throw new RepositoryInputError(`cluster ${cluster}: ${windowsDir(clusterNamed(fleet.repository, cluster))} does not build: ${r.error}`);
    return r.windows;
  } finally {
    await fleet.close();
  }
}
