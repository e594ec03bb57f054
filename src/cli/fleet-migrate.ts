// `fluxgate fleet migrate`: converts a repository to the fleet folder (every cluster includes fleet/ once; fleet windows carry their clusterSelector), with a
// proof that no cluster's effective windows change.

import { resolve } from "node:path";
import { readFiles, summary, unifiedDiff, writeChanges } from "../gitops/changes.ts";
import { RepositoryInputError } from "../gitops/errors.ts";
import { readRepositoryFile, RepoFiles, requireDirectory } from "../gitops/files.ts";
import { windowsKustomizationFile } from "../gitops/layout.ts";
import { fleetWindowFile } from "../gitops/fleet/layout.ts";
import { FLEET_FOLDER_FILE, identityFile } from "../gitops/fleet/folder.ts";
import { fleetWindowsToMigrate, planFleetMigrate, proveFleetMigrate } from "../gitops/fleet/migrate.ts";
import { str, type CommandResult, type Values } from "./command.ts";

export interface FleetMigrateOptions {
  repo: string;
  dryRun: boolean;
  kustomize?: string | undefined;
  env: NodeJS.ProcessEnv;
  now: number;
}

/** Runs `fluxgate fleet migrate` (its spec: specs.ts). */
export function runFleetMigrate(v: Values): Promise<CommandResult> {
  return fleetMigrate({ repo: str(v.repo) ?? ".", dryRun: v["dry-run"] === true, kustomize: str(v.kustomize), env: process.env, now: Date.now() });
}

/**
 * Converts the repository to the fleet folder, proven first: nothing is written unless every
 * cluster's effective windows (as kustomize renders them, before and after) are the same.
 *
 * @example await fleetMigrate({ repo: ".", dryRun: true, env: process.env, now: Date.now() })
 */
export async function fleetMigrate(options: FleetMigrateOptions): Promise<string> {
  const root = resolve(options.repo);
  await requireDirectory(root, "repository");
  const files = new RepoFiles(root);
  const repository = await readRepositoryFile(files);
  const names = await fleetWindowsToMigrate(files);
  const clusters = repository?.clusters ?? [];
  const current = await readFiles(root, [
    FLEET_FOLDER_FILE,
    ...names.map(fleetWindowFile),
    ...clusters.flatMap((c) => [windowsKustomizationFile(c), identityFile(c)]),
  ]);
  const changes = planFleetMigrate(repository, names, (p) => current.get(p) ?? null);
  const proof = await proveFleetMigrate(root, changes, options);
  if (proof.differ.length > 0) {
    const first = proof.differ[0] as { cluster: string; before: string; after: string };
    throw new RepositoryInputError(
      `the fleet folder would change what ${proof.differ.length} cluster(s) run (${proof.differ.map((d) => d.cluster).join(", ")}); nothing was written. ${first.cluster} before: ${first.before}; after: ${first.after}`,
    );
  }
  const said = `Proof: the effective windows of all ${proof.clusters} cluster${proof.clusters === 1 ? "" : "s"} (${proof.windows} window${proof.windows === 1 ? "" : "s"}) are the same before and after, as kustomize renders them.`;
  if (options.dryRun) return `${unifiedDiff(changes)}${said}\n`;
  await writeChanges(root, changes);
  return `${summary(changes).join("\n")}\n${said}\nEvery cluster includes the fleet folder once: commit this change; from now on a fleet window or fleet freeze is a change to fleet/ alone.\n`;
}
