// `fluxgate fleet migrate`: a repository whose clusters include fleet windows one by one becomes one whose clusters include the fleet folder once, with a proof
// (kustomize renders of every cluster, before and after) that every cluster's effective windows are unchanged.

import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isMap, parseDocument } from "yaml";
import { canonicalJson } from "../../api/canonical.ts";
import { parseSelector, type LabelSelector } from "../../policy/index.ts";
import { writeChanges, type FileChange } from "../changes.ts";
import { RepositoryInputError } from "../errors.ts";
import type { RepoFiles } from "../files.ts";
import { windowsKustomizationFile, type ClusterEntry, type RepositoryFile } from "../layout.ts";
import { field, isJson, type Json } from "../objects.ts";
import { editList, listItems } from "../yaml-edit.ts";
import { FleetWindows, type RenderedWindows } from "./effective.ts";
import { FLEET_FOLDER_FILE, fleetFolderEntries, fleetFolderEntry, fleetFolderText, identityChanges, isFleetFolderEntry } from "./folder.ts";
import { FLEET_SELECTOR_ANNOTATION, FLEET_WINDOWS_DIR, fleetWindowDir, fleetWindowFile, fleetWindowOfEntry } from "./layout.ts";
import { clusterMatches } from "./select.ts";
import { clusterFleetEntries, selectorOfFleetWindow, type ReadText } from "./windows.ts";

/**
 * The fleet windows the repository keeps in the per-cluster layout, which each cluster includes one by one and fleet migrate converts: every directory of
 * fleet/windows/ when there is no fleet folder (fleet/kustomization.yaml); none when there is one.
 */
export async function perClusterFleetWindows(files: RepoFiles): Promise<string[]> {
  if ((await files.text(FLEET_FOLDER_FILE)) !== null) return [];
  return fleetWindowDirs(files);
}

/** Every directory of fleet/windows/. */
async function fleetWindowDirs(files: RepoFiles): Promise<string[]> {
  return ((await files.list(FLEET_WINDOWS_DIR)) ?? []).filter((e) => e.dir).map((e) => e.name);
}

/**
 * The fleet windows fleet migrate moves into the fleet folder: those of the per-cluster layout (perClusterFleetWindows); in a repository that has the
 * folder, the directories of fleet/windows/ that fleet/kustomization.yaml does not list (left in the per-cluster layout when the folder was started beside
 * them, as init --fleet-folder once did).
 */
export async function fleetWindowsToMigrate(files: RepoFiles): Promise<string[]> {
  const folder = await files.text(FLEET_FOLDER_FILE);
  if (folder === null) return fleetWindowDirs(files);
  const listed = new Set(listedWindows(folder));
  return (await fleetWindowDirs(files)).filter((n) => !listed.has(n));
}

/** The fleet windows fleet/kustomization.yaml lists; refused when it cannot be read. */
function listedWindows(folder: string): string[] {
  try {
    return fleetFolderEntries(folder).windows;
  } catch (e) {
    throw new RepositoryInputError(`${FLEET_FOLDER_FILE} cannot be read: ${(e as Error).message}`);
  }
}

/**
 * Refuses to start the fleet folder beside fleet windows of the per-cluster layout (`names`, from perClusterFleetWindows): the fleet's windows would be in
 * two places, and fleet migrate, which moves them into the folder with a proof, refuses a repository that has one. `migrate`: the command line that
 * converts this repository.
 */
export function refuseFolderBesidePerCluster(names: readonly string[], migrate: string): void {
  if (names.length === 0) return;
  const shown = names.slice(0, 3).map((n) => `${fleetWindowDir(n)}/`);
  const list = `${shown.join(", ")}${names.length > shown.length ? ` and ${names.length - shown.length} more` : ""}`;
  throw new RepositoryInputError(
    `--fleet-folder: this repository keeps its fleet windows in the per-cluster layout, where each cluster includes them one by one: ${names.length} fleet window${names.length === 1 ? "" : "s"} (${list}). A fleet folder started beside them would keep the fleet's windows in two places. Move them into it instead, with a proof that no cluster's windows change: ${migrate} (with --dry-run first to see the diff); init then includes the fleet folder in every cluster it sets up. Nothing was written`,
  );
}

/** A selector without empty parts, as a person writes it in YAML. */
function tidy(s: LabelSelector): LabelSelector {
  return {
    ...(Object.keys(s.matchLabels ?? {}).length > 0 ? { matchLabels: s.matchLabels } : {}),
    ...((s.matchExpressions ?? []).length > 0 ? { matchExpressions: s.matchExpressions } : {}),
  };
}

/**
 * Plans the conversion to the fleet folder (pure): each fleet window's selector annotation becomes
 * its spec.clusterSelector (comments kept); fleet/kustomization.yaml lists every fleet window; each
 * cluster's windows/kustomization.yaml includes ../../../fleet once instead of each fleet window,
 * and lists its identity (written from fluxgate.yaml). Fleet freezes already written per cluster
 * stay as they are (they end by themselves within 7 days, or with fleet freeze end). Refused,
 * changing nothing: a fleet window without a readable selector, a cluster whose included fleet windows are not those its labels select (the
 * new layout would change what it runs: fix it first, check names them).
 *
 * In a repository that already has the folder, `names` are the fleet windows it does not list
 * (fleetWindowsToMigrate): they are added to it, and each cluster that does not include the
 * folder yet includes it (one that does keeps its entry and loses its one-by-one includes). Refused:
 * nothing to change (every cluster includes the folder and lists its identity, no fleet window
 * is outside it).
 */
export function planFleetMigrate(repository: RepositoryFile | null, names: readonly string[], read: ReadText): FileChange[] {
  const folder = read(FLEET_FOLDER_FILE);
  if (repository === null) throw new RepositoryInputError("the repository has no fluxgate.yaml: fluxgate init writes it");
  const changes: FileChange[] = [];
  const selectors = new Map<string, LabelSelector>();
  for (const name of [...names].sort()) {
    const file = fleetWindowFile(name);
    const text = read(file);
    const selectorText = selectorOfFleetWindow(text);
    if (text === null || selectorText === null)
      throw new RepositoryInputError(
        `fleet window ${name}: ${file} has no ${FLEET_SELECTOR_ANNOTATION} annotation, so the clusters it is for are not known: add it first`,
      );
    const selector = tidy(parseSelector(selectorText, `${file}: ${FLEET_SELECTOR_ANNOTATION}`));
    selectors.set(name, selector);
    const doc = parseDocument(text);
    doc.setIn(["spec", "clusterSelector"], doc.createNode(selector));
    doc.deleteIn(["metadata", "annotations", FLEET_SELECTOR_ANNOTATION]);
    const annotations = doc.getIn(["metadata", "annotations"]);
    if (isMap(annotations) && annotations.items.length === 0) doc.deleteIn(["metadata", "annotations"]);
    changes.push({ path: file, before: text, after: doc.toString() });
  }
  const disagree: string[] = [];
  for (const c of repository.clusters) {
    const file = windowsKustomizationFile(c);
    const text = read(file);
    if (text === null) {
      disagree.push(`${c.name} (no ${file}: run fluxgate init . --cluster ${c.name})`);
      continue;
    }
    // With the folder, a fleet window it lists is not one to migrate: the cluster's one-by-one include of it goes, and the proof shows what that does.
    const includes = new Set(clusterFleetEntries(c, text).includes.filter((n) => folder === null || selectors.has(n)));
    const selected = new Set([...selectors].filter(([, s]) => clusterMatches(c, s)).map(([n]) => n));
    const extra = [...includes].filter((n) => !selected.has(n));
    const missing = [...selected].filter((n) => !includes.has(n));
    if (extra.length > 0 || missing.length > 0) {
      disagree.push(
        `${c.name} (${[extra.length > 0 ? `includes ${extra.join(", ")}, which its labels do not select` : "", missing.length > 0 ? `does not include ${missing.join(", ")}, which its labels select` : ""].filter((s) => s !== "").join("; ")})`,
      );
      continue;
    }
    changes.push(...clusterChanges(c, text, read));
  }
  if (disagree.length > 0)
    throw new RepositoryInputError(
      `the fleet folder would change what these clusters run: ${disagree.slice(0, 10).join("; ")}${disagree.length > 10 ? `; and ${disagree.length - 10} more` : ""}. Make each cluster include exactly the fleet windows its labels select (fluxgate check reports fleet-window-unselected and fleet-window-not-included), then migrate`,
    );
  const entries = [...selectors.keys()].map((n) => `windows/${n}`);
  if (folder === null) changes.push({ path: FLEET_FOLDER_FILE, before: null, after: fleetFolderText(entries) });
  else if (entries.length > 0)
    changes.push({ path: FLEET_FOLDER_FILE, before: folder, after: editList(folder, "resources", FLEET_FOLDER_FILE, () => "keep", entries) });
  const changed = changes.filter((c) => c.before !== c.after);
  if (folder !== null && changed.length === 0)
    throw new RepositoryInputError(
      `the repository already has the fleet folder (${FLEET_FOLDER_FILE}), lists every fleet window in it, and every cluster includes it with its identity: nothing to convert`,
    );
  return changed;
}

/** A cluster's windows/kustomization.yaml including the fleet folder once instead of each fleet window, and its identity. */
function clusterChanges(c: ClusterEntry, text: string, read: ReadText): FileChange[] {
  const file = windowsKustomizationFile(c);
  // A cluster that includes the folder already keeps that entry, and only loses its one-by-one includes.
  let placed = listItems(text, "resources", file).some((i) => isFleetFolderEntry(c, i.value));
  let after = editList(text, "resources", file, (v) => {
    if (fleetWindowOfEntry(c, v) === null) return "keep";
    if (placed) return [];
    placed = true;
    return [fleetFolderEntry(c)];
  });
  if (!placed) after = editList(after, "resources", file, () => "keep", [fleetFolderEntry(c)]);
  const identity = identityChanges(c, read, after);
  return [{ path: file, before: text, after: identity.kustomization }, ...identity.changes];
}

/** What a cluster runs, for the proof: each effective window (name and spec, the clusterSelector left out) and each override acting on it. */
function effectiveOf(r: RenderedWindows): string {
  const windows = r.windows.map((w) => {
    const spec = field(w.manifest, "spec");
    const { clusterSelector: _selector, ...rest } = isJson(spec) ? spec : ({} as Json);
    return { name: w.name, namespace: w.namespace, spec: rest, opens: w.fleet?.kind !== "unconfirmed" };
  });
  const overrides = r.overrides.map((o) => ({ name: field(o, "metadata", "name"), spec: field(o, "spec") }));
  return canonicalJson({ windows, overrides });
}

/** The proof of a migration: every cluster's effective windows before and after, compared. */
export interface MigrateProof {
  clusters: number;
  windows: number;
  /** Clusters whose effective windows differ, with how; empty when the proof holds. */
  differ: Array<{ cluster: string; before: string; after: string }>;
}

/**
 * Proves a planned migration: renders every cluster's windows/ folder with the real kustomize in
 * the repository as it is and in a copy with the changes written, and compares what each runs
 * (its windows as rendered, patches applied, fleet windows that do not select it left out; the
 * overrides that act on it).
 */
export async function proveFleetMigrate(
  root: string,
  changes: readonly FileChange[],
  options: { kustomize?: string | undefined; env?: NodeJS.ProcessEnv; now: number },
): Promise<MigrateProof> {
  const copy = await mkdtemp(join(tmpdir(), "fluxgate-fleet-migrate-"));
  try {
    await cp(root, copy, { recursive: true, filter: (src) => !src.endsWith("/.git") });
    await writeChanges(copy, changes);
    const before = await FleetWindows.open(root, options);
    const after = await FleetWindows.open(copy, options);
    try {
      const differ: MigrateProof["differ"] = [];
      let windows = 0;
      for (const c of before.repository?.clusters ?? []) {
        const [b, a] = await Promise.all([before.of(c, options.now), after.of(c, options.now)]);
        if (b.error !== null) throw new RepositoryInputError(`cluster ${c.name}: its windows do not build before the migration: ${b.error}`);
        const x = effectiveOf(b);
        const y = a.error === null ? effectiveOf(a) : `does not build: ${a.error}`;
        windows += b.windows.length;
        if (x !== y) differ.push({ cluster: c.name, before: x, after: y });
      }
      return { clusters: before.repository?.clusters.length ?? 0, windows, differ };
    } finally {
      await Promise.all([before.close(), after.close()]);
    }
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}
