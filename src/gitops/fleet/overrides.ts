// Fleet overrides (a fleet freeze): one WindowOverride per window of every selected cluster, in the clusters' overrides/ folders, sharing one name by a label.

import { parse } from "yaml";
import { OVERRIDE_REQUESTED_AT, OVERRIDE_REQUESTED_BY, parseWith, WindowOverrideSpecSchema, API_VERSION, type WindowOverrideSpec } from "../../api/index.ts";
import { inContext } from "../../errors.ts";
import { rfc3339 } from "../../schedule/format.ts";
import { OVERRIDE_LIMIT, overrideEndProblem, overrideName, overrideStage, overrideTiming } from "../../policy/index.ts";
import type { FileChange } from "../changes.ts";
import { RepositoryInputError } from "../errors.ts";
import { FLUX_NAMESPACE, overrideFile, windowsKustomizationFile, type ClusterEntry } from "../layout.ts";
import { field, isJson, str, type Json } from "../objects.ts";
import { editList, listItems } from "../yaml-edit.ts";
import { FLEET_OVERRIDE_LABEL } from "./layout.ts";
import { yamlText } from "./text.ts";
import type { ReadText } from "./windows.ts";

/** What a fleet override asks for. `until` and `now` are epoch ms. */
export interface FleetOverrideRequest {
  /** Shared by every override it writes; default `fleet-freeze-<UTC time>` (or `fleet-open-`). */
  name?: string | undefined;
  action: "Freeze" | "Open";
  until: number;
  reason: string;
  /** Only these windows of each cluster; default: every window the cluster has. */
  windows?: readonly string[] | undefined;
  now: number;
  /** Who asked (the fluxgate.io/requested-by annotation), when known. */
  requestedBy?: string | undefined;
}

/** A selected cluster as the plan needs it: its windows (as kustomize renders them) and its override files. */
export interface FleetOverrideCluster {
  entry: ClusterEntry;
  /** Names of the windows the cluster runs. */
  windows: readonly string[];
  /** Names of the override files it has (overrides/<name>.yaml). */
  overrides: readonly string[];
}

/**
 * The manifest of a WindowOverride that fluxgate commits to Git, as the Config Service writes
 * them: stamped with when it was asked for (and by whom), plus `labels`.
 */
export function committedOverrideManifest(
  name: string,
  spec: WindowOverrideSpec,
  requestedAt: number,
  options: { requestedBy?: string | undefined; labels?: Record<string, string> } = {},
): Json {
  const annotations: Record<string, string> = { [OVERRIDE_REQUESTED_AT]: rfc3339(Math.floor(requestedAt / 1000) * 1000) };
  if (options.requestedBy !== undefined) annotations[OVERRIDE_REQUESTED_BY] = options.requestedBy;
  const labels = options.labels === undefined || Object.keys(options.labels).length === 0 ? {} : { labels: options.labels };
  return { apiVersion: API_VERSION, kind: "WindowOverride", metadata: { name, namespace: FLUX_NAMESPACE, ...labels, annotations }, spec };
}

/** The override name for one window of a fleet override: `<fleet override>-<window>`, within 253 characters. */
export function fleetOverrideName(fleetName: string, window: string): string {
  return `${fleetName}-${window}`.slice(0, 253).replace(/[-.]+$/, "");
}

const NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * Plans a fleet override: for each cluster, one WindowOverride per window (overrides/<name>-<window>.yaml,
 * labelled fluxgate.io/fleet-override: <name>) and their entries in windows/kustomization.yaml.
 * Refused, with nothing planned: a bad name, reason or end (in the past, or more than 7 days
 * ahead), a cluster without windows (a freeze would hold nothing there), a name already used.
 */
export function planFleetOverride(
  clusters: readonly FleetOverrideCluster[],
  read: ReadText,
  request: FleetOverrideRequest,
): { name: string; changes: FileChange[]; overrides: Array<{ cluster: string; name: string; window: string }> } {
  const name = request.name ?? overrideName("fleet", request.action, request.now);
  if (!NAME.test(name))
    throw new RepositoryInputError(
      `--name ${name}: must be a DNS label (lower-case letters, digits and '-', at most 63 characters): it names every override of the fleet ${request.action === "Freeze" ? "freeze" : "override"}`,
    );
  if (request.reason.trim() === "") throw new RepositoryInputError('--reason is required: say why, e.g. --reason "incident INC-7 in region eu"');
  if (Number.isNaN(request.until)) throw new RepositoryInputError("--until: not a date-time");
  const until = Math.ceil(request.until / 1000) * 1000;
  const wrong = overrideEndProblem(until, request.now);
  if (wrong?.problem === "not in the future") throw new RepositoryInputError(`--until ${rfc3339(until)} is not in the future`);
  if (wrong?.problem === "too long")
    throw new RepositoryInputError(`--until ${rfc3339(until)}: ${OVERRIDE_LIMIT}: for longer, change the windows' freezes in Git`);
  let spec: WindowOverrideSpec;
  const changes: FileChange[] = [];
  const overrides: Array<{ cluster: string; name: string; window: string }> = [];
  for (const c of clusters) {
    const windows = request.windows === undefined ? [...c.windows] : request.windows.filter((w) => c.windows.includes(w));
    if (windows.length === 0) {
      const what = request.windows === undefined ? "no window" : `none of the windows ${request.windows.join(", ")} (it has ${c.windows.join(", ") || "none"})`;
      throw new RepositoryInputError(
        `cluster ${c.entry.name} has ${what}: an override there would hold nothing; leave it out of --selector, or give it a window first`,
      );
    }
    const file = windowsKustomizationFile(c.entry);
    const text = read(file);
    if (text === null) throw new RepositoryInputError(`cluster ${c.entry.name} has no ${file}: set it up with fluxgate init . --cluster ${c.entry.name}`);
    const entries: string[] = [];
    for (const window of windows) {
      const overrideNameOf = fleetOverrideName(name, window);
      if (c.overrides.includes(overrideNameOf))
        throw new RepositoryInputError(
          `cluster ${c.entry.name} already has an override named ${overrideNameOf}: give the fleet ${request.action === "Freeze" ? "freeze" : "override"} another --name`,
        );
      spec = inContext({ as: RepositoryInputError }, () =>
        parseWith(
          WindowOverrideSpecSchema,
          { windowRef: { name: window }, action: request.action, until: rfc3339(until), reason: request.reason.trim() },
          "spec",
        ),
      );
      const manifest = committedOverrideManifest(overrideNameOf, spec, request.now, {
        requestedBy: request.requestedBy,
        labels: { [FLEET_OVERRIDE_LABEL]: name },
      });
      changes.push({ path: overrideFile(c.entry, overrideNameOf), before: null, after: yamlText(manifest) });
      entries.push(`overrides/${overrideNameOf}.yaml`);
      overrides.push({ cluster: c.entry.name, name: overrideNameOf, window });
    }
    changes.push({ path: file, before: text, after: editList(text, "resources", file, () => "keep", entries) });
  }
  return { name, changes, overrides };
}

/** One fleet override as listed: its parts on each cluster, and where it is in its life. */
export interface FleetOverrideListing {
  name: string;
  action: string;
  until: string;
  reason: string;
  requestedAt: string | null;
  /** pending, active, expired or cancelled (policy/override.ts), as of `now`. */
  stage: string;
  overrides: Array<{ cluster: string; name: string; window: string; file: string }>;
}

/** An override file of a cluster, read; `manifest` is its YAML when already parsed (the service's model has it). */
export interface OverrideFile {
  cluster: ClusterEntry;
  name: string;
  text: string;
  manifest?: unknown;
  /** A freeze of the fleet folder that matches the cluster: the freeze (its file's name) and its file, fleet/freezes/<freeze>.yaml. */
  folderFreeze?: { name: string; file: string };
}

/** The fleet override an override file belongs to (its label), with what it says; null for other files. */
function readFleetOverride(f: OverrideFile): { fleet: string; manifest: Json } | null {
  let v: unknown = f.manifest;
  if (!("manifest" in f)) {
    try {
      v = parse(f.text);
    } catch {
      return null;
    }
  }
  const fleet = f.folderFreeze?.name ?? str(field(v, "metadata", "labels", FLEET_OVERRIDE_LABEL));
  return fleet === undefined || !isJson(v) ? null : { fleet, manifest: v };
}

/** A fleet override as its files say, whatever the time: listFleetOverrides adds its stage. */
export type FleetOverrideGroup = Omit<FleetOverrideListing, "stage"> & { annotations: Json | undefined };

/** The fleet overrides in the clusters' override files, grouped by name (what does not depend on the time: a service keeps it per commit). */
export function groupFleetOverrides(files: readonly OverrideFile[]): FleetOverrideGroup[] {
  const grouper = new FleetOverrideGrouper();
  grouper.add(files);
  return grouper.groups();
}

/**
 * groupFleetOverrides a part at a time, for a caller that cuts the loop over thousands of clusters
 * into short turns: add() each cluster's override files, then groups() (in the order they first appear).
 */
export class FleetOverrideGrouper {
  private readonly byName = new Map<string, FleetOverrideGroup>();

  /** More override files: each fleet override's part joins its group. */
  add(files: readonly OverrideFile[]): void {
    for (const f of files) {
      const read = readFleetOverride(f);
      if (read === null) continue;
      const spec = read.manifest.spec;
      let group = this.byName.get(read.fleet);
      if (group === undefined) {
        const annotations = field(read.manifest, "metadata", "annotations");
        group = {
          name: read.fleet,
          action: str(field(spec, "action")) ?? "",
          until: str(field(spec, "until")) ?? "",
          reason: str(field(spec, "reason")) ?? "",
          requestedAt: str(field(annotations, OVERRIDE_REQUESTED_AT)) ?? null,
          annotations: isJson(annotations) ? annotations : undefined,
          overrides: [],
        };
        this.byName.set(read.fleet, group);
      }
      group.overrides.push({
        cluster: f.cluster.name,
        name: f.name,
        // `*`: every window its windowSelector picks (a freeze of the fleet folder), as fleet freeze list says it.
        window: str(field(spec, "windowRef", "name")) ?? (field(spec, "windowSelector") === undefined ? "" : "*"),
        file: f.folderFreeze?.file ?? overrideFile(f.cluster, f.name),
      });
    }
  }

  /** The groups of the files added so far. */
  groups(): FleetOverrideGroup[] {
    return [...this.byName.values()];
  }
}

/** The groups as listed at `now`: each with its stage, newest end first. */
export function stageFleetOverrides(groups: readonly FleetOverrideGroup[], now: number): FleetOverrideListing[] {
  const listings = groups.map((g): FleetOverrideListing => {
    let stage: string;
    try {
      stage = overrideStage(overrideTiming({ annotations: g.annotations, until: g.until }, now), now);
    } catch {
      stage = "invalid";
    }
    return { name: g.name, action: g.action, until: g.until, reason: g.reason, requestedAt: g.requestedAt, stage, overrides: g.overrides };
  });
  return listings.sort((a, b) => (a.until > b.until ? -1 : a.until < b.until ? 1 : a.name < b.name ? -1 : 1));
}

/** Every fleet override found in the clusters' override files, newest end first. */
export function listFleetOverrides(files: readonly OverrideFile[], now: number): FleetOverrideListing[] {
  return stageFleetOverrides(groupFleetOverrides(files), now);
}

/**
 * Plans the end of a fleet override everywhere: its override files removed and their entries
 * dropped from each cluster's windows/kustomization.yaml (Flux prunes the overrides; Git keeps
 * the record). Refused when no override carries the name.
 */
export function planFleetOverrideEnd(
  name: string,
  files: readonly OverrideFile[],
  read: ReadText,
  now: number,
): { changes: FileChange[]; listing: FleetOverrideListing } {
  const listing = listFleetOverrides(files, now).find((l) => l.name === name);
  if (listing === undefined) {
    const known = listFleetOverrides(files, now).map((l) => l.name);
    throw new RepositoryInputError(`no fleet override is named ${name} (fleet overrides: ${known.join(", ") || "none"})`);
  }
  const changes: FileChange[] = [];
  const byCluster = new Map<string, Array<{ name: string; file: string }>>();
  for (const o of listing.overrides) byCluster.set(o.cluster, [...(byCluster.get(o.cluster) ?? []), o]);
  for (const f of files) {
    const mine = byCluster.get(f.cluster.name)?.some((o) => o.name === f.name) === true;
    if (mine) changes.push({ path: overrideFile(f.cluster, f.name), before: f.text, after: null });
  }
  const clusters = new Map(files.map((f) => [f.cluster.name, f.cluster]));
  for (const [cluster, overrides] of byCluster) {
    const edit = dropOverrideEntries(clusters.get(cluster) as ClusterEntry, overrides, read);
    if (edit !== null) changes.push(edit);
  }
  return { changes, listing };
}

/** The edit of a cluster's windows/kustomization.yaml that drops the entries of `overrides`; null when it has none of them (or no such file). */
export function dropOverrideEntries(entry: ClusterEntry, overrides: ReadonlyArray<{ name: string }>, read: ReadText): FileChange | null {
  const file = windowsKustomizationFile(entry);
  const text = read(file);
  if (text === null) return null;
  const gone = new Set(overrides.map((o) => `overrides/${o.name}.yaml`));
  const has = listItems(text, "resources", file).some((i) => typeof i.value === "string" && gone.has(i.value.replace(/^\.\//, "")));
  return has
    ? { path: file, before: text, after: editList(text, "resources", file, (v) => (typeof v === "string" && gone.has(v.replace(/^\.\//, "")) ? [] : "keep")) }
    : null;
}

/** Fleet overrides narrowed to the clusters `chosen` names (`--selector`, `?selector=`): their parts on those clusters; one with none there goes. */
export function fleetOverridesOf(listing: readonly FleetOverrideListing[], chosen: ReadonlySet<string>): FleetOverrideListing[] {
  return listing.map((l) => ({ ...l, overrides: l.overrides.filter((o) => chosen.has(o.cluster)) })).filter((l) => l.overrides.length > 0);
}
