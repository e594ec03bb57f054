// The plan of `fluxgate init`: the window-enabled layout of one cluster, computed from the files as they are (pure).

import { parse, parseAllDocuments } from "yaml";
import { FLEET_FOLDER_FILE, fleetFolderEntries, fleetFolderEntry, fleetFolderText, identityChanges, identityFile } from "./fleet/folder.ts";
import { fleetWindowFile } from "./fleet/layout.ts";
import { clusterLabels } from "./fleet/select.ts";
import { clusterFleetEntries } from "./fleet/windows.ts";
import { fleetScope, selects, type TargetSelector } from "../policy/index.ts";
import { zoneRules } from "../schedule/index.ts";
import { inContext } from "../errors.ts";
import type { FileChange } from "./changes.ts";
import { RepositoryInputError } from "./errors.ts";
import { KUSTOMIZATION_FILES, join2, parseRepositoryFile } from "./files.ts";
import {
  entryDir,
  FLUX_NAMESPACE,
  kustomizationFile,
  kustomizationName,
  REPOSITORY_FILE,
  SOURCE_NAME,
  TYPE_LABEL,
  windowFile,
  windowsKustomizationFile,
  type ClusterEntry,
  type RepositoryFile,
  type TypeEntry,
} from "./layout.ts";
import { field, isJson, str } from "./objects.ts";
import { editList, listItems, setScalar } from "./yaml-edit.ts";
import { DEFAULT_TIME_ZONE } from "../api/window.ts";
import { PUSH_FILE, pushManifestFile, statusUrlProblem } from "./push-manifests.ts";

export interface InitRequest {
  cluster: string;
  /** Bootstrap path; default `clusters/<cluster>` (or the path fluxgate.yaml already has). */
  path?: string | undefined;
  /** `--types`; absent: the types fluxgate.yaml has, or rt (real time) and rw (window). */
  types?: readonly TypeEntry[] | undefined;
  /** `--time-zone`; absent: the cluster's zone in fluxgate.yaml, or UTC. */
  timeZone?: string | undefined;
  /** `--status-url`: the Config Service's address; init then writes the Provider and Alert that push the cluster's status there. */
  statusUrl?: string | undefined;
  /** `--fleet-folder`: start the fleet folder (fleet/kustomization.yaml) when the repository has none, and include it. */
  fleetFolder?: boolean | undefined;
}

/** The default types: one real-time, one window type. */
export const DEFAULT_TYPES: readonly TypeEntry[] = [
  { name: "rt", window: false },
  { name: "rw", window: true },
];

/**
 * Parses `--types rt,rw,nightly:window`: names, each optionally `:window` or `:realtime`. Without
 * a suffix, the first type is real time and the others are window types.
 */
export function parseTypes(text: string): TypeEntry[] {
  const parts = text.split(",").map((p) => p.trim());
  if (parts.some((p) => p === "")) throw new RepositoryInputError(`--types ${text}: give names separated by commas, e.g. rt,rw`);
  const types = parts.map((p, i) => {
    const m = /^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)(?::(window|realtime))?$/.exec(p);
    if (m === null)
      throw new RepositoryInputError(
        `--types ${text}: "${p}" must be a DNS label (lower-case letters, digits, '-'), optionally followed by :window or :realtime`,
      );
    return { name: m[1] as string, window: m[3] === undefined ? i > 0 : m[3] === "window" };
  });
  const twice = types.find((t, i) => types.findIndex((u) => u.name === t.name) !== i);
  if (twice !== undefined) throw new RepositoryInputError(`--types ${text}: "${twice.name}" is given twice`);
  return types;
}

/** The repository file after init, and what init needs to read next. */
export interface RepositoryPlan {
  text: string;
  file: RepositoryFile;
  cluster: ClusterEntry;
  /** The Config Service's address the cluster pushes its status to, when init sets that up. */
  statusUrl?: string | undefined;
  /** Start the fleet folder when the repository has none. */
  fleetFolder?: boolean | undefined;
}

/** Adds the cluster and the types to fluxgate.yaml (or writes it), keeping what it already says. */
export function planRepositoryFile(current: string | null, request: InitRequest): RepositoryPlan {
  if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(request.cluster)) {
    throw new RepositoryInputError(`--cluster ${request.cluster}: must be a DNS label: lower-case letters, digits and '-', at most 63 characters`);
  }
  if (request.timeZone !== undefined) {
    const zone = request.timeZone;
    inContext({ field: `--time-zone ${zone}`, as: RepositoryInputError }, () => zoneRules(zone));
  }
  if (request.statusUrl !== undefined) {
    const problem = statusUrlProblem(request.statusUrl);
    if (problem !== null) throw new RepositoryInputError(`--status-url ${request.statusUrl}: ${problem}`);
  }
  const path = request.path === undefined ? undefined : join2(request.path.replace(/^\.\//, ""));
  if (path === "" || path?.startsWith("..") === true)
    throw new RepositoryInputError(`--path ${request.path ?? ""}: give a directory inside the repository, e.g. clusters/${request.cluster}`);

  if (current === null) {
    const cluster: ClusterEntry = { name: request.cluster, path: path ?? `clusters/${request.cluster}`, timeZone: request.timeZone ?? DEFAULT_TIME_ZONE };
    const types = request.types ?? DEFAULT_TYPES;
    const text = [
      "# fluxgate's repository file: the clusters and the types of this repository (docs/gitops.md).",
      "apiVersion: fluxgate.io/v1alpha1",
      "kind: Repository",
      "types:",
      ...types.flatMap((t) => [`  - name: ${t.name}`, `    window: ${String(t.window)}`]),
      "clusters:",
      `  - name: ${cluster.name}`,
      `    path: ${cluster.path}`,
      `    timeZone: ${cluster.timeZone}`,
      "",
    ].join("\n");
    return { text, file: parseRepositoryFile(text), cluster, statusUrl: request.statusUrl, fleetFolder: request.fleetFolder };
  }

  const file = parseRepositoryFile(current);
  let text = current;
  const newTypes: TypeEntry[] = [];
  for (const t of request.types ?? []) {
    const known = file.types.find((k) => k.name === t.name);
    if (known === undefined) newTypes.push(t);
    else if (known.window !== t.window) {
      throw new RepositoryInputError(
        `--types: ${REPOSITORY_FILE} has type ${t.name} as ${known.window ? "a window type" : "real time"}; change it there if you mean to`,
      );
    }
  }
  if (newTypes.length > 0)
    text = editList(
      text,
      "types",
      REPOSITORY_FILE,
      () => "keep",
      newTypes.map((t) => ({ name: t.name, window: t.window })),
    );
  const index = file.clusters.findIndex((c) => c.name === request.cluster);
  let cluster: ClusterEntry;
  if (index === -1) {
    cluster = { name: request.cluster, path: path ?? `clusters/${request.cluster}`, timeZone: request.timeZone ?? DEFAULT_TIME_ZONE };
    const clash = file.clusters.find((c) => join2(c.path) === join2(cluster.path));
    if (clash !== undefined) throw new RepositoryInputError(`--cluster ${request.cluster}: cluster ${clash.name} already has the path ${cluster.path}`);
    text = editList(text, "clusters", REPOSITORY_FILE, () => "keep", [{ ...cluster }]);
  } else {
    const known = file.clusters[index] as ClusterEntry;
    if (path !== undefined && join2(known.path) !== path) {
      throw new RepositoryInputError(`--path ${path}: ${REPOSITORY_FILE} has cluster ${known.name} at ${known.path}; change it there if you mean to move it`);
    }
    cluster = { ...known, timeZone: request.timeZone ?? known.timeZone };
    if (cluster.timeZone !== known.timeZone) text = setScalar(text, ["clusters", index, "timeZone"], cluster.timeZone, REPOSITORY_FILE);
  }
  return { text, file: parseRepositoryFile(text), cluster, statusUrl: request.statusUrl, fleetFolder: request.fleetFolder };
}

/** Every path whose current content `planInit` reads. */
export function initPaths(plan: RepositoryPlan): string[] {
  const { cluster, file } = plan;
  const paths = [REPOSITORY_FILE, windowsKustomizationFile(cluster)];
  for (const name of KUSTOMIZATION_FILES) paths.push(join2(cluster.path, name));
  for (const t of file.types) {
    paths.push(kustomizationFile(cluster, t.name));
    for (const name of KUSTOMIZATION_FILES) paths.push(join2(entryDir(cluster, t.name), name));
    if (t.window) paths.push(windowFile(cluster, kustomizationName(t.name)));
  }
  if (plan.statusUrl !== undefined) paths.push(join2(cluster.path, PUSH_FILE));
  paths.push(identityFile(cluster), FLEET_FOLDER_FILE);
  return paths;
}

/**
 * The fleet window files `planInit` reads once it has read initPaths: those the cluster's
 * windows/kustomization.yaml includes one by one, and those fleet/kustomization.yaml lists.
 */
export function fleetWindowPaths(plan: RepositoryPlan, read: (path: string) => string | null): string[] {
  return [...new Set([...includedFleetWindows(plan.cluster, read), ...folderWindows(read)])].map(fleetWindowFile);
}

/** The fleet windows a cluster's windows/kustomization.yaml includes one by one. */
function includedFleetWindows(cluster: ClusterEntry, read: (path: string) => string | null): string[] {
  return clusterFleetEntries(cluster, read(windowsKustomizationFile(cluster))).includes;
}

/** The fleet windows fleet/kustomization.yaml lists (none when there is none, or it does not read: check reports it). */
function folderWindows(read: (path: string) => string | null): string[] {
  const folder = read(FLEET_FOLDER_FILE);
  try {
    return folder === null ? [] : fleetFolderEntries(folder).windows;
  } catch {
    return [];
  }
}

/**
 * The Kustomizations of the cluster's window types that a fleet window of the cluster already
 * governs: one that the cluster includes (one by one, or through the fleet folder) and that is the
 * cluster's own or whose clusterSelector matches its labels in fluxgate.yaml, with a target that
 * selects the Kustomization (by name, or by its labels). Init writes no placeholder window for them:
 * the cluster would have two windows for one Kustomization, and the placeholder's schedule would
 * open it when the fleet window does not.
 */
export function fleetGoverned(plan: RepositoryPlan, read: (path: string) => string | null): Set<string> {
  const { cluster, file } = plan;
  const folder = read(FLEET_FOLDER_FILE) !== null || plan.fleetFolder === true;
  const paths = [...includedFleetWindows(cluster, read), ...(folder ? folderWindows(read) : [])].map(fleetWindowFile);
  const identity = { confirmed: true as const, cluster: cluster.name, labels: clusterLabels(cluster) };
  const governed = new Set<string>();
  for (const path of new Set(paths)) {
    for (const window of windowsIn(read(path))) {
      const selector = field(window, "spec", "clusterSelector");
      const scope = fleetScope(isJson(selector) ? selector : undefined, identity);
      if (scope.kind !== "own" && scope.kind !== "selected") continue;
      const targets = field(window, "spec", "targets");
      if (!Array.isArray(targets)) continue;
      const namespace = str(field(window, "metadata", "namespace")) ?? FLUX_NAMESPACE;
      for (const t of file.types.filter((t) => t.window)) {
        const name = kustomizationName(t.name);
        const labels = kustomizationLabels(read(kustomizationFile(cluster, t.name)), t);
        const kustomization = { kind: "Kustomization", namespace: FLUX_NAMESPACE, name, labels };
        try {
          if (selects(namespace, targets.filter(isJson) as unknown as TargetSelector[], kustomization)) governed.add(name);
        } catch {
          // a target selector the API server would refuse selects nothing here; check reports the window
        }
      }
    }
  }
  return governed;
}

/** The ReconciliationWindows of a file (none when it is missing or does not parse). */
function windowsIn(text: string | null): unknown[] {
  if (text === null) return [];
  try {
    return parseAllDocuments(text)
      .map((d) => d.toJS() as unknown)
      .filter((d) => isJson(d) && d.kind === "ReconciliationWindow");
  } catch {
    return [];
  }
}

/** The labels of a type's Flux Kustomization: those of its file, or those init writes in it. */
function kustomizationLabels(text: string | null, type: TypeEntry): Record<string, string> {
  if (text !== null) {
    try {
      const labels = field(parse(text) as unknown, "metadata", "labels");
      if (isJson(labels)) return Object.fromEntries(Object.entries(labels).filter((e): e is [string, string] => typeof e[1] === "string"));
    } catch {
      // a file that does not parse: the labels init writes
    }
  }
  return { [TYPE_LABEL]: type.name };
}

/**
 * Plans the layout of one cluster (docs/gitops.md): a Flux Kustomization and an entry directory
 * per type, a window per window type listed in the cluster's windows/kustomization.yaml, and the
 * cluster's own kustomization.yaml (when it has one) listing them; with a status URL, the Provider
 * and Alert that push the cluster's status to the Config Service (fluxgate-status.yaml, no key). Files that exist are kept;
 * only missing list items are added. No placeholder window for a Kustomization that a fleet window of the cluster governs
 * (fleetGoverned; `current` holds the files of fleetWindowPaths too). Running it on its own result plans nothing.
 */
export function planInit(plan: RepositoryPlan, current: ReadonlyMap<string, string | null>, repositoryBefore: string | null): FileChange[] {
  const { cluster, file } = plan;
  const read = (p: string): string | null => current.get(p) ?? null;
  const changes: FileChange[] = [{ path: REPOSITORY_FILE, before: repositoryBefore, after: plan.text }];
  const create = (path: string, text: string): void => {
    if (read(path) === null) changes.push({ path, before: null, after: text });
  };
  const realTime = file.types.filter((t) => !t.window);
  // The fleet folder (when the repository has one, or --fleet-folder starts it) and the cluster's identity, which the controller matches fleet
  // windows and freezes against.
  const folder = read(FLEET_FOLDER_FILE) !== null || plan.fleetFolder === true;
  const governed = fleetGoverned(plan, read);
  const placeholders = file.types.filter((t) => t.window && !governed.has(kustomizationName(t.name)));

  for (const t of file.types) {
    create(kustomizationFile(cluster, t.name), fluxKustomization(cluster, t, realTime));
    const entry = entryDir(cluster, t.name);
    if (!KUSTOMIZATION_FILES.some((n) => read(join2(entry, n)) !== null)) create(join2(entry, "kustomization.yaml"), entryKustomization(cluster, t));
  }
  for (const t of placeholders) create(windowFile(cluster, kustomizationName(t.name)), windowManifest(cluster, t));

  if (plan.statusUrl !== undefined) create(join2(cluster.path, PUSH_FILE), pushManifestFile(cluster.name, plan.statusUrl, FLUX_NAMESPACE));

  const windowsFile = windowsKustomizationFile(cluster);
  if (folder) create(FLEET_FOLDER_FILE, fleetFolderText([]));
  const windowEntries = [...(folder ? [fleetFolderEntry(cluster)] : []), ...placeholders.map((t) => `${kustomizationName(t.name)}.yaml`)];
  const windowsText = read(windowsFile);
  const windowsAfter = windowsText === null ? windowsKustomization(cluster, windowEntries) : addMissing(windowsText, windowsFile, windowEntries);
  const identity = identityChanges(cluster, read, windowsAfter);
  changes.push({ path: windowsFile, before: windowsText, after: identity.kustomization }, ...identity.changes);

  const rootFile = KUSTOMIZATION_FILES.map((n) => join2(cluster.path, n)).find((p) => read(p) !== null);
  if (rootFile !== undefined) {
    const text = read(rootFile) as string;
    const wanted = [...file.types.map((t) => `${kustomizationName(t.name)}.yaml`), "windows", ...(plan.statusUrl === undefined ? [] : [PUSH_FILE])];
    changes.push({ path: rootFile, before: text, after: addMissing(text, rootFile, wanted) });
  }
  return changes;
}

/** Appends to `resources` the entries it does not list yet (`./x` and `x` are the same entry). */
function addMissing(text: string, file: string, wanted: readonly string[]): string {
  const parsed: unknown = parse(text);
  if (parsed !== null && !isJson(parsed)) throw new RepositoryInputError(`${file}: expected a kustomization`);
  const have = new Set(listItems(text, "resources", file).map((i) => (typeof i.value === "string" ? join2(i.value.replace(/^\.\//, "")) : "")));
  const missing = wanted.filter((w) => !have.has(join2(w)));
  return missing.length === 0 ? text : editList(text, "resources", file, () => "keep", missing);
}

function fluxKustomization(cluster: ClusterEntry, type: TypeEntry, realTime: readonly TypeEntry[]): string {
  const name = kustomizationName(type.name);
  const depends = type.window ? realTime.map((t) => kustomizationName(t.name)) : [];
  return [
    `# Flux Kustomization of type ${type.name} on ${cluster.name}: applies ${entryDir(cluster, type.name)}.`,
    type.window
      ? `# The window ${name} (windows/${name}.yaml) decides when it takes new changes: never set spec.suspend here.`
      : "# Real time: it applies every commit. Never set spec.suspend here.",
    "apiVersion: kustomize.toolkit.fluxcd.io/v1",
    "kind: Kustomization",
    "metadata:",
    `  name: ${name}`,
    `  namespace: ${FLUX_NAMESPACE}`,
    "  labels:",
    `    ${TYPE_LABEL}: ${type.name}`,
    "spec:",
    "  interval: 10m",
    "  retryInterval: 2m",
    "  timeout: 5m",
    `  path: ./${entryDir(cluster, type.name)}`,
    "  prune: true",
    "  wait: true",
    "  sourceRef:",
    "    kind: GitRepository",
    `    name: ${SOURCE_NAME}`,
    ...(depends.length > 0 ? ["  dependsOn:", ...depends.map((d) => `    - name: ${d}`)] : []),
    "",
  ].join("\n");
}

function entryKustomization(cluster: ClusterEntry, type: TypeEntry): string {
  return [
    `# What ${cluster.name} runs of type ${type.name}: application variants (../../../apps/<app>-${type.name})`,
    "# and this cluster's patches to them.",
    "apiVersion: kustomize.config.k8s.io/v1beta1",
    "kind: Kustomization",
    "resources: []",
    "",
  ].join("\n");
}

function windowManifest(cluster: ClusterEntry, type: TypeEntry): string {
  const name = kustomizationName(type.name);
  return [
    `# When Kustomization ${name} on ${cluster.name} may take new changes from Git.`,
    "# The schedule is a placeholder, Monday to Thursday 08:00-17:00: edit it (docs/schedules.md).",
    "apiVersion: fluxgate.io/v1alpha1",
    "kind: ReconciliationWindow",
    "metadata:",
    `  name: ${name}`,
    `  namespace: ${FLUX_NAMESPACE}`,
    "spec:",
    `  timeZone: ${cluster.timeZone}`,
    "  schedules:",
    '    - start: "0 8 * * MON-THU"',
    '      end: "0 17 * * MON-THU"',
    "  targets:",
    "    - kind: Kustomization",
    `      name: ${name}`,
    "",
  ].join("\n");
}

function windowsKustomization(cluster: ClusterEntry, entries: readonly string[]): string {
  return [
    `# The windows and overrides of ${cluster.name}, applied in real time by the cluster's root Kustomization.`,
    `# One ReconciliationWindow per <window>.yaml, one WindowOverride per overrides/<override>.yaml, the cluster's identity (docs/gitops.md).`,
    "apiVersion: kustomize.config.k8s.io/v1beta1",
    "kind: Kustomization",
    ...(entries.length === 0 ? ["resources: []"] : ["resources:", ...entries.map((e) => `  - ${e}`)]),
    "",
  ].join("\n");
}
