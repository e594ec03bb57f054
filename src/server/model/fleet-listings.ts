// The fleet's listings of a commit, made once from what its model has read: the files the planners read, the fleet windows and the clusters that take each, the
// fleet overrides grouped.

import { parse } from "yaml";
import type { FileChange } from "../../gitops/changes.ts";
import { listFolderWindows } from "../../gitops/fleet/folder.ts";
import { FLEET_WINDOWS_DIR } from "../../gitops/fleet/layout.ts";
import { FleetOverrideGrouper, type FleetOverrideGroup, type OverrideFile } from "../../gitops/fleet/overrides.ts";
import { clusterFleetEntries, FleetWindowLister, type FleetWindowListing, type ReadText } from "../../gitops/fleet/windows.ts";
import type { FileChanges } from "../git/edits.ts";
import type { Fleet } from "./model.ts";
import { inSlices } from "./slices.ts";

const readers = new WeakMap<Fleet, ReadText>();

/**
 * Reads the files of a fleet's model: windows/kustomization.yaml of each cluster and the fleet
 * windows' bases. Made once per commit, in turns of the event loop (30,000 files at 10,000 clusters).
 */
export async function readerOf(fleet: Fleet): Promise<ReadText> {
  let read = readers.get(fleet);
  if (read === undefined) {
    const texts = new Map<string, string>();
    for (const f of fleet.fleetFiles.values()) texts.set(f.path, f.text);
    await inSlices(fleet.clusters, (k) => {
      if (k.kustomization !== null) texts.set(k.kustomization.path, k.kustomization.text);
      for (const w of k.windows) if (w.fleet === null) texts.set(w.path, w.text);
    });
    read = (path) => texts.get(path) ?? null;
    readers.set(fleet, read);
  }
  return read;
}

/** The service's file changes of a plan, in turns of the event loop (a fleet freeze is thousands of files). */
export async function changesOf(changes: readonly FileChange[]): Promise<FileChanges> {
  const out: FileChanges = {};
  await inSlices(changes, (c) => {
    if (c.before !== c.after) out[c.path] = c.after;
  });
  return out;
}

// The fleet's listings, made once per commit (a fleet is one commit's) from what its model has
// already read: a read costs the same whatever the number of clusters' files.
const windowListings = new WeakMap<Fleet, Promise<FleetWindowListing[]>>();
const overrideGroups = new WeakMap<Fleet, Promise<FleetOverrideGroup[]>>();

/** The fleet windows of a commit and the clusters that take each (GET /fleet/windows), a slice of clusters at a time. */
export function fleetWindowListing(fleet: Fleet): Promise<FleetWindowListing[]> {
  let listing = windowListings.get(fleet);
  if (listing === undefined && usesFleetFolderModel(fleet)) {
    // The fleet folder: each fleet window with its clusterSelector and the clusters of fluxgate.yaml it matches, as the CLI lists them.
    listing = readerOf(fleet).then((read) => listFolderWindows(fleet.repository, read));
    windowListings.set(fleet, listing);
    listing.catch(() => windowListings.delete(fleet));
  }
  if (listing === undefined) {
    const models = new Map(fleet.clusters.map((k) => [k.entry.name, k]));
    const none = { includes: [], patches: [] };
    const lister = new FleetWindowLister(
      fleetWindowNames(fleet),
      (path) => fleet.fleetFiles.get(path)?.text ?? null,
      (c) => {
        const k = models.get(c.name);
        return k === undefined ? none : (k.fleetEntries ?? clusterFleetEntries(k.entry, k.kustomization?.text ?? null));
      },
    );
    listing = inSlices(fleet.repository.clusters, (c) => lister.add(c)).then(() => lister.listing());
    windowListings.set(fleet, listing);
    listing.catch(() => windowListings.delete(fleet));
  }
  return listing;
}

/**
 * The fleet overrides of a commit, grouped (GET /fleet/overrides adds their stage at the time of
 * the request): the override files of each cluster (parsed as the model parsed them), a cluster at
 * a time in turns of the event loop, groups in the order they first appear.
 */
export function fleetOverrideGroups(fleet: Fleet): Promise<FleetOverrideGroup[]> {
  let groups = overrideGroups.get(fleet);
  if (groups === undefined) {
    const grouper = new FleetOverrideGrouper();
    groups = inSlices(fleet.clusters, (k) =>
      grouper.add(
        k.overrides.map((o): OverrideFile => ({
          cluster: k.entry,
          name: o.name,
          text: o.text,
          manifest: o.manifest,
          ...(o.folderFreeze === undefined ? {} : { folderFreeze: { name: o.folderFreeze.name, file: o.path } }),
        })),
      ),
    ).then(() => grouper.groups());
    overrideGroups.set(fleet, groups);
    groups.catch(() => overrideGroups.delete(fleet));
  }
  return groups;
}

/** The names of the fleet windows (directories of fleet/windows/). */
export function fleetWindowNames(fleet: Fleet): string[] {
  const names = new Set<string>();
  for (const path of fleet.fleetFiles.keys()) {
    const m = new RegExp(`^${FLEET_WINDOWS_DIR}/([^/]+)/`).exec(path);
    if (m !== null) names.add(m[1] as string);
  }
  return [...names].sort();
}

/** The manifest of each override file a plan writes (for direct delivery). */
export function manifestsOf(
  changes: FileChanges,
  overrides: ReadonlyArray<{ cluster: string; name: string }>,
  fleet: Fleet,
): Array<{ cluster: string; name: string; manifest: Record<string, unknown> }> {
  const byName = new Map(fleet.clusters.map((k) => [k.entry.name, k]));
  return overrides.flatMap((o) => {
    const k = byName.get(o.cluster);
    const text = k === undefined ? null : changes[`${k.windowsDir}/overrides/${o.name}.yaml`];
    return typeof text === "string" ? [{ cluster: o.cluster, name: o.name, manifest: parse(text) as Record<string, unknown> }] : [];
  });
}

/** `../../../fleet` (any depth) as a line of a kustomization's `resources`. */
const FOLDER_ENTRY = /^\s*-\s*["']?(?:\.\.\/)+fleet\/?["']?\s*$/m;

/**
 * True when the repository uses the fleet folder (docs/gitops.md#the-fleet-folder), told by the
 * first cluster's windows/kustomization.yaml, as `fleet migrate` makes every cluster include it.
 * The service writes a fleet freeze and a fleet window there as the CLI does (src/gitops/fleet/folder.ts).
 */
export function usesFleetFolderModel(fleet: Fleet): boolean {
  const text = fleet.clusters.find((k) => k.kustomization !== null)?.kustomization?.text;
  return text !== undefined && FOLDER_ENTRY.test(text);
}
