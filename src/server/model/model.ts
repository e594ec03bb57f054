// The fleet as one commit of the repository holds it: clusters, their windows and overrides, each parsed and validated.

import { InputError, inContext } from "../../errors.ts";
import {
  OVERRIDE_REQUESTED_BY,
  parseWith,
  validateWindow,
  WindowOverrideSchema,
  type FieldProblem,
  type ReconciliationWindow,
  type WindowOverride,
} from "../../api/index.ts";
import { fluxKindOf } from "../../api/kinds.ts";
import { parseRepositoryFile as parseRepository } from "../../gitops/files.ts";
import { identityFile } from "../../gitops/fleet/folder.ts";
import { FLUX_NAMESPACE, windowsDir, type ClusterEntry, type RepositoryFile } from "../../gitops/layout.ts";
import { overrideTiming } from "../../policy/index.ts";
import type { ClusterContext, CompiledWindow, OverrideInput } from "../../schedule/index.ts";
import { ConfigError } from "./errors.ts";
import { isObjectName } from "./names.ts";
import { readYaml } from "../../gitops/yaml-read.ts";
import { isJson } from "../../gitops/objects.ts";
import { inputPaths } from "./kustomization-inputs.ts";
import type { clusterFleetEntries } from "../../gitops/fleet/windows.ts";

/** What a cluster's windows/kustomization.yaml says of fleet windows. */
export type FleetEntries = ReturnType<typeof clusterFleetEntries>;

/** A file at a commit: its text and its blob id (the ETag of the object it holds). */
export interface FileAt {
  path: string;
  text: string;
  blob: string;
  /** Size of the blob in bytes; a blob too large to be a manifest is listed with this and an empty text. */
  size?: number;
}

/** Where a fleet window of a cluster comes from: the fleet window's base, and the cluster's patch of it. */
export interface FleetOrigin {
  /** The fleet window (its fluxgate.io/fleet-window label). */
  window: string;
  /** The base's window file: PUT /fleet/windows/{name} changes it, for every cluster that includes it. */
  base: string;
  /** The selector the base records (fluxgate.io/fleet-selector), or null. */
  selector: string | null;
  /** The cluster's patch of it (an entry of `patches` in its windows/kustomization.yaml), or null when it takes the base as it is. */
  patch: { file: string; index: number; patch: string } | null;
}

/** One window file. `window` and `compiled` are null when the file is not a valid window. */
export interface WindowRecord {
  name: string;
  path: string;
  /** The file as committed. */
  text: string;
  etag: string;
  manifest: unknown;
  window: ReconciliationWindow | null;
  compiled: CompiledWindow | null;
  problems: FieldProblem[];
  /**
   * Null for a window of the cluster's own (its file in windows/); for a fleet window, where it
   * comes from: then `path` and `etag` are its base's, and `manifest` is what kustomize renders
   * for the cluster (its patch applied).
   */
  fleet: FleetOrigin | null;
}

/** One override file. `override` and `input` are null when it is not a valid override. */
export interface OverrideRecord {
  name: string;
  path: string;
  /** The file as committed. */
  text: string;
  etag: string;
  manifest: unknown;
  override: WindowOverride | null;
  /** The override as the time engine sees it, its interval as the controller has it (policy/override.ts). */
  input: OverrideInput | null;
  /** Who asked for it (the requested-by annotation), when known. */
  requestedBy: string | null;
  problems: FieldProblem[];
  /**
   * A fleet freeze of the fleet folder (fleet/freezes/<name>.yaml, `path`) whose clusterSelector
   * matches the cluster: the freeze's name, and the cluster's windows its windowSelector picks (null
   * when it names one window, `input.window`). Absent for an override file of the cluster's own.
   */
  folderFreeze?: { name: string; windows: readonly string[] | null };
}

/** A Flux object a window may govern, declared in a file of the cluster's directory (outside windows/), e.g. the Kustomization `apps-rw` that init writes. */
export interface TargetRecord {
  kind: string;
  namespace: string;
  name: string;
  labels: Record<string, string>;
  path: string;
}

export interface ClusterModel {
  entry: ClusterEntry;
  windowsDir: string;
  /** `windows/kustomization.yaml`, null when missing. */
  kustomization: FileAt | null;
  windows: WindowRecord[];
  overrides: OverrideRecord[];
  /** Flux objects declared directly in the cluster's directory, sorted by kind, namespace and name. */
  targets: TargetRecord[];
  /** Why the cluster's fleet windows are not known (its windows folder does not build), or null. */
  fleetError: string | null;
  /**
   * What its windows/kustomization.yaml says of fleet windows (those it includes and patches), as
   * read when its fleet windows were rendered: the listings of fleet windows reuse it.
   */
  fleetEntries?: FleetEntries;
  /**
   * Files of its windows folder that windows/kustomization.yaml names other than as resources
   * (a patch file, `patches: - path: zone-patch.yaml`): not windows, whatever their names, and
   * never written or deleted as one.
   */
  kustomizeInputs?: ReadonlySet<string>;
}

export interface Fleet {
  commit: string;
  repository: RepositoryFile;
  clusters: ClusterModel[];
  /** The files of fleet/windows/ (the fleet windows' bases), by path. */
  fleetFiles: Map<string, FileAt>;
  /** The YAML files of each cluster's directory, by cluster name. */
  files: Map<string, FileAt[]>;
  /** The blob of fluxgate.yaml `repository` was read from, when known. */
  repositoryBlob?: string;
}

/** Reads the repository file `fluxgate.yaml` with the rules every command applies (gitops/files.ts); throws ConfigError naming what is wrong. */
export function parseRepositoryFile(text: string): RepositoryFile {
  return inContext({ oneLine: true, as: ConfigError }, () => parseRepository(text));
}

/** The window or override name a file of a cluster's windows directory holds, or null for other files. */
export function classify(cluster: ClusterEntry, path: string): { kind: "window" | "override" | "kustomization"; name: string } | null {
  const dir = `${windowsDir(cluster)}/`;
  if (!path.startsWith(dir)) return null;
  const rest = path.slice(dir.length);
  if (rest === "kustomization.yaml") return { kind: "kustomization", name: "" };
  // The cluster's identity (a ConfigMap that init writes beside the windows) is no window.
  if (path === identityFile(cluster)) return null;
  const override = /^overrides\/([^/]+)\.yaml$/.exec(rest);
  if (override !== null && isObjectName(override[1] as string)) return { kind: "override", name: override[1] as string };
  const window = /^([^/]+)\.yaml$/.exec(rest);
  if (window !== null && isObjectName(window[1] as string)) return { kind: "window", name: window[1] as string };
  return null;
}

/**
 * Reads a manifest file's YAML onto its record; false, with the problem recorded, when it is not
 * YAML that can be read (then there is nothing to validate).
 */
function readManifest(file: FileAt, record: { manifest: unknown; problems: FieldProblem[] }): boolean {
  const read = readYaml(file.text, file.size);
  record.manifest = read.value;
  if (read.problem === null) return true;
  record.problems = [{ path: "", message: read.problem }];
  return false;
}

function metadataProblems(manifest: unknown, name: string): FieldProblem[] {
  const metadata = (manifest as { metadata?: { name?: unknown; namespace?: unknown } } | null)?.metadata;
  const problems: FieldProblem[] = [];
  if (metadata?.name !== name) problems.push({ path: "metadata.name", message: `must be "${name}", the name of its file` });
  if (metadata?.namespace !== undefined && metadata.namespace !== FLUX_NAMESPACE) {
    problems.push({ path: "metadata.namespace", message: `must be "${FLUX_NAMESPACE}"` });
  }
  return problems;
}

/**
 * A window file, validated as the controller would (`now` decides "opens within 366 days"), for
 * `cluster`: a holiday freeze may take its country from the cluster's labels.
 */
export function readWindow(file: FileAt, name: string, now: number, cluster?: ClusterContext): WindowRecord {
  const record: WindowRecord = {
    name,
    path: file.path,
    text: file.text,
    etag: file.blob,
    manifest: null,
    window: null,
    compiled: null,
    problems: [],
    fleet: null,
  };
  if (!readManifest(file, record)) return record;
  const value = record.manifest;
  try {
    const { window, compiled } = validateWindow(value, now, { cluster });
    record.problems = metadataProblems(value, name);
    if (record.problems.length === 0) {
      record.window = window;
      record.compiled = compiled;
    }
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    record.problems = [...e.problems, ...metadataProblems(value, name)];
  }
  return record;
}

/** An override file, validated as the controller would (`now` is its start when it says neither when it was created nor when it was asked for). */
export function readOverride(file: FileAt, name: string, now: number): OverrideRecord {
  const record: OverrideRecord = {
    name,
    path: file.path,
    text: file.text,
    etag: file.blob,
    manifest: null,
    override: null,
    input: null,
    requestedBy: null,
    problems: [],
  };
  if (!readManifest(file, record)) return record;
  const value = record.manifest;
  try {
    const override = parseWith(WindowOverrideSchema, value);
    record.problems = metadataProblems(value, name);
    if (record.problems.length > 0) return record;
    const metadata = override.metadata as { annotations?: Record<string, unknown>; creationTimestamp?: string };
    const by = metadata.annotations?.[OVERRIDE_REQUESTED_BY];
    record.requestedBy = typeof by === "string" ? by : null;
    // The interval the controller gives it: from when it was asked for until `until`, or its cancellation (fluxgate overrides cancel, then committed).
    const timing = overrideTiming({ creationTimestamp: metadata.creationTimestamp, annotations: metadata.annotations, until: override.spec.until }, now);
    record.input = {
      name,
      window: override.spec.windowRef?.name ?? "",
      action: override.spec.action,
      start: timing.start,
      end: timing.end,
      reason: override.spec.reason,
    };
    record.override = override;
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    record.problems = e.problems.slice();
  }
  return record;
}

/**
 * The Flux object a file of the cluster's directory declares, when it declares one a window may
 * target (one document, a kind of the Flux kinds table in its group); null otherwise.
 */
export function readTarget(file: FileAt): TargetRecord | null {
  const read = readYaml(file.text, file.size);
  if (read.problem !== null || typeof read.value !== "object" || read.value === null) return null;
  const body = read.value as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown; namespace?: unknown; labels?: unknown } };
  const kind = typeof body.kind === "string" ? fluxKindOf(body.kind) : undefined;
  if (kind === undefined || typeof body.apiVersion !== "string" || body.apiVersion.split("/")[0] !== kind.group) return null;
  const name = body.metadata?.name;
  if (typeof name !== "string") return null;
  const labels: Record<string, string> = {};
  const raw = body.metadata?.labels;
  if (typeof raw === "object" && raw !== null) for (const [k, v] of Object.entries(raw)) if (typeof v === "string") labels[k] = v;
  const namespace = typeof body.metadata?.namespace === "string" ? body.metadata.namespace : FLUX_NAMESPACE;
  return { kind: body.kind as string, namespace, name, labels, path: file.path };
}

/** Adds targets to a cluster's, each object once (the first place that declares it), in the order of kind, namespace and name. */
export function addTargets(cluster: Pick<ClusterModel, "targets">, targets: readonly TargetRecord[]): void {
  const key = (t: TargetRecord): string => `${t.kind}/${t.namespace}/${t.name}`;
  const known = new Set(cluster.targets.map(key));
  for (const t of targets) {
    if (known.has(key(t))) continue;
    known.add(key(t));
    cluster.targets.push(t);
  }
  cluster.targets.sort((a, b) => key(a).localeCompare(key(b)));
}

/**
 * What parsing a commit's files gave, kept by blob id and path, so that the next commit parses only
 * the files that changed. Windows and overrides are validated against a day (a window "opens within
 * 366 days"; an override that says neither when it was created nor asked for starts when read): the
 * cache starts again each day.
 */
const NO_INPUTS: ReadonlySet<string> = new Set();

export class ParseCache {
  private day = -1;
  private windows = new Map<string, WindowRecord>();
  private overrides = new Map<string, OverrideRecord>();
  private targets = new Map<string, TargetRecord | null>();
  private inputs = new Map<string, ReadonlySet<string>>();

  /** Starts again when `now` is on another day than the records kept. */
  private onDay(now: number): void {
    const day = Math.floor(now / 86_400_000);
    if (day === this.day) return;
    this.day = day;
    this.windows = new Map();
    this.overrides = new Map();
  }

  window(file: FileAt, name: string, now: number, cluster?: ClusterContext): WindowRecord {
    this.onDay(now);
    return remember(this.windows, file, () => readWindow(file, name, now, cluster), holidayLabelsKey(file.text, cluster));
  }

  override(file: FileAt, name: string, now: number): OverrideRecord {
    this.onDay(now);
    return remember(this.overrides, file, () => readOverride(file, name, now));
  }

  target(file: FileAt): TargetRecord | null {
    return remember(this.targets, file, () => readTarget(file));
  }

  /** The paths a windows/kustomization.yaml names other than as resources (none when it cannot be read: it does not build either). */
  kustomizeInputs(file: FileAt, dir: string): ReadonlySet<string> {
    return remember(this.inputs, file, () => {
      // Most kustomizations name no patch file: the text says so without parsing it.
      if (!/\b(path|bases|components|crds|configurations|generators|transformers|validators|patchesStrategicMerge|files|envs?)\s*:/.test(file.text))
        return NO_INPUTS;
      const read = readYaml(file.text, file.size);
      return read.problem === null && isJson(read.value) ? inputPaths(read.value, dir) : NO_INPUTS;
    });
  }

  /** Keeps only what `files` still hold, so the cache never outgrows one commit and the next. */
  keep(files: Iterable<FileAt>): void {
    const live = new Set<string>();
    for (const f of files) live.add(`${f.blob}\0${f.path}`);
    for (const map of this.maps()) for (const k of map.keys()) if (!live.has(k)) map.delete(k);
  }

  /** Forgets what `files` gave: files a commit changed or deleted (their paths hold other blobs now, or nothing). */
  drop(files: Iterable<FileAt>): void {
    for (const f of files) for (const map of this.maps()) map.delete(`${f.blob}\0${f.path}`);
  }

  private maps(): Array<Map<string, unknown>> {
    return [this.windows, this.overrides, this.targets, this.inputs] as Array<Map<string, unknown>>;
  }
}

/** What `map` keeps for `file` (by blob and path), made by `make` the first time. */
function remember<T>(map: Map<string, T>, file: FileAt, make: () => T, extra = ""): T {
  const key = `${file.blob}\0${file.path}${extra}`;
  if (map.has(key)) return map.get(key) as T;
  const made = make();
  map.set(key, made);
  return made;
}

/**
 * What a window's record depends on besides its text: the cluster's labels, when the window takes
 * holidays from them (the text says `fromClusterLabels`); else nothing, and clusters share the record.
 */
export function holidayLabelsKey(text: string, cluster: ClusterContext | undefined): string {
  if (cluster === undefined || !text.includes("fromClusterLabels")) return "";
  return `\0${cluster.name}\0${JSON.stringify(cluster.labels)}`;
}

/** The files of each cluster's directory, grouped once: each file goes to the clusters whose path is one of its directories. */
export function filesByCluster(clusters: readonly ClusterEntry[], files: readonly FileAt[]): Map<string, FileAt[]> {
  const byPath = new Map<string, ClusterEntry[]>();
  for (const c of clusters) byPath.set(c.path, [...(byPath.get(c.path) ?? []), c]);
  const out = new Map<string, FileAt[]>(clusters.map((c) => [c.name, []]));
  for (const file of files) {
    for (let at = file.path.lastIndexOf("/"); at > 0; at = file.path.lastIndexOf("/", at - 1)) {
      for (const c of byPath.get(file.path.slice(0, at)) ?? []) out.get(c.name)?.push(file);
    }
  }
  return out;
}

/** One cluster of a commit from the files below its directory (`files`, as filesByCluster groups them). */
export function buildCluster(entry: ClusterEntry, files: readonly FileAt[], now: number, cache: ParseCache = new ParseCache()): ClusterModel {
  const model: ClusterModel = { entry, windowsDir: windowsDir(entry), kustomization: null, windows: [], overrides: [], targets: [], fleetError: null };
  const targets: TargetRecord[] = [];
  for (const file of files) {
    const kind = classify(entry, file.path);
    if (kind === null) {
      const target = !file.path.startsWith(`${model.windowsDir}/`) ? cache.target(file) : null;
      if (target !== null) targets.push(target);
      continue;
    }
    if (kind.kind === "kustomization") model.kustomization = file;
    else if (kind.kind === "window") model.windows.push(cache.window(file, kind.name, now, { name: entry.name, labels: entry.labels ?? {} }));
    else model.overrides.push(cache.override(file, kind.name, now));
  }
  addTargets(model, targets);
  if (model.kustomization !== null) {
    const inputs = cache.kustomizeInputs(model.kustomization, model.windowsDir);
    if (inputs.size > 0) {
      model.kustomizeInputs = inputs;
      model.windows = model.windows.filter((w) => !inputs.has(w.path));
    }
  }
  model.windows.sort((a, b) => a.name.localeCompare(b.name));
  model.overrides.sort((a, b) => a.name.localeCompare(b.name));
  return model;
}

/** The files of fleet/ among a commit's files (the fleet windows' bases, and the fleet folder's list and freezes), by path. */
export function fleetFilesOf(files: readonly FileAt[]): Map<string, FileAt> {
  return new Map(files.filter((f) => f.path.startsWith("fleet/")).map((f) => [f.path, f]));
}

/** Builds the fleet of one commit from the repository file, the files below the clusters' directories and those of fleet/windows/. */
export function buildFleet(commit: string, repository: RepositoryFile, files: readonly FileAt[], now: number, cache: ParseCache = new ParseCache()): Fleet {
  const grouped = filesByCluster(repository.clusters, files);
  const clusters = repository.clusters.map((entry) => buildCluster(entry, grouped.get(entry.name) ?? [], now, cache));
  return { commit, repository, clusters, fleetFiles: fleetFilesOf(files), files: grouped };
}

/** A cluster by name, or null. */
export function clusterOf(fleet: Fleet, name: string): ClusterModel | null {
  return fleet.clusters.find((c) => c.entry.name === name) ?? null;
}

/** A page of the clusters a request asked for. */
export interface ClusterPage {
  clusters: ClusterModel[];
  /** How many clusters match the selector (all pages). */
  total: number;
  /** Send it back as `?continue=` for the next page; null on the last page. */
  continue: string | null;
  /** The selector as sent, when one was. */
  selector: string | null;
}
