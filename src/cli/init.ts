// `fluxgate init`: scaffolds the window-enabled layout of one cluster in a GitOps repository, idempotently.

import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import { readFiles, summary, unifiedDiff, writeChanges } from "../gitops/changes.ts";
import { initPaths, parseTypes, planInit, planRepositoryFile } from "../gitops/init.ts";
import { REPOSITORY_FILE } from "../gitops/layout.ts";
import { requireDirectory } from "../gitops/files.ts";
import { RepositoryInputError } from "../gitops/errors.ts";

export interface InitOptions {
  /** The repository's root directory; created when missing (not with dryRun). */
  repo: string;
  cluster: string | undefined;
  /** `--path`: the cluster's bootstrap path; default clusters/<cluster>. */
  path: string | undefined;
  /** `--types rt,rw`. */
  types: string | undefined;
  timeZone: string | undefined;
  /** Print the unified diff and write nothing. */
  dryRun: boolean;
}

/**
 * Plans and writes (or, with dryRun, shows) the layout of one cluster.
 *
 * @example await init({ repo: ".", cluster: "edge-berlin", path: undefined, types: "rt,rw", timeZone: "Europe/Berlin", dryRun: true })
 */
export async function init(options: InitOptions): Promise<string> {
  if (options.cluster === undefined) throw new RepositoryInputError("give the cluster: --cluster NAME");
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
  });
  const current = exists ? await readFiles(root, initPaths(plan)) : new Map<string, string | null>();
  const changes = planInit(plan, current, repositoryBefore);
  if (options.dryRun) return unifiedDiff(changes);
  const done = summary(changes);
  if (done.length === 0) return `Cluster ${plan.cluster.name} is already set up; nothing changed.\n`;
  if (!exists) await mkdir(root, { recursive: true });
  await writeChanges(root, changes);
  return `${done.join("\n")}\nCluster ${plan.cluster.name} is set up at ${plan.cluster.path}; edit the placeholder schedules in ${plan.cluster.path}/windows/.\n`;
}
