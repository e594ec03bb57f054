// The fleet folder: every cluster includes fleet/ once; fleet windows and fleet freezes carry their clusterSelector, so a fleet change is a few files whatever the
// fleet's size. The plans here are pure (file texts in, file changes out).
//
// repo/
//   fleet/kustomization.yaml             resources: windows/<window> (each fleet window), freezes/<freeze>.yaml (each fleet freeze)
//   fleet/windows/<window>/              a fleet window's base: <window>.yaml (spec.clusterSelector) and kustomization.yaml
//   fleet/freezes/<freeze>.yaml          a fleet freeze: one WindowOverride (spec.clusterSelector, spec.windowSelector {} or one per --window)
//   clusters/<cluster>/windows/
//     kustomization.yaml                 resources: ../../../fleet (once), fluxgate-cluster.yaml, the cluster's own windows; patches of fleet windows
//     fluxgate-cluster.yaml              the cluster's identity (ConfigMap flux-system/fluxgate-cluster): its name and labels from fluxgate.yaml

import { posix } from "node:path";
import { parseAllDocuments } from "yaml";
import {
  API_VERSION,
  CLUSTER_IDENTITY_CLUSTER_KEY,
  CLUSTER_IDENTITY_LABELS_KEY,
  CLUSTER_IDENTITY_NAME,
  CLUSTER_IDENTITY_NAMESPACE,
  parseWith,
  WindowOverrideSpecSchema,
  type WindowOverrideSpec,
} from "../../api/index.ts";
import { inContext } from "../../errors.ts";
import { rfc3339 } from "../../schedule/format.ts";
import { formatSelector, OVERRIDE_LIMIT, overrideEndProblem, overrideName, parseSelector, type LabelSelector } from "../../policy/index.ts";
import type { FileChange } from "../changes.ts";
import { RepositoryInputError } from "../errors.ts";
import { windowFile, windowsDir, windowsKustomizationFile, type ClusterEntry, type RepositoryFile } from "../layout.ts";
import { field, isJson, str, type Json } from "../objects.ts";
import { editList, listItems } from "../yaml-edit.ts";
import {
  clusterSelectorOfWindow,
  FLEET_DIR,
  FLEET_OVERRIDE_LABEL,
  FLEET_WINDOW_LABEL,
  fleetKustomizationFile,
  fleetWindowDir,
  fleetWindowFile,
  fleetWindowOfEntry,
  isFleetFolderEntry,
} from "./layout.ts";

export { clusterSelectorOfWindow, FLEET_DIR, isFleetFolderEntry };
import { committedOverrideManifest, type FleetOverrideListing, type FleetOverrideRequest } from "./overrides.ts";
import { clusterLabels, clusterMatches, selectClusters } from "./select.ts";
import { yamlText } from "./text.ts";
import { checkFleetWindowName, clusterFleetEntries, type FleetWindowListing, type ReadText } from "./windows.ts";
import { overrideStage, overrideTiming } from "../../policy/index.ts";

/** Its kustomization.yaml: the one list of fleet windows and fleet freezes. */
export const FLEET_FOLDER_FILE = `${FLEET_DIR}/kustomization.yaml`;
/** Where fleet freezes live, one file each. */
export const FLEET_FREEZES_DIR = `${FLEET_DIR}/freezes`;

/** The file of a fleet freeze. */
export function fleetFreezeFile(name: string): string {
  return `${FLEET_FREEZES_DIR}/${name}.yaml`;
}

/** The cluster's identity file, in its windows/ folder. */
export function identityFile(cluster: ClusterEntry): string {
  return `${windowsDir(cluster)}/${CLUSTER_IDENTITY_NAME}.yaml`;
}

/** The `resources` entry by which a cluster's windows/kustomization.yaml includes the fleet folder. */
export function fleetFolderEntry(cluster: ClusterEntry): string {
  return posix.relative(windowsDir(cluster), FLEET_DIR);
}

/** True when the repository uses the fleet folder (fleet/kustomization.yaml exists); else fleet windows are included cluster by cluster. */
export function usesFleetFolder(read: ReadText): boolean {
  return read(FLEET_FOLDER_FILE) !== null;
}

/** The identity ConfigMap of a cluster as `init` writes it: its name and its labels from fluxgate.yaml. */
export function identityText(cluster: ClusterEntry): string {
  const labels = clusterLabels(cluster);
  const manifest = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: CLUSTER_IDENTITY_NAME, namespace: CLUSTER_IDENTITY_NAMESPACE, labels: { "app.kubernetes.io/managed-by": "fluxgate" } },
    data: {
      [CLUSTER_IDENTITY_CLUSTER_KEY]: cluster.name,
      [CLUSTER_IDENTITY_LABELS_KEY]: Object.keys(labels).length === 0 ? "" : yamlText({ ...labels }),
    },
  };
  return `# The identity of cluster ${cluster.name}, from fluxgate.yaml (written by fluxgate init; check compares them). The controller matches\n# the clusterSelector of fleet windows and fleet freezes against these labels (docs/controller.md#the-clusters-identity).\n${yamlText(manifest)}`;
}

/**
 * The edits that give a cluster its identity file (new or brought up to date with fluxgate.yaml)
 * and list it in windows/kustomization.yaml; none when both are right. `text` is the current
 * windows/kustomization.yaml (it must exist).
 */
export function identityChanges(cluster: ClusterEntry, read: ReadText, text: string): { changes: FileChange[]; kustomization: string } {
  const file = identityFile(cluster);
  const wanted = identityText(cluster);
  const current = read(file);
  const changes: FileChange[] = current === wanted ? [] : [{ path: file, before: current, after: wanted }];
  const kf = windowsKustomizationFile(cluster);
  const listed = listItems(text, "resources", kf).some((i) => typeof i.value === "string" && i.value.replace(/^\.\//, "") === `${CLUSTER_IDENTITY_NAME}.yaml`);
  return { changes, kustomization: listed ? text : editList(text, "resources", kf, () => "keep", [`${CLUSTER_IDENTITY_NAME}.yaml`]) };
}

/** fleet/kustomization.yaml as the fleet folder starts. */
export function fleetFolderText(entries: readonly string[]): string {
  return [
    "# The fleet folder: every cluster's windows/kustomization.yaml includes it once. Each fleet window and fleet freeze",
    "# carries its clusterSelector; a cluster's controller acts only on those that match its identity (docs/gitops.md#the-fleet).",
    "apiVersion: kustomize.config.k8s.io/v1beta1",
    "kind: Kustomization",
    entries.length === 0 ? "resources: []" : `resources:\n${entries.map((e) => `  - ${e}`).join("\n")}`,
    "",
  ].join("\n");
}

function requireFolder(read: ReadText): string {
  const text = read(FLEET_FOLDER_FILE);
  if (text === null) throw new RepositoryInputError(`the repository has no ${FLEET_FOLDER_FILE}: convert it with fluxgate fleet migrate`);
  return text;
}

/** The selector text as a LabelSelector, read as kubectl reads -l, without empty parts (as a person writes it in YAML). */
function selectorOf(text: string, flag = "--selector"): LabelSelector {
  const s = parseSelector(text, flag);
  return {
    ...(Object.keys(s.matchLabels ?? {}).length > 0 ? { matchLabels: s.matchLabels } : {}),
    ...((s.matchExpressions ?? []).length > 0 ? { matchExpressions: s.matchExpressions } : {}),
  };
}

/** The entries of fleet/kustomization.yaml: fleet windows (windows/<name>) and freezes (freezes/<name>.yaml). */
export function fleetFolderEntries(text: string): { windows: string[]; freezes: string[] } {
  const windows: string[] = [];
  const freezes: string[] = [];
  for (const i of listItems(text, "resources", FLEET_FOLDER_FILE)) {
    if (typeof i.value !== "string") continue;
    const v = posix.normalize(i.value.replace(/\/+$/, ""));
    const w = /^windows\/([^/]+)$/.exec(v);
    const f = /^freezes\/([^/]+)\.yaml$/.exec(v);
    if (w !== null) windows.push(w[1] as string);
    if (f !== null) freezes.push(f[1] as string);
  }
  return { windows, freezes };
}

/**
 * Plans a fleet window in the fleet folder: its base (the window with spec.clusterSelector, and a
 * kustomization.yaml) and its entry in fleet/kustomization.yaml — three files, whatever the
 * fleet's size. Refused, changing nothing: a bad name, selector or spec, a fleet window that
 * exists, a selector no cluster matches, a cluster with a window of its own of that name (every
 * cluster renders every fleet window).
 */
export function planFolderWindowAdd(
  repository: RepositoryFile | null,
  read: ReadText,
  request: { name: string; selector: string; spec: unknown },
  validate: (manifest: Json) => void,
): { changes: FileChange[]; clusters: ClusterEntry[] } {
  const { name } = request;
  checkFleetWindowName(name);
  const folder = requireFolder(read);
  const selector = selectorOf(request.selector);
  const clusters = selectClusters(repository, request.selector);
  if (read(fleetKustomizationFile(name)) !== null || read(fleetWindowFile(name)) !== null)
    throw new RepositoryInputError(
      `fleet window ${name} exists (${fleetWindowDir(name)}/): edit it there, or patch it for one cluster with fluxgate fleet window patch`,
    );
  for (const c of repository?.clusters ?? []) {
    if (read(windowFile(c, name)) !== null)
      throw new RepositoryInputError(`cluster ${c.name} has a window of its own named ${name} (${windowFile(c, name)}): give the fleet window another name`);
  }
  const spec = isJson(request.spec) ? request.spec : {};
  const manifest: Json = {
    apiVersion: API_VERSION,
    kind: "ReconciliationWindow",
    metadata: { name, namespace: CLUSTER_IDENTITY_NAMESPACE, labels: { [FLEET_WINDOW_LABEL]: name } },
    spec: { clusterSelector: selector, ...spec },
  };
  validate(manifest);
  const text = formatSelector(selector);
  return {
    clusters,
    changes: [
      {
        path: fleetWindowFile(name),
        before: null,
        after: `# Fleet window ${name}: one window for every cluster whose labels match ${text} (docs/gitops.md#fleet-windows).\n${yamlText(manifest)}`,
      },
      {
        path: fleetKustomizationFile(name),
        before: null,
        after: [
          `# The base of fleet window ${name}, listed in fleet/kustomization.yaml. A cluster that differs`,
          "# patches the window in its windows/kustomization.yaml (fluxgate fleet window patch).",
          "apiVersion: kustomize.config.k8s.io/v1beta1",
          "kind: Kustomization",
          "resources:",
          `  - ${name}.yaml`,
          "",
        ].join("\n"),
      },
      { path: FLEET_FOLDER_FILE, before: folder, after: editList(folder, "resources", FLEET_FOLDER_FILE, () => "keep", [`windows/${name}`]) },
    ],
  };
}

/**
 * Plans the removal of a fleet window from the fleet folder: its base files and its entry in
 * fleet/kustomization.yaml, plus the patches of it that clusters keep (`patched`: their
 * windows/kustomization.yaml edits, one per cluster that differs). Refused when it does not exist.
 */
export function planFolderWindowRemove(read: ReadText, name: string, patched: readonly FileChange[]): FileChange[] {
  checkFleetWindowName(name);
  const folder = requireFolder(read);
  const base = read(fleetWindowFile(name));
  const kustomization = read(fleetKustomizationFile(name));
  if (base === null && kustomization === null) throw new RepositoryInputError(`fleet window ${name} does not exist (no ${fleetWindowDir(name)}/)`);
  const isEntry = (v: unknown): boolean => typeof v === "string" && posix.normalize(v.replace(/\/+$/, "")) === `windows/${name}`;
  return [
    ...(base === null ? [] : [{ path: fleetWindowFile(name), before: base, after: null }]),
    ...(kustomization === null ? [] : [{ path: fleetKustomizationFile(name), before: kustomization, after: null }]),
    { path: FLEET_FOLDER_FILE, before: folder, after: editList(folder, "resources", FLEET_FOLDER_FILE, (v) => (isEntry(v) ? [] : "keep")) },
    ...patched,
  ];
}

/**
 * Plans the removal of a fleet window in either layout, as `fluxgate fleet window remove` and
 * DELETE /fleet/windows/{name} make it: with the fleet folder, planFolderWindowRemove; in the
 * per-cluster layout, its base files and `leftovers` (each including cluster's edit). `leftovers`:
 * fleetWindowLeftovers of the clusters that include or patch it (none for the others).
 */
export function planFleetWindowRemove(read: ReadText, name: string, leftovers: readonly FileChange[]): FileChange[] {
  if (usesFleetFolder(read)) return planFolderWindowRemove(read, name, leftovers);
  const base = planFolderWindowRemove((p) => (p === FLEET_FOLDER_FILE ? "resources: []\n" : read(p)), name, []);
  return [...base.filter((c) => c.path !== FLEET_FOLDER_FILE), ...leftovers];
}

const NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * Plans a fleet freeze in the fleet folder: one file, fleet/freezes/<name>.yaml, with one
 * WindowOverride that carries the clusterSelector and freezes every window (windowSelector {}),
 * or one per `--window`; and its entry in fleet/kustomization.yaml. Two files whatever the
 * fleet's size. Refused with nothing planned: a bad name, reason or end, a selector that matches
 * no cluster of fluxgate.yaml, a name in use.
 */
export function planFolderFreeze(
  repository: RepositoryFile | null,
  read: ReadText,
  selectorText: string,
  request: FleetOverrideRequest,
): { name: string; changes: FileChange[]; clusters: ClusterEntry[] } {
  const folder = requireFolder(read);
  const name = request.name ?? overrideName("fleet", request.action, request.now);
  if (!NAME.test(name))
    throw new RepositoryInputError(
      `--name ${name}: must be a DNS label (lower-case letters, digits and '-', at most 63 characters): it names the fleet freeze`,
    );
  if (request.reason.trim() === "") throw new RepositoryInputError('--reason is required: say why, e.g. --reason "incident INC-7 in region eu"');
  if (Number.isNaN(request.until)) throw new RepositoryInputError("--until: not a date-time");
  const until = Math.ceil(request.until / 1000) * 1000;
  const wrong = overrideEndProblem(until, request.now);
  if (wrong?.problem === "not in the future") throw new RepositoryInputError(`--until ${rfc3339(until)} is not in the future`);
  if (wrong?.problem === "too long")
    throw new RepositoryInputError(`--until ${rfc3339(until)}: ${OVERRIDE_LIMIT}: for longer, change the windows' freezes in Git`);
  const selector = selectorOf(selectorText);
  const clusters = selectClusters(repository, selectorText);
  if (read(fleetFreezeFile(name)) !== null || fleetFolderEntries(folder).freezes.includes(name))
    throw new RepositoryInputError(`a fleet freeze named ${name} exists (${fleetFreezeFile(name)}): give another --name, or end it first`);
  const picks: Array<{ objectName: string; choice: Pick<WindowOverrideSpec, "windowRef" | "windowSelector"> }> =
    request.windows === undefined
      ? [{ objectName: name, choice: { windowSelector: {} } }]
      : request.windows.map((w) => ({ objectName: `${name}-${w}`.slice(0, 253).replace(/[-.]+$/, ""), choice: { windowRef: { name: w } } }));
  const documents = picks.map(({ objectName, choice }) => {
    const spec = inContext({ as: RepositoryInputError }, () =>
      parseWith(
        WindowOverrideSpecSchema,
        { clusterSelector: selector, ...choice, action: request.action, until: rfc3339(until), reason: request.reason.trim() },
        "spec",
      ),
    );
    return yamlText(committedOverrideManifest(objectName, spec, request.now, { requestedBy: request.requestedBy, labels: { [FLEET_OVERRIDE_LABEL]: name } }));
  });
  const what = request.windows === undefined ? "every window" : `the windows ${request.windows.join(", ")}`;
  const header = `# Fleet freeze ${name}: ${what} of every cluster whose labels match ${formatSelector(selector)} (docs/gitops.md#fleet-freeze).\n`;
  return {
    name,
    clusters,
    changes: [
      { path: fleetFreezeFile(name), before: null, after: header + documents.join("---\n") },
      { path: FLEET_FOLDER_FILE, before: folder, after: editList(folder, "resources", FLEET_FOLDER_FILE, () => "keep", [`freezes/${name}.yaml`]) },
    ],
  };
}

/** A fleet freeze file, read: its overrides' manifests. */
export interface FreezeFile {
  name: string;
  text: string;
}

/** The manifests of a fleet freeze file (documents that are objects). */
function manifestsOf(text: string): Json[] {
  try {
    return parseAllDocuments(text)
      .map((d) => d.toJS() as unknown)
      .filter(isJson);
  } catch {
    return [];
  }
}

/** The clusters of fluxgate.yaml a fleet freeze's clusterSelector matches (none when it cannot be read). */
function clustersOf(repository: RepositoryFile | null, selector: unknown): ClusterEntry[] {
  if (!isJson(selector)) return [];
  try {
    const text = formatSelector(selector);
    return selectClusters(repository, text || "", "clusterSelector", true);
  } catch {
    return [];
  }
}

/**
 * The fleet freezes of the fleet folder as `fleet freeze list` shows them (the shape of the
 * per-cluster layout's listing): one entry per freeze file, its parts on each cluster its
 * clusterSelector matches in fluxgate.yaml (`window` is `*` for every window).
 */
export function listFolderFreezes(repository: RepositoryFile | null, files: readonly FreezeFile[], now: number): FleetOverrideListing[] {
  const out: FleetOverrideListing[] = [];
  for (const f of files) {
    const manifests = manifestsOf(f.text);
    const first = manifests[0];
    if (first === undefined) continue;
    const spec = first.spec;
    const annotations = field(first, "metadata", "annotations");
    let stage: string;
    try {
      stage = overrideStage(overrideTiming({ annotations: isJson(annotations) ? annotations : undefined, until: str(field(spec, "until")) ?? "" }, now), now);
    } catch {
      stage = "invalid";
    }
    const clusters = clustersOf(repository, field(spec, "clusterSelector"));
    const parts = manifests.map((m) => ({
      name: str(field(m, "metadata", "name")) ?? "",
      window: str(field(m, "spec", "windowRef", "name")) ?? "*",
      file: fleetFreezeFile(f.name),
    }));
    out.push({
      name: f.name,
      action: str(field(spec, "action")) ?? "",
      until: str(field(spec, "until")) ?? "",
      reason: str(field(spec, "reason")) ?? "",
      requestedAt: str(field(annotations, "fluxgate.io/requested-at")) ?? null,
      stage,
      // The file's overrides read once, not once per cluster: a freeze of 2,500 clusters parsed it 2,500 times.
      overrides: clusters.flatMap((c) => parts.map((p) => ({ cluster: c.name, ...p }))),
    });
  }
  return out.sort((a, b) => (a.until > b.until ? -1 : a.until < b.until ? 1 : a.name < b.name ? -1 : 1));
}

/** Plans the end of a fleet freeze of the fleet folder: its file removed and its entry dropped (Flux prunes the override; Git keeps the record). Null when there is no such file. */
export function planFolderFreezeEnd(read: ReadText, name: string): FileChange[] | null {
  const text = read(fleetFreezeFile(name));
  const folder = read(FLEET_FOLDER_FILE);
  if (text === null || folder === null) return null;
  const isEntry = (v: unknown): boolean => typeof v === "string" && posix.normalize(v) === `freezes/${name}.yaml`;
  return [
    { path: fleetFreezeFile(name), before: text, after: null },
    { path: FLEET_FOLDER_FILE, before: folder, after: editList(folder, "resources", FLEET_FOLDER_FILE, (v) => (isEntry(v) ? [] : "keep")) },
  ];
}

/**
 * The edit of a cluster's windows/kustomization.yaml that takes a removed fleet window out of it:
 * its inclusion (the per-cluster layout) and the cluster's patches of it; null when it has neither.
 */
export function fleetWindowLeftovers(cluster: ClusterEntry, name: string, read: ReadText): FileChange | null {
  const file = windowsKustomizationFile(cluster);
  const text = read(file);
  if (text === null) return null;
  const entries = clusterFleetEntries(cluster, text);
  const included = entries.includes.includes(name);
  const patched = entries.patches.some((p) => p.name === name);
  if (!included && !patched) return null;
  let after = text;
  if (included) after = editList(after, "resources", file, (v) => (fleetWindowOfEntry(cluster, v) === name ? [] : "keep"));
  if (patched) {
    const isTarget = (v: unknown): boolean => isJson(v) && isJson(v.target) && v.target.kind === "ReconciliationWindow" && v.target.name === name;
    after = editList(after, "patches", file, (v) => (isTarget(v) ? [] : "keep"), [], { dropEmpty: true });
  }
  return { path: file, before: text, after };
}

/**
 * The fleet windows of the fleet folder as `fleet window list` shows them: each with its
 * clusterSelector, the clusters of fluxgate.yaml it matches (all of which include the folder)
 * and which of them patch it. `missing` lists matching clusters whose windows/kustomization.yaml
 * does not include the fleet folder.
 */
export function listFolderWindows(repository: RepositoryFile | null, read: ReadText): FleetWindowListing[] {
  const folder = read(FLEET_FOLDER_FILE);
  if (folder === null) return [];
  const clusters = (repository?.clusters ?? []).map((c) => {
    const text = read(windowsKustomizationFile(c));
    let includes: boolean;
    try {
      includes = text !== null && listItems(text, "resources", windowsKustomizationFile(c)).some((i) => isFleetFolderEntry(c, i.value));
    } catch {
      includes = false; // check reports it
    }
    return { entry: c, includes, patches: clusterFleetEntries(c, text).patches.map((p) => p.name) };
  });
  return fleetFolderEntries(folder)
    .windows.sort()
    .map((name) => {
      const selector = clusterSelectorOfWindow(read(fleetWindowFile(name)));
      let parsed: LabelSelector | null = null;
      try {
        parsed = selector === null ? null : parseSelector(selector, "spec.clusterSelector");
      } catch {
        parsed = null;
      }
      const matching = parsed === null ? [] : clusters.filter((c) => clusterMatches(c.entry, parsed));
      return {
        name,
        selector,
        file: fleetWindowFile(name),
        clusters: matching.filter((c) => c.includes).map((c) => ({ name: c.entry.name, patched: c.patches.includes(name), labelsMatch: true })),
        missing: matching.filter((c) => !c.includes).map((c) => c.entry.name),
      };
    });
}
