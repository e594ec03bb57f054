// Reads commits of the fleet's repository into the model: a commit in full, or from the fleet of an earlier one and what changed since (git diff-tree), cluster
// by cluster.

import { REPOSITORY_FILE, type ClusterEntry, type RepositoryFile } from "../../gitops/layout.ts";
import { FLEET_DIR, FLEET_WINDOWS_DIR } from "../../gitops/fleet/layout.ts";
import { ConfigError } from "./errors.ts";
import { changedYamlFiles, yamlFilesAt, type ChangedFile } from "../git/commit-files.ts";
import { GitError, type Git } from "../git/git.ts";
import {
  addTargets,
  buildCluster,
  filesByCluster,
  fleetFilesOf,
  ParseCache,
  parseRepositoryFile,
  type ClusterModel,
  type FileAt,
  type Fleet,
  type TargetRecord,
} from "./model.ts";
import { FLEET_PATHS, FleetWindowRenderer, markUnrendered, type FleetRenderStats } from "./fleet-model.ts";
import { inSlices } from "./slices.ts";
import { inWorker } from "../engine/workers.ts";
import type { KustomizeRunner } from "../../gitops/kustomize.ts";
import type { TargetRenderer } from "./rendered-targets.ts";

/** Above this many characters, fluxgate.yaml is read in a worker thread: at 1,000 clusters (95 KB) reading it took 73-137 ms of CPU, at 10,000 0.6-0.7 s. */
const LARGE_REPOSITORY_FILE = 32 * 1024;

/**
 * fluxgate.yaml read as the repository file: a large one, while requests are served (`serving`),
 * in a worker thread, off the event loop. The first read is done here: nothing is served yet, and
 * a worker started for it would stay, 20-30 MiB more at ready. A file the worker refuses is read
 * again here, so its ConfigError says what every command says.
 */
async function readRepositoryFile(text: string, serving: boolean): Promise<RepositoryFile> {
  if (!serving || text.length < LARGE_REPOSITORY_FILE) return parseRepositoryFile(text);
  try {
    return await inWorker("repository", text);
  } catch {
    return parseRepositoryFile(text);
  }
}

/** How the last commit was read: in full, or from the fleet before it and the files that changed. */
export interface ReadStats {
  mode: "full" | "changes";
  /** YAML files that differ from the fleet read before ("changes" only). */
  changedFiles: number;
  /** Clusters read again (every cluster when "full"): built from their files, or their fleet windows taken again. */
  clusters: number;
  /** Of those, the clusters built again from their files; the others kept theirs and took their fleet windows again from the renders they share. */
  rebuilt: number;
  /** YAML files whose text was read from Git for this commit (the others were known by their blob). */
  filesRead: number;
}

export interface FleetReaderOptions {
  /** Lists the targets each cluster's Kustomizations render; without it, those declared in the clusters' directories. */
  targets?: TargetRenderer | undefined;
  /** Renders the clusters' fleet windows; null: a cluster that includes fleet windows says they are not known. */
  kustomize: KustomizeRunner | null;
  /** Rendering the clusters' targets failed. */
  renderFailed?: (error: unknown) => void;
}

/**
 * Reads commits into fleets. A commit read after another (a write of the service, a fetched head)
 * is read from the other's fleet: `git diff-tree` names the files that changed, and only the
 * clusters they touch are built again (a file below a cluster's directory touches that cluster;
 * one below fleet/windows/<name>/ the clusters that include that fleet window), each from windows
 * and overrides parsed before when their blob is the same. The clusters alike, the repository file
 * and the files of the others are the earlier fleet's. A commit that changes fluxgate.yaml, a
 * commit read on another day than the fleet before it (windows are validated against the day),
 * and the first commit are read in full. Loops over clusters run in short turns (slices.ts).
 */
export class FleetReader {
  private readonly git: Git;
  private readonly options: FleetReaderOptions;
  private readonly parsed = new ParseCache();
  private readonly fleetWindows: FleetWindowRenderer | null;
  /** The targets each cluster's directory declares (before rendered ones are added), by model. */
  private readonly declared = new WeakMap<ClusterModel, TargetRecord[]>();
  /** The day the fleet last read was read on. */
  private day = -1;
  stats: ReadStats = { mode: "full", changedFiles: 0, clusters: 0, rebuilt: 0, filesRead: 0 };

  constructor(git: Git, options: FleetReaderOptions) {
    this.git = git;
    this.options = options;
    this.fleetWindows = options.kustomize === null ? null : new FleetWindowRenderer(options.kustomize);
  }

  /** What the last read of a commit rendered of fleet windows (null without kustomize). */
  get fleetRenderStats(): FleetRenderStats | null {
    return this.fleetWindows?.stats ?? null;
  }

  /** The fleet at `commit`, read from `previous` (the fleet last read) when it can be. Throws ConfigError when the commit's files cannot be read. */
  async read(commit: string, previous: Fleet | null, now: number): Promise<Fleet> {
    const day = Math.floor(now / 86_400_000);
    let fleet: Fleet | null = null;
    if (previous !== null && day === this.day) fleet = await this.readChanges(commit, previous, now);
    fleet ??= await this.readAll(commit, previous, now);
    this.day = day;
    return fleet;
  }

  private async readAll(commit: string, previous: Fleet | null, now: number): Promise<Fleet> {
    const [repositoryFile] = await yamlFilesAt(this.git, commit, [REPOSITORY_FILE]);
    if (repositoryFile === undefined || repositoryFile.path !== REPOSITORY_FILE) {
      throw new ConfigError(`${this.git.dir}: commit ${commit.slice(0, 12)} has no ${REPOSITORY_FILE}; lay the repository out with "fluxgate init"`);
    }
    // fluxgate.yaml of a large fleet is a large file: read again only when its blob changed.
    const repository =
      previous?.repositoryBlob === repositoryFile.blob ? previous.repository : await readRepositoryFile(repositoryFile.text, previous !== null);
    // The whole cluster directory: its windows and overrides, and the Flux objects declared there (per-target timelines).
    const dirs = repository.clusters.map((c) => c.path);
    // The previous commit's texts by blob: only what changed is read from Git.
    const known = new Map<string, string>();
    if (previous !== null) for (const list of [...previous.files.values(), [...previous.fleetFiles.values()]]) for (const f of list) known.set(f.blob, f.text);
    const files = dirs.length === 0 ? [] : await yamlFilesAt(this.git, commit, [...dirs, ...FLEET_PATHS], known);
    const grouped = filesByCluster(repository.clusters, files);
    const clusters = await inSlices(repository.clusters, (entry) => this.build(entry, grouped.get(entry.name) ?? [], now));
    const fleet: Fleet = { commit, repository, clusters, fleetFiles: fleetFilesOf(files), files: grouped, repositoryBlob: repositoryFile.blob };
    this.parsed.keep(files);
    await this.render(fleet, clusters, now);
    const filesRead = files.reduce((n, f) => (known.has(f.blob) ? n : n + 1), 0);
    this.stats = { mode: "full", changedFiles: 0, clusters: clusters.length, rebuilt: clusters.length, filesRead };
    return fleet;
  }

  /** The fleet at `commit` from `previous` and the files that changed; null when it must be read in full. */
  private async readChanges(commit: string, previous: Fleet, now: number): Promise<Fleet | null> {
    let changed: ChangedFile[];
    try {
      changed = await changedYamlFiles(this.git, previous.commit, commit);
    } catch (e) {
      // An earlier commit no longer in the object store (a pruned force-push): read in full.
      if (e instanceof GitError) return null;
      throw e;
    }
    // Another fluxgate.yaml may have other clusters, paths and labels.
    if (changed.some((c) => c.path === REPOSITORY_FILE)) return null;
    const { repository } = previous;
    const byPath = new Map<string, ClusterEntry[]>();
    for (const c of repository.clusters) {
      const list = byPath.get(c.path);
      if (list === undefined) byPath.set(c.path, [c]);
      else list.push(c);
    }
    const touched = new Map<string, ChangedFile[]>();
    const fleetChanged: ChangedFile[] = [];
    // Every loop over the changes or the clusters runs in turns of the event loop: a fleet freeze of 2,500 clusters changes 10,000 files.
    await inSlices(changed, (change) => {
      if (change.path.startsWith(`${FLEET_DIR}/`)) fleetChanged.push(change);
      for (let at = change.path.lastIndexOf("/"); at > 0; at = change.path.lastIndexOf("/", at - 1)) {
        for (const c of byPath.get(change.path.slice(0, at)) ?? []) {
          const list = touched.get(c.name);
          if (list === undefined) touched.set(c.name, [change]);
          else list.push(change);
        }
      }
    });
    const gone: FileAt[] = [];
    const files = new Map(previous.files);
    await inSlices([...touched], ([name, changes]) => {
      const paths = new Set(changes.map((c) => c.path));
      const before = previous.files.get(name) ?? [];
      for (const f of before) if (paths.has(f.path)) gone.push(f);
      const after = [...before.filter((f) => !paths.has(f.path)), ...changes.flatMap((c) => (c.file === null ? [] : [c.file]))];
      // Git's order of a listing of the tree: paths compared as bytes (for these, as UTF-16 units).
      files.set(
        name,
        after.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
      );
    });
    let fleetFiles = previous.fleetFiles;
    const fleetWindowsChanged = new Set<string>();
    if (fleetChanged.length > 0) {
      fleetFiles = new Map(fleetFiles);
      for (const change of fleetChanged) {
        const old = fleetFiles.get(change.path);
        if (old !== undefined) gone.push(old);
        if (change.file === null) fleetFiles.delete(change.path);
        else fleetFiles.set(change.path, change.file);
        // fleet/windows/<name>/...: the clusters that include <name> render it.
        const name = change.path.startsWith(`${FLEET_WINDOWS_DIR}/`) ? change.path.slice(FLEET_WINDOWS_DIR.length + 1).split("/") : [];
        if (name.length > 1) fleetWindowsChanged.add(name[0] as string);
      }
      fleetFiles = new Map([...fleetFiles].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    const renderer = this.fleetWindows;
    // A cluster whose files changed is built again from them; one that renders a fleet window or the
    // fleet folder that changed keeps its files' windows and takes its fleet windows again (the
    // renders it shares are built once: a fleet freeze of the folder reads no cluster's files).
    const isAffected = await inSlices(previous.clusters, (m): "build" | "select" | null => {
      if (touched.has(m.entry.name)) return "build";
      if (renderer === null) return null;
      if (fleetWindowsChanged.size > 0 && renderer.includes(m).some((n) => fleetWindowsChanged.has(n))) return "select";
      // A cluster that includes the fleet folder renders every fleet window and freeze it lists.
      return fleetChanged.length > 0 && renderer.inFolder(m) ? "select" : null;
    });
    const affected = previous.clusters.flatMap((m, i) => {
      const how = isAffected[i] ?? null;
      return how === null ? [] : [{ m, how }];
    });
    const rebuilt = await inSlices(affected, ({ m, how }) =>
      how === "build" ? this.build(m.entry, files.get(m.entry.name) ?? [], now) : this.withoutFleetWindows(m),
    );
    const builds = affected.reduce((n, a) => (a.how === "build" ? n + 1 : n), 0);
    this.parsed.drop(gone);
    const byName = new Map(rebuilt.map((m) => [m.entry.name, m]));
    const clusters = previous.clusters.map((m) => byName.get(m.entry.name) ?? m);
    const fleet: Fleet = {
      commit,
      repository,
      clusters,
      fleetFiles,
      files,
      ...(previous.repositoryBlob === undefined ? {} : { repositoryBlob: previous.repositoryBlob }),
    };
    await this.render(fleet, rebuilt, now);
    const filesRead = changed.reduce((n, c) => (c.file === null ? n : n + 1), 0);
    this.stats = { mode: "changes", changedFiles: changed.length, clusters: rebuilt.length, rebuilt: builds, filesRead };
    return fleet;
  }

  /** A cluster from its files, its declared targets remembered (rendered ones are added to them). */
  private build(entry: ClusterEntry, files: readonly FileAt[], now: number): ClusterModel {
    const model = buildCluster(entry, files, now, this.parsed);
    this.declared.set(model, model.targets.slice());
    return model;
  }

  /**
   * A copy of a cluster's model with the windows, overrides and targets of its files alone: what
   * the fleet gives it (fleet windows, the fleet folder's freezes) is taken again (render).
   */
  private withoutFleetWindows(m: ClusterModel): ClusterModel {
    const copy: ClusterModel = {
      ...m,
      windows: m.windows.filter((w) => w.fleet === null),
      overrides: m.overrides.filter((o) => o.path.startsWith(`${m.windowsDir}/`)),
      targets: (this.declared.get(m) ?? m.targets).slice(),
      fleetError: null,
    };
    this.declared.set(copy, copy.targets.slice());
    return copy;
  }

  /** Adds the fleet windows of the clusters built anew, and the targets every cluster renders. */
  private async render(fleet: Fleet, built: readonly ClusterModel[], now: number): Promise<void> {
    if (this.fleetWindows !== null) await this.fleetWindows.addFleetWindows(fleet.repository, built, fleet.files, fleet.fleetFiles, now);
    else markUnrendered({ ...fleet, clusters: [...built] });
    const render = this.options.targets;
    if (render === undefined) return;
    // What a cluster's Kustomizations render may come from anywhere in the repository (a base of
    // apps/): every cluster's targets are rendered again, on a copy of each model not built anew.
    const fresh = new Set(built);
    fleet.clusters = fleet.clusters.map((m) => {
      if (fresh.has(m)) return m;
      const copy: ClusterModel = { ...m, targets: (this.declared.get(m) ?? m.targets).slice() };
      this.declared.set(copy, copy.targets.slice());
      return copy;
    });
    let rendered: Map<string, TargetRecord[]>;
    try {
      rendered = await render(
        this.git,
        fleet.commit,
        fleet.clusters.map((c) => ({ name: c.entry.name, path: c.entry.path })),
      );
    } catch (e) {
      this.options.renderFailed?.(e);
      return;
    }
    for (const cluster of fleet.clusters) addTargets(cluster, rendered.get(cluster.entry.name) ?? []);
  }
}
