// The fleet's writes planned on a repository as it is on disk: fleet overrides from the clusters' rendered windows, and their end.

import type { FileChange } from "../changes.ts";
import type { RepoFiles } from "../files.ts";
import type { RepositoryFile } from "../layout.ts";
import { RepositoryInputError } from "../errors.ts";
import { windowsDir, windowsKustomizationFile } from "../layout.ts";
import type { FleetWindows } from "./effective.ts";
import {
  listFleetOverrides,
  planFleetOverride,
  planFleetOverrideEnd,
  type FleetOverrideListing,
  type FleetOverrideRequest,
  type OverrideFile,
} from "./overrides.ts";
import { selectClusters } from "./select.ts";

/** A repository's files and fluxgate.yaml (a FleetWindows is one; reading overrides needs no kustomize). */
export interface RepositoryView {
  files: RepoFiles;
  repository: RepositoryFile | null;
}

/** Every override file of every cluster of fluxgate.yaml (windows/overrides/*.yaml). */
export async function readOverrideFiles(fleet: RepositoryView): Promise<OverrideFile[]> {
  const out: OverrideFile[] = [];
  for (const cluster of fleet.repository?.clusters ?? []) {
    const dir = `${windowsDir(cluster)}/overrides`;
    for (const e of (await fleet.files.list(dir)) ?? []) {
      const m = /^(.+)\.yaml$/.exec(e.name);
      if (e.dir || m === null) continue;
      const text = await fleet.files.text(`${dir}/${e.name}`);
      if (text !== null) out.push({ cluster, name: m[1] as string, text });
    }
  }
  return out;
}

/**
 * Plans a fleet override (a fleet freeze, or a fleet open) on every cluster whose labels match
 * `selector`: one WindowOverride per window each cluster runs, as kustomize renders its windows
 * folder. Throws a RepositoryInputError, planning nothing, when a selected cluster's windows do
 * not build or the request is refused (see planFleetOverride).
 *
 * @example const fleet = await FleetWindows.open(dir); const plan = await planFleetOverrideOn(fleet, "region=eu", { action: "Freeze", until, reason, now });
 */
export async function planFleetOverrideOn(
  fleet: FleetWindows,
  selector: string,
  request: FleetOverrideRequest,
): Promise<{ name: string; changes: FileChange[]; overrides: Array<{ cluster: string; name: string; window: string }> }> {
  const clusters = selectClusters(fleet.repository, selector);
  const existing = await readOverrideFiles(fleet);
  const inputs = await Promise.all(
    clusters.map(async (entry) => {
      const rendered = await fleet.of(entry, request.now);
      if (rendered.error !== null)
        throw new RepositoryInputError(`cluster ${entry.name}: ${windowsDir(entry)} does not build, so its windows are not known: ${rendered.error}`);
      return { entry, windows: rendered.windows.map((w) => w.name), overrides: existing.filter((f) => f.cluster.name === entry.name).map((f) => f.name) };
    }),
  );
  const texts = new Map<string, string | null>();
  for (const c of clusters) texts.set(windowsKustomizationFile(c), await fleet.files.text(windowsKustomizationFile(c)));
  if (request.name !== undefined && listFleetOverrides(existing, request.now).some((l) => l.name === request.name)) {
    throw new RepositoryInputError(`a fleet override named ${request.name} exists: give another --name, or end it first`);
  }
  return planFleetOverride(inputs, (p) => texts.get(p) ?? null, request);
}

/** The fleet overrides of the repository, newest end first. */
export async function fleetOverridesOn(fleet: RepositoryView, now: number): Promise<FleetOverrideListing[]> {
  return listFleetOverrides(await readOverrideFiles(fleet), now);
}

/** Plans the end of a fleet override on every cluster that has a part of it. */
export async function planFleetOverrideEndOn(
  fleet: RepositoryView,
  name: string,
  now: number,
): Promise<{ changes: FileChange[]; listing: FleetOverrideListing }> {
  const files = await readOverrideFiles(fleet);
  const texts = new Map<string, string | null>();
  for (const c of fleet.repository?.clusters ?? []) texts.set(windowsKustomizationFile(c), await fleet.files.text(windowsKustomizationFile(c)));
  return planFleetOverrideEnd(name, files, (p) => texts.get(p) ?? null, now);
}
