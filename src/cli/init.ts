// `fluxgate init`: scaffolds the window-enabled layout of one cluster in a GitOps repository, idempotently.

import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import { readFiles, summary, unifiedDiff, writeChanges } from "../gitops/changes.ts";
import { fleetGoverned, fleetWindowPaths, initPaths, parseTypes, planInit, planRepositoryFile } from "../gitops/init.ts";
import { kustomizationName, REPOSITORY_FILE, windowFile } from "../gitops/layout.ts";
import { parseRepositoryFile, RepoFiles, requireDirectory } from "../gitops/files.ts";
import { perClusterFleetWindows, refuseFolderBesidePerCluster } from "../gitops/fleet/migrate.ts";
import { shellWord } from "../gitops/windows.ts";
import { selectClusters } from "../gitops/fleet/select.ts";
import { RepositoryInputError } from "../gitops/errors.ts";
import { str, type CommandResult, type Values } from "./command.ts";

/** Runs `fluxgate init REPO` (its spec: specs.ts). */
export function runInit(v: Values, [repo]: string[]): Promise<CommandResult> {
  return init({
    repo: repo as string,
    cluster: str(v.cluster),
    selector: str(v.selector),
    path: str(v.path),
    types: str(v.types),
    timeZone: str(v["time-zone"]),
    statusUrl: str(v["status-url"]),
    fleetFolder: v["fleet-folder"] === true,
    dryRun: v["dry-run"] === true,
  });
}

export interface InitOptions {
  /** The repository's root directory; created when missing (not with dryRun). */
  repo: string;
  cluster: string | undefined;
  /** `--path`: the cluster's bootstrap path; default clusters/<cluster>. */
  path: string | undefined;
  /** `--types rt,rw`. */
  types: string | undefined;
  timeZone: string | undefined;
  /** `--selector`: instead of --cluster, every cluster of fluxgate.yaml whose labels match (Kubernetes label-selector syntax). */
  selector?: string | undefined;
  /** `--status-url`: also write the Provider and Alert that push the cluster's status to the Config Service at this address. */
  statusUrl?: string | undefined;
  /** `--fleet-folder`: start the fleet folder when the repository has none (a new fleet), and include it in each cluster set up. */
  fleetFolder?: boolean | undefined;
  /** Print the unified diff and write nothing. */
  dryRun: boolean;
}

/**
 * Plans and writes (or, with dryRun, shows) the layout of one cluster.
 *
 * @example await init({ repo: ".", cluster: "edge-berlin", path: undefined, types: "rt,rw", timeZone: "Europe/Berlin", dryRun: true })
 */
export async function init(options: InitOptions): Promise<string> {
  if (options.selector !== undefined) return initSelected(options, options.selector);
  if (options.cluster === undefined) throw new RepositoryInputError("give the cluster: --cluster NAME, or the clusters of fluxgate.yaml: --selector SELECTOR");
  const root = resolve(options.repo);
  const exists = await requireDirectory(root, "repository").then(
    () => true,
    () => false,
  );
  const before = exists ? await readFiles(root, [REPOSITORY_FILE]) : new Map<string, string | null>();
  const repositoryBefore = before.get(REPOSITORY_FILE) ?? null;
  const plan = planRepositoryFile(repositoryBefore, {
    cluster: options.cluster,
    path: options.path,
    types: options.types === undefined ? undefined : parseTypes(options.types),
    timeZone: options.timeZone,
    statusUrl: options.statusUrl,
    fleetFolder: options.fleetFolder,
  });
  const current = exists ? await readFiles(root, initPaths(plan)) : new Map<string, string | null>();
  if (exists)
    for (const [path, text] of await readFiles(
      root,
      fleetWindowPaths(plan, (p) => current.get(p) ?? null),
    ))
      current.set(path, text);
  const changes = planInit(plan, current, repositoryBefore);
  if (exists) await refusePerClusterLayout(options, root);
  if (options.dryRun) return unifiedDiff(changes);
  const done = summary(changes);
  if (done.length === 0) return `Cluster ${plan.cluster.name} is already set up; nothing changed.\n`;
  if (!exists) await mkdir(root, { recursive: true });
  await writeChanges(root, changes);
  const secret =
    options.statusUrl === undefined
      ? ""
      : `Create the Secret ${plan.cluster.path}/fluxgate-status.yaml names in the cluster (its comment says how); the key is never in Git.\n`;
  const governed = [...fleetGoverned(plan, (p) => current.get(p) ?? null)];
  const placeholders = changes.some(
    (c) => c.before === null && plan.file.types.some((t) => t.window && c.path === windowFile(plan.cluster, kustomizationName(t.name))),
  );
  const fleet =
    governed.length === 0
      ? ""
      : `${governed.length === 1 ? "Kustomization" : "Kustomizations"} ${governed.join(", ")} ${governed.length === 1 ? "is" : "are"} governed by the cluster's fleet windows: no placeholder window for ${governed.length === 1 ? "it" : "them"}.\n`;
  return `${done.join("\n")}\nCluster ${plan.cluster.name} is set up at ${plan.cluster.path}${placeholders ? `; edit the placeholder schedules in ${plan.cluster.path}/windows/` : ""}.\n${fleet}${secret}`;
}

/**
 * init for every cluster of fluxgate.yaml that the selector matches (after --types adds types, say):
 * each cluster planned on the files as the clusters before it left them, all written at once.
 */
async function initSelected(options: InitOptions, selector: string): Promise<string> {
  if (options.cluster !== undefined) throw new RepositoryInputError("give --cluster or --selector, not both");
  if (options.path !== undefined) throw new RepositoryInputError("--path names one cluster's directory: give it with --cluster, not --selector");
  const root = resolve(options.repo);
  await requireDirectory(root, "repository");
  const files = await readFiles(root, [REPOSITORY_FILE]);
  const repositoryBefore = files.get(REPOSITORY_FILE) ?? null;
  const chosen = selectClusters(repositoryBefore === null ? null : parseRepositoryFile(repositoryBefore), selector);
  const types = options.types === undefined ? undefined : parseTypes(options.types);
  const firstBefore = new Map<string, string | null>();
  for (const entry of chosen) {
    const repositoryText = files.get(REPOSITORY_FILE) ?? null;
    const plan = planRepositoryFile(repositoryText, {
      cluster: entry.name,
      path: undefined,
      types,
      timeZone: options.timeZone,
      statusUrl: options.statusUrl,
      fleetFolder: options.fleetFolder,
    });
    for (const [path, text] of await readFiles(
      root,
      initPaths(plan).filter((p) => !files.has(p)),
    ))
      files.set(path, text);
    const read = (p: string): string | null => files.get(p) ?? null;
    for (const [path, text] of await readFiles(
      root,
      fleetWindowPaths(plan, read).filter((p) => !files.has(p)),
    ))
      files.set(path, text);
    for (const c of planInit(plan, files, repositoryText)) {
      if (!firstBefore.has(c.path)) firstBefore.set(c.path, c.before);
      files.set(c.path, c.after);
    }
  }
  const changes = [...firstBefore].map(([path, before]) => ({ path, before, after: files.get(path) ?? null }));
  await refusePerClusterLayout(options, root);
  if (options.dryRun) return unifiedDiff(changes);
  const done = summary(changes);
  const names = chosen.map((c) => c.name).join(", ");
  if (done.length === 0) return `Clusters ${names} are already set up; nothing changed.\n`;
  await writeChanges(root, changes);
  return `${done.join("\n")}\nClusters ${names} are set up.\n`;
}

/**
 * --fleet-folder on a repository whose fleet windows are in the per-cluster layout: refused (with --dry-run too), naming them and the fleet migrate command
 * line that moves them into the fleet folder.
 */
async function refusePerClusterLayout(options: InitOptions, root: string): Promise<void> {
  if (options.fleetFolder !== true) return;
  const migrate = root === resolve(".") ? "fluxgate fleet migrate" : `fluxgate fleet migrate --repo ${shellWord(options.repo)}`;
  refuseFolderBesidePerCluster(await perClusterFleetWindows(new RepoFiles(root)), migrate);
}
