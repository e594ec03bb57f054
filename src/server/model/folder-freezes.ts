// The fleet folder's freezes in the clusters' models: each freeze fleet/kustomization.yaml lists is an override of every cluster whose labels (fluxgate.yaml)
// its clusterSelector matches, its windowSelector read against the cluster's windows, as Flux applies the one object on each cluster that includes fleet/.

import { parseAllDocuments } from "yaml";
import { FLEET_FOLDER_FILE, fleetFolderEntries, fleetFreezeFile } from "../../gitops/fleet/folder.ts";
import { field, isJson } from "../../gitops/objects.ts";
import { matchesSelector, selectorProblem, type LabelSelector } from "../../policy/index.ts";
import { readOverride, type ClusterModel, type FileAt, type OverrideRecord } from "./model.ts";
import { inSlices } from "./slices.ts";

/** One WindowOverride of a freeze file, read once for every cluster. */
interface FolderOverride {
  freeze: string;
  record: OverrideRecord;
  /** Null: every cluster (no clusterSelector, as the controller reads it). */
  clusterSelector: LabelSelector | null;
  /** Null when it names its window (windowRef). */
  windowSelector: LabelSelector | null;
}

/** A selector as written in a manifest, or undefined when it is absent. */
function selectorAt(manifest: unknown, key: "clusterSelector" | "windowSelector"): LabelSelector | null | undefined {
  const value = field(manifest, "spec", key);
  if (value === undefined) return undefined;
  return isJson(value) ? value : null;
}

/** True when a selector that the API server would take matches `labels` (one it would refuse matches nothing, as the controller has it). */
function matches(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  return selectorProblem(selector) === null && matchesSelector(selector, labels);
}

/** The labels of a window's manifest (its rendered manifest for a fleet window). */
function windowLabels(manifest: unknown): Record<string, string> {
  const labels = field(manifest, "metadata", "labels");
  const out: Record<string, string> = {};
  if (isJson(labels)) for (const [k, v] of Object.entries(labels)) if (typeof v === "string") out[k] = v;
  return out;
}

/** The overrides of the freezes fleet/kustomization.yaml lists (a freeze it does not list is not applied), each document of each file read as the controller would. */
export function folderOverrides(fleetFiles: ReadonlyMap<string, FileAt>, now: number): FolderOverride[] {
  const folder = fleetFiles.get(FLEET_FOLDER_FILE);
  if (folder === undefined) return [];
  let names: string[];
  try {
    names = fleetFolderEntries(folder.text).freezes;
  } catch {
    return []; // a fleet/kustomization.yaml that cannot be read does not build: each cluster's fleetError says so
  }
  const out: FolderOverride[] = [];
  for (const freeze of [...new Set(names)]) {
    const file = fleetFiles.get(fleetFreezeFile(freeze));
    if (file === undefined) continue;
    for (const doc of parseAllDocuments(file.text)) {
      if (doc.errors.length > 0) continue;
      const manifest: unknown = doc.toJS();
      if (!isJson(manifest)) continue;
      const name = field(manifest, "metadata", "name");
      const record = readOverride({ path: file.path, text: doc.toString(), blob: file.blob }, typeof name === "string" ? name : freeze, now);
      const clusterSelector = selectorAt(manifest, "clusterSelector");
      const windowSelector = selectorAt(manifest, "windowSelector");
      // A selector that is not a map selects no cluster and no window.
      if (clusterSelector === null || windowSelector === null) continue;
      out.push({ freeze, record, clusterSelector: clusterSelector ?? null, windowSelector: windowSelector ?? null });
    }
  }
  return out;
}

/**
 * Adds to each cluster (one that includes the fleet folder) the fleet folder's freezes whose
 * clusterSelector its labels match: an override record each, whose path is the freeze's file and
 * whose `folderFreeze` names the freeze and the cluster's windows its windowSelector picks. Call
 * it once the cluster's windows are all known (its fleet windows rendered). In short turns.
 */
export async function addFolderFreezes(clusters: readonly ClusterModel[], fleetFiles: ReadonlyMap<string, FileAt>, now: number): Promise<void> {
  const overrides = folderOverrides(fleetFiles, now);
  if (overrides.length === 0 || clusters.length === 0) return;
  await inSlices(clusters, (k) => {
    const labels = k.entry.labels ?? {};
    let added = false;
    for (const o of overrides) {
      if (o.clusterSelector !== null && !matches(o.clusterSelector, labels)) continue;
      const selector = o.windowSelector;
      const windows = selector === null ? null : k.windows.filter((w) => matches(selector, windowLabels(w.manifest))).map((w) => w.name);
      k.overrides.push({ ...o.record, folderFreeze: { name: o.freeze, windows } });
      added = true;
    }
    if (added) k.overrides.sort((a, b) => a.name.localeCompare(b.name));
  });
}
