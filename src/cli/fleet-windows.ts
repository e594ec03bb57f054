// `fluxgate fleet window add|patch|list`: one window for many clusters, a cluster's patch of it, and who takes which.

import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { isScalar, parseAllDocuments } from "yaml";
import { readFiles, summary, unifiedDiff, writeChanges, type FileChange } from "../gitops/changes.ts";
import { RepositoryInputError } from "../gitops/errors.ts";
import { readRepositoryFile, RepoFiles, requireDirectory } from "../gitops/files.ts";
import { windowFile, windowsKustomizationFile, type RepositoryFile } from "../gitops/layout.ts";
import { FLEET_WINDOWS_DIR, fleetKustomizationFile, fleetWindowFile } from "../gitops/fleet/layout.ts";
import {
  FLEET_FOLDER_FILE,
  fleetWindowLeftovers,
  listFolderWindows,
  planFolderWindowAdd,
  planFleetWindowRemove,
  usesFleetFolder,
} from "../gitops/fleet/folder.ts";
import { inContext } from "../errors.ts";
import { validateWindow } from "../api/index.ts";
import {
  fleetWindowAddPaths,
  fleetWindowsOf,
  listFleetWindows,
  planFleetWindowAdd,
  planFleetWindowPatch,
  planFleetWindowUnpatch,
  type FleetWindowListing,
} from "../gitops/fleet/windows.ts";
import { clusterMatches } from "../gitops/fleet/select.ts";
import { parseSelector } from "../policy/index.ts";
import { isJson } from "../gitops/objects.ts";
import { table } from "./format/table.ts";
import { list, outputOf, str, type CommandResult, type Values } from "./command.ts";

/** Runs `fluxgate fleet window add NAME` (its spec: specs.ts). */
export function runFleetWindowAdd(v: Values, [name]: string[]): Promise<CommandResult> {
  return fleetWindowAdd({
    repo: str(v.repo) ?? ".",
    name: name as string,
    selector: str(v.selector),
    start: str(v.start),
    end: str(v.end),
    duration: str(v.duration),
    timeZone: str(v["time-zone"]),
    targets: list(v.target),
    file: str(v.file),
    dryRun: v["dry-run"] === true,
    now: Date.now(),
  });
}

/** Runs `fluxgate fleet window patch NAME` (its spec: specs.ts). */
export function runFleetWindowPatch(v: Values, [name]: string[]): Promise<CommandResult> {
  return fleetWindowPatch({
    repo: str(v.repo) ?? ".",
    name: name as string,
    cluster: str(v.cluster),
    timeZone: str(v["time-zone"]),
    start: str(v.start),
    end: str(v.end),
    duration: str(v.duration),
    remove: v.remove === true,
    dryRun: v["dry-run"] === true,
    now: Date.now(),
  });
}

/** Runs `fluxgate fleet window list` (its spec: specs.ts). */
export function runFleetWindowList(v: Values): Promise<CommandResult> {
  return fleetWindowList({ repo: str(v.repo) ?? ".", selector: str(v.selector), output: outputOf(v.output, ["table", "json"] as const, "table") });
}

/** A window's timing and targets given as flags (or `--file`). */
export interface WindowFlags {
  timeZone?: string | undefined;
  start?: string | undefined;
  end?: string | undefined;
  duration?: string | undefined;
  /** `--target KIND/NAME`, repeatable. */
  targets?: readonly string[] | undefined;
  /** `--file W.yaml`: a ReconciliationWindow manifest (its spec is taken). */
  file?: string | undefined;
}

export interface FleetWindowAddOptions extends WindowFlags {
  repo: string;
  name: string;
  selector: string | undefined;
  dryRun: boolean;
  now: number;
}

export interface FleetWindowPatchOptions {
  repo: string;
  name: string;
  cluster: string | undefined;
  timeZone?: string | undefined;
  start?: string | undefined;
  end?: string | undefined;
  duration?: string | undefined;
  /** Remove the cluster's patch of the window instead of writing one. */
  remove?: boolean | undefined;
  dryRun: boolean;
  now: number;
}

export interface FleetWindowListOptions {
  repo: string;
  selector?: string | undefined;
  output: "table" | "json";
}

/** One schedule from --start with --end or --duration; undefined when none is given. */
function scheduleOf(flags: { start?: string | undefined; end?: string | undefined; duration?: string | undefined }): Record<string, string> | undefined {
  if (flags.start === undefined) {
    if (flags.end !== undefined || flags.duration !== undefined) throw new RepositoryInputError("--end and --duration go with --start CRON");
    return undefined;
  }
  if ((flags.end === undefined) === (flags.duration === undefined))
    throw new RepositoryInputError(`--start ${flags.start}: give the end of each interval: --end CRON or --duration D (one of them)`);
  return flags.end !== undefined ? { start: flags.start, end: flags.end } : { start: flags.start, duration: flags.duration as string };
}

/** `KIND/NAME` of --target. */
function targetOf(text: string): { kind: string; name: string } {
  const m = /^([A-Za-z][A-Za-z0-9]*)\/(.+)$/.exec(text);
  if (m === null) throw new RepositoryInputError(`--target ${text}: give KIND/NAME, e.g. --target Kustomization/apps-rw`);
  return { kind: m[1] as string, name: m[2] as string };
}

/** The spec a fleet window is made of: from --file, or from the flags. */
async function specOf(options: FleetWindowAddOptions): Promise<unknown> {
  if (options.file !== undefined) {
    if (options.start !== undefined || options.timeZone !== undefined || (options.targets ?? []).length > 0) {
      throw new RepositoryInputError("give the window with --file, or with --start, --time-zone and --target, not both");
    }
    let manifest: unknown;
    try {
      // Documents with nothing in them (as after a trailing "---") are not windows.
      const documents = parseAllDocuments(await readFile(options.file, "utf8")).filter(
        (d) => d.errors.length > 0 || !(d.contents === null || (isScalar(d.contents) && d.contents.value === null)),
      );
      if (documents.length > 1)
        throw new RepositoryInputError(
          `--file ${options.file}: the file has ${documents.length} YAML documents; one window definition (a ReconciliationWindow manifest) expected`,
        );
      const error = documents[0]?.errors[0];
      if (error !== undefined) throw error;
      manifest = documents[0]?.toJS() ?? null;
    } catch (e) {
      if (e instanceof RepositoryInputError) throw e;
      throw new RepositoryInputError(
        `--file ${options.file}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : e instanceof Error ? e.message : String(e)}`,
        { cause: e },
      );
    }
    if (!isJson(manifest) || manifest.kind !== "ReconciliationWindow" || !isJson(manifest.spec))
      throw new RepositoryInputError(`--file ${options.file}: expected one ReconciliationWindow manifest`);
    const name = isJson(manifest.metadata) ? manifest.metadata.name : undefined;
    if (name !== undefined && name !== options.name)
      throw new RepositoryInputError(`--file ${options.file}: the window is named ${JSON.stringify(name)}, not ${options.name}`);
    return manifest.spec;
  }
  const schedule = scheduleOf(options);
  if (schedule === undefined)
    throw new RepositoryInputError("give the window: --start CRON with --end CRON or --duration D, and --target KIND/NAME (or --file W.yaml)");
  const targets = (options.targets ?? []).map(targetOf);
  if (targets.length === 0) throw new RepositoryInputError("give what the window governs: --target KIND/NAME, e.g. --target Kustomization/apps-rw");
  return { ...(options.timeZone === undefined ? {} : { timeZone: options.timeZone }), schedules: [schedule], targets };
}

async function open(repo: string): Promise<{ root: string; repository: RepositoryFile | null }> {
  const root = resolve(repo);
  await requireDirectory(root, "repository");
  return { root, repository: await readRepositoryFile(new RepoFiles(root)) };
}

/** Writes (or with dryRun shows) planned changes. */
async function apply(root: string, changes: FileChange[], dryRun: boolean, done: string): Promise<string> {
  if (dryRun) return unifiedDiff(changes);
  await writeChanges(root, changes);
  return `${summary(changes).join("\n")}\n${done}\n`;
}

/**
 * Adds a fleet window: its base under fleet/windows/<name>/ and an entry in each selected
 * cluster's windows/kustomization.yaml. Nothing is written when any part is refused.
 *
 * @example await fleetWindowAdd({ repo: ".", name: "prod-changes", selector: "ring=prod", start: "0 8 * * MON-THU", end: "0 17 * * MON-THU", targets:
 * ["Kustomization/apps-rw"], dryRun: true, now: Date.now() })
 */
export async function fleetWindowAdd(options: FleetWindowAddOptions): Promise<string> {
  if (options.selector === undefined)
    throw new RepositoryInputError(
      "give the clusters: --selector SELECTOR (Kubernetes label-selector syntax over the labels of fluxgate.yaml), e.g. --selector ring=prod",
    );
  const { root, repository } = await open(options.repo);
  const spec = await specOf(options);
  const request = { name: options.name, selector: options.selector, spec };
  const folder = await readFiles(root, [FLEET_FOLDER_FILE]);
  if (usesFleetFolder((p) => folder.get(p) ?? null)) {
    // The fleet folder: the window once, with its clusterSelector; no cluster's file changes.
    const paths = [
      FLEET_FOLDER_FILE,
      fleetWindowFile(options.name),
      fleetKustomizationFile(options.name),
      ...(repository?.clusters ?? []).map((c) => windowFile(c, options.name)),
    ];
    const current = await readFiles(root, paths);
    const { changes, clusters } = planFolderWindowAdd(
      repository,
      (p) => current.get(p) ?? null,
      request,
      (manifest) => inContext({ field: `fleet window ${options.name}`, as: RepositoryInputError }, () => validateWindow(manifest, options.now)),
    );
    return apply(
      root,
      changes,
      options.dryRun,
      `Fleet window ${options.name} is in ${fleetWindowFile(options.name)}, for the ${clusters.length} cluster${clusters.length === 1 ? "" : "s"} its clusterSelector matches: ${clusters.map((c) => c.name).join(", ")}.`,
    );
  }
  const current = await readFiles(root, fleetWindowAddPaths(repository, request));
  const { changes, clusters } = planFleetWindowAdd(repository, (p) => current.get(p) ?? null, request, options.now);
  return apply(
    root,
    changes,
    options.dryRun,
    `Fleet window ${options.name} is in ${fleetWindowFile(options.name)}, taken by ${clusters.length} cluster${clusters.length === 1 ? "" : "s"}: ${clusters.map((c) => c.name).join(", ")}.`,
  );
}

/** Writes (or shows) a cluster's patch of a fleet window, or with `remove` removes it. */
export async function fleetWindowPatch(options: FleetWindowPatchOptions): Promise<string> {
  if (options.cluster === undefined) throw new RepositoryInputError("give the cluster whose window differs: --cluster NAME");
  if (options.remove === true) return fleetWindowUnpatch({ ...options, cluster: options.cluster });
  const { root, repository } = await open(options.repo);
  const schedule = scheduleOf(options);
  const entry = repository?.clusters.find((c) => c.name === options.cluster);
  const current = await readFiles(root, [fleetWindowFile(options.name), ...(entry === undefined ? [] : [windowsKustomizationFile(entry)])]);
  const changes = planFleetWindowPatch(
    repository,
    (p) => current.get(p) ?? null,
    { name: options.name, cluster: options.cluster, timeZone: options.timeZone, schedules: schedule === undefined ? undefined : [schedule] },
    options.now,
  );
  if (summary(changes).length === 0) return `Cluster ${options.cluster} already patches fleet window ${options.name} so; nothing changed.\n`;
  return apply(root, changes, options.dryRun, `Cluster ${options.cluster} patches fleet window ${options.name}; fluxgate check renders it with kustomize.`);
}

/** Removes (or shows the removal of) a cluster's patch of a fleet window: the cluster takes the base again. */
async function fleetWindowUnpatch(options: FleetWindowPatchOptions & { cluster: string }): Promise<string> {
  const flags = { "--time-zone": options.timeZone, "--start": options.start, "--end": options.end, "--duration": options.duration };
  const given = Object.entries(flags)
    .filter(([, v]) => v !== undefined)
    .map(([flag]) => flag);
  if (given.length > 0) throw new RepositoryInputError(`--remove takes the cluster's patch away: give it without ${given.join(", ")}`);
  const { root, repository } = await open(options.repo);
  const entry = repository?.clusters.find((c) => c.name === options.cluster);
  const current = await readFiles(root, entry === undefined ? [] : [windowsKustomizationFile(entry)]);
  const changes = planFleetWindowUnpatch(repository, (p) => current.get(p) ?? null, { name: options.name, cluster: options.cluster });
  return apply(
    root,
    changes,
    options.dryRun,
    `Cluster ${options.cluster} takes fleet window ${options.name} as its base says again; fluxgate check renders it with kustomize.`,
  );
}

export interface FleetWindowRemoveOptions {
  repo: string;
  name: string;
  dryRun: boolean;
}

/** Runs `fluxgate fleet window remove NAME` (its spec: specs.ts). */
export function runFleetWindowRemove(v: Values, [name]: string[]): Promise<CommandResult> {
  return fleetWindowRemove({ repo: str(v.repo) ?? ".", name: name as string, dryRun: v["dry-run"] === true });
}

/**
 * Removes a fleet window: its base, its entry in fleet/kustomization.yaml (or, in the per-cluster
 * layout, in each including cluster's windows/kustomization.yaml), and the patches of it that
 * clusters keep. Flux prunes the window from every cluster once the change is pushed.
 */
export async function fleetWindowRemove(options: FleetWindowRemoveOptions): Promise<string> {
  const { root, repository } = await open(options.repo);
  const clusters = repository?.clusters ?? [];
  const current = await readFiles(root, [
    FLEET_FOLDER_FILE,
    fleetWindowFile(options.name),
    fleetKustomizationFile(options.name),
    ...clusters.map(windowsKustomizationFile),
  ]);
  const read = (p: string): string | null => current.get(p) ?? null;
  const cleaned = clusters.map((c) => fleetWindowLeftovers(c, options.name, read)).filter((c): c is FileChange => c !== null);
  const changes = planFleetWindowRemove(read, options.name, cleaned);
  return apply(root, changes, options.dryRun, `Fleet window ${options.name} is removed; Flux prunes it from every cluster once the change is pushed.`);
}

/** The fleet windows, the clusters that take each (`*` after a cluster that patches it), and the matching clusters that do not. */
export async function fleetWindowList(options: FleetWindowListOptions): Promise<string> {
  const { root, repository } = await open(options.repo);
  const files = new RepoFiles(root);
  const names = ((await files.list(FLEET_WINDOWS_DIR)) ?? []).filter((e) => e.dir).map((e) => e.name);
  const paths = [FLEET_FOLDER_FILE, ...names.map(fleetWindowFile), ...(repository?.clusters ?? []).map(windowsKustomizationFile)];
  const current = await readFiles(root, paths);
  const read = (p: string): string | null => current.get(p) ?? null;
  let listing: FleetWindowListing[] = usesFleetFolder(read) ? listFolderWindows(repository, read) : listFleetWindows(repository, names, read);
  if (options.selector !== undefined) {
    const selector = parseSelector(options.selector);
    listing = fleetWindowsOf(listing, new Set((repository?.clusters ?? []).filter((c) => clusterMatches(c, selector)).map((c) => c.name)));
  }
  if (options.output === "json") return `${JSON.stringify({ fleetWindows: listing }, null, 2)}\n`;
  if (listing.length === 0)
    return `No fleet windows${options.selector === undefined ? "" : ` for clusters matching ${options.selector}`} (${FLEET_WINDOWS_DIR}/ is empty).\n`;
  const rows = listing.map((w) => [
    w.name,
    w.selector ?? "(none)",
    w.clusters.map((c) => `${c.name}${c.patched ? "*" : ""}${c.labelsMatch ? "" : "!"}`).join(",") || "-",
    w.missing.join(",") || "-",
  ]);
  return `${table(["NAME", "SELECTOR", "CLUSTERS", "NOT INCLUDED"], rows)}\n* patches it for itself; ! its labels no longer match the selector.\n`;
}
