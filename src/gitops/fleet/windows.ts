// The plans of `fluxgate fleet window add|patch` (pure: file texts in, file changes out) and the listing of fleet windows.

import { parse } from "yaml";
import { yamlText } from "./text.ts";
import { inContext } from "../../errors.ts";
import { API_VERSION, validateWindow } from "../../api/index.ts";
import { ObjectNameSchema } from "../../api/kube-names.ts";
import type { FileChange } from "../changes.ts";
import { RepositoryInputError } from "../errors.ts";
import { FLUX_NAMESPACE, REPOSITORY_FILE, windowFile, windowsKustomizationFile, type ClusterEntry, type RepositoryFile } from "../layout.ts";
import { isJson, type Json } from "../objects.ts";
import { editList, listItems, listsItems } from "../yaml-edit.ts";
import { formatSelector, parseSelector } from "../../policy/index.ts";
import { clusterContext, clusterMatches, selectClusters } from "./select.ts";
import {
  FLEET_SELECTOR_ANNOTATION,
  FLEET_WINDOW_LABEL,
  fleetKustomizationFile,
  fleetResourceEntry,
  fleetWindowDir,
  fleetWindowFile,
  fleetWindowOfEntry,
  clusterSelectorOfWindow,
  isFleetFolderEntry,
} from "./layout.ts";

/** Reads a file's current text (null when missing). */
export type ReadText = (path: string) => string | null;

/** Checks a fleet window's name: a Kubernetes object name that is also one directory name. */
export function checkFleetWindowName(name: string): void {
  if (!ObjectNameSchema.safeParse(name).success || name.includes("/")) {
    throw new RepositoryInputError(
      `fleet window "${name.slice(0, 80)}": the name must be a Kubernetes object name: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit`,
    );
  }
}

/**
 * Validates a window manifest for the clusters that take it, naming the fleet window in each
 * problem; throws a RepositoryInputError. A window that takes holidays from the clusters' labels
 * is checked for each cluster (one without the label is refused by name); any other, once.
 */
function validated(name: string, manifest: Json, now: number, clusters: readonly ClusterEntry[]): void {
  const perCluster = JSON.stringify(manifest).includes('"fromClusterLabels"') && clusters.length > 0;
  for (const c of perCluster ? clusters : [undefined]) {
    inContext({ field: `fleet window ${name}`, as: RepositoryInputError }, () =>
      validateWindow(manifest, now, { cluster: c === undefined ? undefined : clusterContext(c) }),
    );
  }
}

/** The fleet window's ReconciliationWindow as add writes it: the spec, the fleet label and the selector annotation. */
export function fleetWindowManifest(name: string, selector: string, spec: unknown): Json {
  return {
    apiVersion: API_VERSION,
    kind: "ReconciliationWindow",
    metadata: { name, namespace: FLUX_NAMESPACE, labels: { [FLEET_WINDOW_LABEL]: name }, annotations: { [FLEET_SELECTOR_ANNOTATION]: selector } },
    spec: spec,
  };
}

/** What add is asked for. `spec` is the window's spec, not yet validated. */
export interface FleetWindowAddRequest {
  name: string;
  selector: string;
  spec: unknown;
}

/** The files that planFleetWindowAdd reads, for a request. */
export function fleetWindowAddPaths(repository: RepositoryFile | null, request: FleetWindowAddRequest): string[] {
  const clusters = repository === null ? [] : repository.clusters;
  return [
    fleetKustomizationFile(request.name),
    fleetWindowFile(request.name),
    ...clusters.flatMap((c) => [windowsKustomizationFile(c), windowFile(c, request.name)]),
  ];
}

/**
 * Plans a fleet window: its base under fleet/windows/<name>/ (the window and a kustomization.yaml),
 * and an entry in `resources` of every selected cluster's windows/kustomization.yaml (comments
 * kept). Refuses, changing nothing, a bad name, selector or spec, a fleet window that exists, a
 * selected cluster without windows/kustomization.yaml, and one that has a window of that name.
 */
export function planFleetWindowAdd(
  repository: RepositoryFile | null,
  read: ReadText,
  request: FleetWindowAddRequest,
  now: number,
): { changes: FileChange[]; clusters: ClusterEntry[] } {
  const base = planFleetWindowBase(repository, read, request, now);
  const included = base.clusters.map((c) => fleetWindowInclusion(c, request.name, read));
  return { changes: [...base.changes, ...included.filter((c) => c !== null)], clusters: base.clusters };
}

/**
 * The first part of planFleetWindowAdd: the name, selector and spec checked, the fleet window's
 * base files, and the clusters it selects. Each cluster is checked and made to include it by
 * fleetWindowInclusion (e.g. a slice at a time), which refuses a cluster without
 * windows/kustomization.yaml or with a window of that name: a caller must run it on every cluster.
 */
export function planFleetWindowBase(
  repository: RepositoryFile | null,
  read: ReadText,
  request: FleetWindowAddRequest,
  now: number,
): { changes: FileChange[]; clusters: ClusterEntry[] } {
  const { name } = request;
  checkFleetWindowName(name);
  const selector = formatSelector(parseSelector(request.selector));
  const clusters = selectClusters(repository, request.selector);
  if (read(fleetKustomizationFile(name)) !== null || read(fleetWindowFile(name)) !== null) {
    throw new RepositoryInputError(
      `fleet window ${name} exists (${fleetWindowDir(name)}/): edit it there, or patch it for one cluster with fluxgate fleet window patch`,
    );
  }
  const manifest = fleetWindowManifest(name, selector, request.spec);
  validated(name, manifest, now, clusters);
  const changes: FileChange[] = [
    {
      path: fleetWindowFile(name),
      before: null,
      after: `# Fleet window ${name}: one window for every cluster whose labels match ${selector} (docs/gitops.md#fleet-windows).\n${yamlText(manifest)}`,
    },
    {
      path: fleetKustomizationFile(name),
      before: null,
      after: [
        `# The base of fleet window ${name}. The clusters that take it list this directory in their`,
        "# windows/kustomization.yaml; one that differs patches the window there (fluxgate fleet window patch).",
        "apiVersion: kustomize.config.k8s.io/v1beta1",
        "kind: Kustomization",
        "resources:",
        `  - ${name}.yaml`,
        "",
      ].join("\n"),
    },
  ];
  return { changes, clusters };
}

/** The edit of cluster `c`'s windows/kustomization.yaml that includes fleet window `name`; null when it already does. */
export function fleetWindowInclusion(c: ClusterEntry, name: string, read: ReadText): FileChange | null {
  const file = windowsKustomizationFile(c);
  const text = read(file);
  if (text === null) throw new RepositoryInputError(`cluster ${c.name} has no ${file}: set it up with fluxgate init . --cluster ${c.name}`);
  if (read(windowFile(c, name)) !== null)
    throw new RepositoryInputError(`cluster ${c.name} has a window of its own named ${name} (${windowFile(c, name)}): give the fleet window another name`);
  const entry = fleetResourceEntry(c, name);
  const has = listItems(text, "resources", file).some((i) => fleetWindowOfEntry(c, i.value) === name);
  return has ? null : { path: file, before: text, after: editList(text, "resources", file, () => "keep", [entry]) };
}

/** What patch changes of a fleet window for one cluster; absent fields keep what the base (or an earlier patch) says. */
export interface FleetWindowPatchRequest {
  name: string;
  cluster: string;
  timeZone?: string | undefined;
  /** Replaces the window's schedules. */
  schedules?: unknown[] | undefined;
}

/** One JSON 6902 operation of a fleet-window patch. */
interface PatchOp {
  op: string;
  path: string;
  value?: unknown;
}

function isPatchOf(item: unknown, name: string): boolean {
  const target = isJson(item) ? item.target : undefined;
  return isJson(target) && target.kind === "ReconciliationWindow" && target.name === name && typeof (item as Json).patch === "string";
}

/** The operations of an inline JSON 6902 patch text; empty when it is not one (a strategic-merge patch is replaced whole). */
function opsOf(text: string): PatchOp[] {
  try {
    const v: unknown = parse(text);
    return Array.isArray(v) ? v.filter((o): o is PatchOp => isJson(o) && typeof o.op === "string" && typeof o.path === "string") : [];
  } catch {
    return [];
  }
}

/** Applies `add`/`replace` operations on /spec/<field> to a manifest (what a fleet patch writes), for validation before writing. */
function applied(manifest: Json, ops: readonly PatchOp[]): Json {
  const out = structuredClone(manifest);
  const spec = isJson(out.spec) ? out.spec : {};
  out.spec = spec;
  for (const o of ops) {
    const m = /^\/spec\/([^/]+)$/.exec(o.path);
    if (m === null) continue;
    if (o.op === "add" || o.op === "replace") spec[m[1] as string] = o.value;
    if (o.op === "remove") delete spec[m[1] as string];
  }
  return out;
}

/** The cluster's entry in fluxgate.yaml, or an error listing the clusters. */
export function clusterNamed(repository: RepositoryFile | null, name: string): ClusterEntry {
  const found = repository?.clusters.find((c) => c.name === name);
  if (found === undefined) {
    throw new RepositoryInputError(
      `--cluster ${name}: not a cluster of ${REPOSITORY_FILE} (clusters: ${repository?.clusters.map((c) => c.name).join(", ") || "none"})`,
    );
  }
  return found;
}

/**
 * Plans a per-cluster patch of a fleet window: an entry of `patches` in the cluster's
 * windows/kustomization.yaml with `target: {kind: ReconciliationWindow, name}` and JSON 6902
 * operations that set the zone and/or the schedules; a patch the cluster already has for the
 * window keeps its other operations. The patched window is validated before anything is written.
 */
export function planFleetWindowPatch(repository: RepositoryFile | null, read: ReadText, request: FleetWindowPatchRequest, now: number): FileChange[] {
  const { name } = request;
  checkFleetWindowName(name);
  const cluster = clusterNamed(repository, request.cluster);
  const base = read(fleetWindowFile(name));
  if (base === null) throw new RepositoryInputError(`fleet window ${name} does not exist (no ${fleetWindowFile(name)}): add it with fluxgate fleet window add`);
  const file = windowsKustomizationFile(cluster);
  const text = read(file);
  if (text === null) throw new RepositoryInputError(`cluster ${cluster.name} has no ${file}: set it up with fluxgate init . --cluster ${cluster.name}`);
  const resources = listItems(text, "resources", file);
  // The fleet folder: the cluster runs every fleet window whose clusterSelector its labels match.
  if (resources.some((i) => isFleetFolderEntry(cluster, i.value))) {
    const selector = clusterSelectorOfWindow(base);
    if (selector !== null && !clusterMatches(cluster, parseSelector(selector, "spec.clusterSelector")))
      throw new RepositoryInputError(
        `fleet window ${name} is not for cluster ${cluster.name}: its clusterSelector ${selector || "(empty)"} does not match the cluster's labels in ${REPOSITORY_FILE}; only a cluster that runs it can patch it`,
      );
  } else if (!resources.some((i) => fleetWindowOfEntry(cluster, i.value) === name))
    throw new RepositoryInputError(
      `cluster ${cluster.name} does not include fleet window ${name} (${file} does not list ${fleetResourceEntry(cluster, name)}): only a cluster that takes it can patch it`,
    );
  const ops: PatchOp[] = [];
  if (request.timeZone !== undefined) ops.push({ op: "add", path: "/spec/timeZone", value: request.timeZone });
  if (request.schedules !== undefined) ops.push({ op: "add", path: "/spec/schedules", value: request.schedules });
  if (ops.length === 0) throw new RepositoryInputError("say what the cluster changes: --time-zone ZONE, and/or --start CRON with --end CRON or --duration D");
  const items = listItems(text, "patches", file);
  const existing = items.find((i) => isPatchOf(i.value, name));
  const kept = existing === undefined ? [] : opsOf((existing.value as Json).patch as string).filter((o) => !ops.some((n) => n.path === o.path));
  const all = [...kept, ...ops];
  let manifest: unknown;
  try {
    manifest = parse(base);
  } catch (e) {
    throw new RepositoryInputError(`${fleetWindowFile(name)}: not valid YAML: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  if (!isJson(manifest)) throw new RepositoryInputError(`${fleetWindowFile(name)}: not a ReconciliationWindow`);
  validated(name, applied(manifest, all), now, [cluster]);
  const entry = { target: { kind: "ReconciliationWindow", name }, patch: yamlText(all) };
  const after =
    existing === undefined
      ? editList(text, "patches", file, () => "keep", [entry])
      : editList(text, "patches", file, (v) => (isPatchOf(v, name) ? [entry] : "keep"));
  return [{ path: file, before: text, after }];
}

/** A cluster has no patch of the fleet window a removal names; nothing was changed. */
export class NoFleetPatchError extends RepositoryInputError {}

/**
 * Plans the removal of a cluster's patch of a fleet window: every entry of `patches` in its
 * windows/kustomization.yaml whose target is the ReconciliationWindow `name` goes (with its
 * comment lines), and `patches:` with it when nothing is left, so the cluster takes the base as it
 * is. The rest of the file stays byte for byte. Refuses (NoFleetPatchError) a cluster without such
 * a patch. The fleet window need not exist any more: a patch left behind by a removed base is
 * removed the same way.
 */
export function planFleetWindowUnpatch(repository: RepositoryFile | null, read: ReadText, request: { name: string; cluster: string }): FileChange[] {
  const { name } = request;
  checkFleetWindowName(name);
  const cluster = clusterNamed(repository, request.cluster);
  const file = windowsKustomizationFile(cluster);
  const text = read(file);
  const patched = clusterFleetEntries(cluster, text).patches.map((p) => p.name);
  if (text === null || !patched.includes(name)) {
    const has = patched.length === 0 ? "it patches no window" : `it patches ${[...new Set(patched)].join(", ")}`;
    throw new NoFleetPatchError(
      `cluster ${cluster.name} has no patch of fleet window ${name} in ${file} (${text === null ? "the file does not exist" : has}): nothing to remove`,
    );
  }
  const isTarget = (v: unknown): boolean => isJson(v) && isJson(v.target) && v.target.kind === "ReconciliationWindow" && v.target.name === name;
  const after = editList(text, "patches", file, (v) => (isTarget(v) ? [] : "keep"), [], { dropEmpty: true });
  return [{ path: file, before: text, after }];
}

/** A fleet window and the clusters that take it. */
export interface FleetWindowListing {
  name: string;
  /** The selector (text) its annotation records; null when the file has none. */
  selector: string | null;
  file: string;
  /** Clusters whose windows/kustomization.yaml includes it, each with whether it patches it. */
  clusters: Array<{ name: string; patched: boolean; labelsMatch: boolean }>;
  /** Clusters the selector matches that do not include it. */
  missing: string[];
}

/** The selector annotation of a fleet window file's text, or null. */
export function selectorOfFleetWindow(text: string | null): string | null {
  if (text === null) return null;
  try {
    const v: unknown = parse(text);
    const s = isJson(v) && isJson(v.metadata) && isJson(v.metadata.annotations) ? v.metadata.annotations[FLEET_SELECTOR_ANNOTATION] : undefined;
    return typeof s === "string" ? s : null;
  } catch {
    return null;
  }
}

/** What a cluster's windows/kustomization.yaml says of fleet windows: those it includes and those it patches. */
export function clusterFleetEntries(
  cluster: ClusterEntry,
  text: string | null,
): { includes: string[]; patches: Array<{ name: string; index: number; value: Json }> } {
  if (text === null) return { includes: [], patches: [] };
  const file = windowsKustomizationFile(cluster);
  let resources: ReturnType<typeof listItems>;
  let patches: ReturnType<typeof listItems>;
  try {
    ({ resources, patches } = listsItems(text, ["resources", "patches"], file));
  } catch {
    return { includes: [], patches: [] }; // check reports the build failure
  }
  const includes = resources.map((i) => fleetWindowOfEntry(cluster, i.value)).filter((n): n is string => n !== null);
  const out: Array<{ name: string; index: number; value: Json }> = [];
  patches.forEach((p, index) => {
    const target = isJson(p.value) ? p.value.target : undefined;
    if (isJson(target) && target.kind === "ReconciliationWindow" && typeof target.name === "string")
      out.push({ name: target.name, index, value: p.value as Json });
  });
  return { includes, patches: out };
}

/**
 * Every fleet window (directories of fleet/windows/), with the clusters that include and patch
 * it, whether their labels still match its selector, and the matching clusters that do not
 * include it. `names` are the directories of fleet/windows/; `entriesOf` gives what a cluster's
 * windows/kustomization.yaml says of fleet windows (read from `read` unless given, e.g. already read).
 */
export function listFleetWindows(
  repository: RepositoryFile | null,
  names: readonly string[],
  read: ReadText,
  entriesOf: (cluster: ClusterEntry) => ReturnType<typeof clusterFleetEntries> = (c) => clusterFleetEntries(c, read(windowsKustomizationFile(c))),
): FleetWindowListing[] {
  const lister = new FleetWindowLister(names, read, entriesOf);
  for (const c of repository?.clusters ?? []) lister.add(c);
  return lister.listing();
}

/**
 * listFleetWindows a cluster at a time, for a caller that cuts the loop over thousands of
 * clusters into short turns: add() each cluster of fluxgate.yaml in its order, then listing().
 */
export class FleetWindowLister {
  private readonly windows: Array<{ listing: FleetWindowListing; parsed: ReturnType<typeof parseSelector> | null }>;
  private readonly entriesOf: (cluster: ClusterEntry) => ReturnType<typeof clusterFleetEntries>;

  constructor(names: readonly string[], read: ReadText, entriesOf: (cluster: ClusterEntry) => ReturnType<typeof clusterFleetEntries>) {
    this.entriesOf = entriesOf;
    this.windows = [...names].sort().map((name) => {
      const selector = selectorOfFleetWindow(read(fleetWindowFile(name)));
      let parsed: ReturnType<typeof parseSelector> | null;
      try {
        parsed = selector === null ? null : parseSelector(selector, FLEET_SELECTOR_ANNOTATION);
      } catch {
        parsed = null; // check reports a selector that cannot be read
      }
      return { listing: { name, selector, file: fleetWindowFile(name), clusters: [], missing: [] }, parsed };
    });
  }

  /** The next cluster of fluxgate.yaml. */
  add(cluster: ClusterEntry): void {
    const entries = this.entriesOf(cluster);
    for (const { listing, parsed } of this.windows) {
      const matches = parsed !== null && clusterMatches(cluster, parsed);
      if (entries.includes.includes(listing.name))
        listing.clusters.push({ name: cluster.name, patched: entries.patches.some((p) => p.name === listing.name), labelsMatch: matches });
      else if (matches) listing.missing.push(cluster.name);
    }
  }

  /** The fleet windows, by name, with the clusters added so far. */
  listing(): FleetWindowListing[] {
    return this.windows.map((w) => w.listing);
  }
}

/**
 * A listing narrowed to the clusters `chosen` names (`--selector`, `?selector=`): which of them include each fleet window and which do not; a fleet window with
 * neither goes.
 */
export function fleetWindowsOf(listing: readonly FleetWindowListing[], chosen: ReadonlySet<string>): FleetWindowListing[] {
  return listing
    .map((w) => ({ ...w, clusters: w.clusters.filter((c) => chosen.has(c.name)), missing: w.missing.filter((m) => chosen.has(m)) }))
    .filter((w) => w.clusters.length > 0 || w.missing.length > 0);
}
