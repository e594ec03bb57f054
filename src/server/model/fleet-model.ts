// Fleet windows in the service's model: each cluster's effective windows as the real kustomize renders them (FleetWindows.of), cached by content.

import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { stringify } from "yaml";
import { FleetWindows, scopeOf, selectFor, type RenderedFolder, type RenderedWindows } from "../../gitops/fleet/effective.ts";
import { FLEET_FOLDER_FILE, fleetFolderEntries } from "../../gitops/fleet/folder.ts";
import { clusterSelectorOfWindow, FLEET_DIR, FLEET_WINDOW_LABEL, FLEET_WINDOWS_DIR, fleetWindowDir, fleetWindowFile } from "../../gitops/fleet/layout.ts";
import { clusterFleetEntries, selectorOfFleetWindow } from "../../gitops/fleet/windows.ts";
import { RepoFiles } from "../../gitops/files.ts";
import type { KustomizeRunner } from "../../gitops/kustomize.ts";
import { windowsDir, windowsKustomizationFile, type ClusterEntry, type RepositoryFile } from "../../gitops/layout.ts";
import { field, str, type Json } from "../../gitops/objects.ts";
import { readClusterIdentity, type ClusterIdentity } from "../../policy/index.ts";
import { addFolderFreezes } from "./folder-freezes.ts";
import { inSlices } from "./slices.ts";
import { identityManifestOf, identityPath, readKustomization, renderKey, type KustomizationReading } from "./render-key.ts";
import { holidayLabelsKey, readWindow, type WindowRecord, type ClusterModel, type FileAt, type Fleet, type FleetEntries, type FleetOrigin } from "./model.ts";

/** Where a cluster's rendered windows came from, for metrics and the bench. */
export interface FleetRenderStats {
  clusters: number;
  cacheHits: number;
  builds: number;
}

interface Rendered {
  /** What kustomize rendered, before any cluster's identity selected among it (kustomize's message in `error` said as repository paths). */
  folder: RenderedFolder;
  /**
   * Where the identity that selects comes from: the identity file of each cluster that shares the
   * render (its path in the cluster's windows/ folder, e.g. fluxgate-cluster.yaml), or null for the
   * identity the render itself holds (a cluster rendered on its own, or no identity file of its own).
   */
  identityFile: string | null;
  /** The windows/ folder of the cluster that was rendered: its windows and overrides of its own are in `folder` too. */
  dir: string;
  /** The windows validated, by name and day (validation depends on the day): shared by the clusters alike. */
  records?: Map<string, WindowRecord>;
}

/** The files of fleet/windows/ at a commit, by path. */
export type FleetFiles = ReadonlyMap<string, FileAt>;

const MAX_CACHED = 20_000;

/**
 * Renders the windows of the clusters that include fleet windows, with the real kustomize through
 * FleetWindows.of (as `fluxgate check` and the CLI do). A cluster's render is kept by the content
 * of what kustomize reads to build it (renderKey: its windows/ folder and the fleet bases it
 * includes), so a commit that changes one cluster renders one cluster, and clusters alike are built once.
 */
export class FleetWindowRenderer {
  private readonly runner: KustomizeRunner;
  private readonly cache = new Map<string, Rendered>();
  /** Renders of one commit that belong to one cluster alone (its folder did not build). */
  private readonly single = new Map<string, Rendered>();
  private readonly entries = new Map<string, FleetEntries>();
  private readonly readings = new Map<string, KustomizationReading>();
  /** Identity files read, by blob. */
  /** Each cluster's render and identity, as of the last read that rendered it. */
  private readonly selection = new Map<string, { rendered: Rendered; identity: ClusterIdentity; manifest: RenderedFolder["identity"] }>();
  private readonly identities = new Map<string, { manifest: Json | null; identity: ClusterIdentity }>();
  stats: FleetRenderStats = { clusters: 0, cacheHits: 0, builds: 0 };

  constructor(runner: KustomizeRunner) {
    this.runner = runner;
  }

  /**
   * Adds to each cluster the fleet windows its windows/ folder renders (a window of the cluster's
   * own keeps its file), or sets `fleetError` to kustomize's message when the folder does not build.
   */
  async addFleetWindows(
    repository: RepositoryFile,
    clusters: readonly ClusterModel[],
    files: ReadonlyMap<string, readonly FileAt[]>,
    fleetFiles: FleetFiles,
    now: number,
  ): Promise<void> {
    const stats: FleetRenderStats = { clusters: 0, cacheHits: 0, builds: 0 };
    const basesOf = new Map<string, FileAt[]>();
    const base = (name: string): FileAt[] => {
      let found = basesOf.get(name);
      if (found === undefined) basesOf.set(name, (found = [...fleetFiles.values()].filter((f) => f.path.startsWith(`${fleetWindowDir(name)}/`))));
      return found;
    };
    // The fleet folder (docs/gitops.md#the-fleet-folder): a cluster that includes fleet/ renders every fleet window and freeze it
    // lists, and its identity picks those whose clusterSelector is its own (FleetWindows.of), as the cluster's controller does.
    const folderText = fleetFiles.get(FLEET_FOLDER_FILE)?.text ?? null;
    let folderWindows: string[] = [];
    try {
      folderWindows = folderText === null ? [] : fleetFolderEntries(folderText).windows;
    } catch {
      folderWindows = []; // fleet/kustomization.yaml that cannot be read: the clusters' builds say so (fleetError)
    }
    const folderFiles = [...fleetFiles.values()].filter((f) => !f.path.startsWith(`${FLEET_WINDOWS_DIR}/`));
    // A cluster's entries are read from its kustomization.yaml (YAML) the first time: in short turns.
    const keyed = await inSlices(clusters, (model) => {
      const own = this.entriesOf(model);
      const inFolder = model.kustomization !== null && includesFleetFolder(model.kustomization.text);
      const entries = inFolder ? { ...own, includes: [...new Set([...own.includes, ...folderWindows])] } : own;
      model.fleetEntries = entries;
      if (entries.includes.length === 0 && !inFolder) return null;
      // What the fleet windows of the folder are built from (fleet-render-key.ts says what enters the key, and why).
      const folder = (files.get(model.entry.name) ?? []).filter((f) => f.path.startsWith(`${model.windowsDir}/`));
      const key = renderKey(model, this.readingOf(model, entries), folder, [...entries.includes.flatMap(base), ...(inFolder ? folderFiles : [])], (f) =>
        this.identityManifest(f),
      );
      return { model, key, includes: entries.includes };
    });
    const work = keyed.filter((w) => w !== null);
    stats.clusters = work.length;
    const missing = work.filter((w) => !this.cache.has(w.key));
    stats.cacheHits = work.length - new Set(missing.map((w) => w.key)).size;
    if (missing.length > 0) {
      const before = this.runner.builds;
      await this.render(repository, missing, files, fleetFiles);
      stats.builds = this.runner.builds - before;
    }
    // The selector each base records, read once per base (not once per cluster that includes it).
    const selectors = new Map<string, string | null>();
    const selectorOf = (path: string): string | null => {
      if (!selectors.has(path)) {
        const text = fleetFiles.get(path)?.text ?? null;
        selectors.set(path, selectorOfFleetWindow(text) ?? clusterSelectorOfWindow(text));
      }
      return selectors.get(path) ?? null;
    };
    await inSlices(work, (w) => {
      const rendered = this.single.get(w.model.entry.name) ??
        this.cache.get(w.key) ?? { folder: { objects: [], identity: null, error: "not rendered" }, identityFile: null, dir: w.model.windowsDir };
      const { identity, manifest } = this.identityOf(w.model, rendered, files);
      this.selection.set(w.model.entry.name, { rendered, identity, manifest });
      apply(w.model, this.entriesOf(w.model), rendered, identity, fleetFiles, selectorOf, now);
    });
    this.single.clear();
    // The fleet folder's freezes: on each cluster that includes it and whose labels their clusterSelector matches, once its windows are all known.
    await addFolderFreezes(
      clusters.filter((m) => this.inFolder(m)),
      fleetFiles,
      now,
    );
    // Every cluster read (a commit read in full): a cluster no longer in fluxgate.yaml keeps no render.
    if (clusters.length === repository.clusters.length) {
      const names = new Set(repository.clusters.map((c) => c.name));
      for (const name of this.selection.keys()) if (!names.has(name)) this.selection.delete(name);
    }
    this.stats = stats;
    if (this.cache.size > MAX_CACHED) this.cache.clear();
  }

  /**
   * The fleet windows and fleet freezes the cluster's windows/ folder renders and its identity
   * selects (and those it does not select), from the render it shares, as of the last read that
   * rendered it; null for a cluster that includes no fleet window. Its windows and overrides of its
   * own are not among them (the model reads them from its files).
   */
  selected(entry: ClusterEntry, now: number): RenderedWindows | null {
    const last = this.selection.get(entry.name);
    if (last === undefined) return null;
    const { folder, dir } = last.rendered;
    // A shared render holds the rendered cluster's own windows and overrides: the model has each cluster's from its files.
    const objects = folder.objects.filter((o) => o.file === null || !o.file.startsWith(`${dir}/`));
    return selectFor(entry, { ...folder, objects, identity: last.manifest }, last.identity, now);
  }

  /** Whether a cluster's windows/kustomization.yaml includes the fleet folder: then every change below fleet/ may change what it renders. */
  inFolder(model: ClusterModel): boolean {
    return model.kustomization !== null && includesFleetFolder(model.kustomization.text);
  }

  /** The fleet windows a cluster's windows/kustomization.yaml includes (read once per blob). */
  includes(model: ClusterModel): readonly string[] {
    return this.entriesOf(model).includes;
  }

  /** What a cluster's windows/kustomization.yaml says of fleet windows, read once per blob. */
  private entriesOf(model: ClusterModel): FleetEntries {
    const file = model.kustomization;
    if (file === null) return { includes: [], patches: [] };
    const key = `${model.windowsDir}\0${file.blob}`;
    let entries = this.entries.get(key);
    if (entries === undefined) {
      entries = clusterFleetEntries(model.entry, file.text);
      if (this.entries.size > MAX_CACHED) this.entries.clear();
      this.entries.set(key, entries);
    }
    return entries;
  }

  /** A cluster's windows/kustomization.yaml read for the render key, once per blob. */
  private readingOf(model: ClusterModel, entries: FleetEntries): KustomizationReading {
    const file = model.kustomization as FileAt;
    const key = `${model.windowsDir}\0${file.blob}`;
    let reading = this.readings.get(key);
    if (reading === undefined) {
      reading = readKustomization(model, file, entries.includes);
      if (this.readings.size > MAX_CACHED) this.readings.clear();
      this.readings.set(key, reading);
    }
    return reading;
  }

  /**
   * How the clusters that share a render are told apart: by the identity file each has (its path
   * in the windows/ folder) when the render's identity ConfigMap comes from the rendered cluster's
   * own identity file and says what that file says as read here; null when the render holds no
   * identity, or one from elsewhere (then it is in the render key by its content). Undefined when
   * neither can be trusted (kustomize did not say where it came from, or read the file otherwise):
   * then each cluster of that render key is rendered on its own.
   */
  private sharedIdentity(model: ClusterModel, r: RenderedFolder, files: ReadonlyMap<string, readonly FileAt[]>): string | null | undefined {
    if (r.identity === null) return null;
    const path = identityPath(model);
    if (r.identity.file !== path) return r.identity.file === null ? undefined : null;
    const own = (files.get(model.entry.name) ?? []).find((f) => f.path === path);
    if (own === undefined || !isDeepStrictEqual(this.identityRead(own).identity, readClusterIdentity(r.identity.body))) return undefined;
    return path.slice(model.windowsDir.length + 1);
  }

  /** An identity file's ConfigMap (identityManifestOf) and the identity it states, read once per blob. */
  private identityRead(file: FileAt): { manifest: Json | null; identity: ClusterIdentity } {
    let found = this.identities.get(file.blob);
    if (found === undefined) {
      const manifest = identityManifestOf(file.text, file.size);
      found = { manifest, identity: readClusterIdentity(manifest ?? undefined) };
      if (this.identities.size > MAX_CACHED) this.identities.clear();
      this.identities.set(file.blob, found);
    }
    return found;
  }

  private identityManifest(file: FileAt): Json | null {
    return this.identityRead(file).manifest;
  }

  /**
   * The identity that selects a cluster's windows in a render, and its ConfigMap as kustomize
   * renders it for the cluster: its own identity file's when the render is shared (the render's
   * ConfigMap with the file's data), else the render's.
   */
  private identityOf(
    model: ClusterModel,
    rendered: Rendered,
    files: ReadonlyMap<string, readonly FileAt[]>,
  ): { identity: ClusterIdentity; manifest: RenderedFolder["identity"] } {
    const shared = rendered.folder.identity;
    if (rendered.identityFile === null || shared === null) return { identity: readClusterIdentity(shared?.body), manifest: shared };
    const path = `${model.windowsDir}/${rendered.identityFile}`;
    const file = (files.get(model.entry.name) ?? []).find((f) => f.path === path);
    const read = file === undefined ? null : this.identityRead(file);
    if (read?.manifest === null || read === null) return { identity: readClusterIdentity(undefined), manifest: null };
    return { identity: read.identity, manifest: { body: { ...shared.body, data: read.manifest.data }, file: path } };
  }

  /** Writes what the missing clusters build from into a scratch directory and renders them there. */
  private async render(
    repository: RepositoryFile,
    missing: ReadonlyArray<{ model: ClusterModel; key: string }>,
    files: ReadonlyMap<string, readonly FileAt[]>,
    fleetFiles: FleetFiles,
  ): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), "fluxgate-fleet-windows-"));
    const fleet = new FleetWindows(new RepoFiles(dir), repository, this.runner);
    try {
      const write = async (f: FileAt): Promise<void> => {
        await mkdir(dirname(join(dir, f.path)), { recursive: true });
        await writeFile(join(dir, f.path), f.text);
      };
      for (const f of fleetFiles.values()) await write(f);
      const written = new Set<string>();
      const writeCluster = async (model: ClusterModel): Promise<void> => {
        if (written.has(model.entry.name)) return;
        written.add(model.entry.name);
        for (const f of files.get(model.entry.name) ?? []) if (f.path.startsWith(`${model.windowsDir}/`)) await write(f);
      };
      // One cluster of each kind is built; when its folder does not build (a file of its own may be
      // at fault), each cluster of that kind is built on its own, so no cluster is blamed for another's file.
      const unique = new Map(missing.map((m) => [m.key, m.model]));
      for (const model of unique.values()) await writeCluster(model);
      const failed = new Set<string>();
      await Promise.all(
        [...unique].map(async ([key, model]) => {
          const r = await fleet.build(model.entry);
          const identityFile = r.error === null ? this.sharedIdentity(model, r, files) : undefined;
          if (identityFile !== undefined) this.cache.set(key, { folder: r, identityFile, dir: model.windowsDir });
          else failed.add(key);
        }),
      );
      const alone = missing.filter((m) => failed.has(m.key));
      for (const m of alone) await writeCluster(m.model);
      await Promise.all(
        alone.map(async (m) => {
          const r = await fleet.build(m.model.entry);
          this.single.set(m.model.entry.name, {
            folder: { ...r, error: r.error === null ? null : inRepository(r.error, dir) },
            identityFile: null,
            dir: m.model.windowsDir,
          });
        }),
      );
    } finally {
      await fleet.close();
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/** kustomize's message with the scratch directory's paths (absolute, or relative to the build) said as repository paths: the same message at every read. */
function inRepository(message: string, dir: string): string {
  return message
    .split(`${dir}/`)
    .join("")
    .replace(new RegExp(`(?:\\.\\./)*${basename(dir).replace(/[^A-Za-z0-9]/g, "\\$&")}/`, "g"), "");
}

/** Puts into a cluster's model the fleet windows of its render that its identity selects (as the cluster's controller picks them: policy/fleet.ts). */
function apply(
  model: ClusterModel,
  entries: FleetEntries,
  rendered: Rendered,
  identity: ClusterIdentity,
  fleetFiles: FleetFiles,
  selectorOf: (path: string) => string | null,
  now: number,
): void {
  const { folder } = rendered;
  model.fleetError = folder.error === null ? null : `${windowsDir(model.entry)} does not build, so its fleet windows are not known: ${folder.error}`;
  const records = (rendered.records ??= new Map<string, WindowRecord>());
  const day = Math.floor(now / 86_400_000);
  const own = new Set(model.windows.map((w) => w.name));
  for (const o of folder.objects) {
    if (o.ref.kind !== "ReconciliationWindow") continue;
    const fleetWindow = str(field(o.body, "metadata", "labels", FLEET_WINDOW_LABEL)) ?? null;
    if (fleetWindow === null || own.has(o.ref.name) || scopeOf(o.body, identity).kind === "not-selected") continue;
    const baseFile = fleetFiles.get(fleetWindowFile(fleetWindow));
    const patch = entries.patches.find((p) => p.name === o.ref.name);
    const fleet: FleetOrigin = {
      window: fleetWindow,
      base: fleetWindowFile(fleetWindow),
      selector: selectorOf(fleetWindowFile(fleetWindow)),
      patch: patch === undefined ? null : { file: windowsKustomizationFile(model.entry), index: patch.index, patch: patchOf(patch.value) },
    };
    // Clusters rendered alike share a record, but for a window that takes holidays from each cluster's labels.
    const text = textOf(o.body);
    const cluster = { name: model.entry.name, labels: model.entry.labels ?? {} };
    const at = `${o.ref.name}\0${day}${holidayLabelsKey(text, cluster)}`;
    let record = records.get(at);
    if (record === undefined) {
      record = readWindow({ path: fleet.base, text, blob: baseFile?.blob ?? "" }, o.ref.name, now, cluster);
      records.set(at, record);
    }
    model.windows.push({ ...record, fleet });
  }
  model.windows.sort((a, b) => a.name.localeCompare(b.name));
}

/** A rendered object's YAML, written once per object: the clusters that share a render share its objects. */
const texts = new WeakMap<Json, string>();
function textOf(body: Json): string {
  let text = texts.get(body);
  if (text === undefined) texts.set(body, (text = stringify(body)));
  return text;
}

/** The patch of a `patches` entry as it says it: inline text, or the file it names. */
function patchOf(entry: Json): string {
  if (typeof entry.patch === "string") return entry.patch;
  if (typeof entry.path === "string") return `path: ${entry.path}`;
  return "";
}

/** The paths the service reads besides the clusters' directories: the fleet windows' bases, and the fleet folder's list and freezes. */
export const FLEET_PATHS = [FLEET_DIR];

/** `../../../fleet` (any depth) as a line of a kustomization's `resources`: the cluster includes the fleet folder. */
const FOLDER_ENTRY = /^\s*-\s*["']?(?:\.\.\/)+fleet\/?["']?\s*$/m;

function includesFleetFolder(kustomizationText: string): boolean {
  return FOLDER_ENTRY.test(kustomizationText);
}

/** Without kustomize, a cluster that includes fleet windows says that they are not known, and how to fix it. */
export function markUnrendered(fleet: Fleet): void {
  for (const model of fleet.clusters) {
    model.fleetEntries = clusterFleetEntries(model.entry, model.kustomization?.text ?? null);
    if (model.fleetEntries.includes.length === 0) continue;
    model.fleetError = `${windowsDir(model.entry)} includes fleet windows, and the service has no kustomize to render them: put kustomize on PATH (or set FLUXGATE_KUSTOMIZE) and restart it`;
  }
}
