// `fluxgate freeze import CALENDAR.ics`: a calendar's events as freezes of a window (or a fleet window) in the GitOps repository, updated by UID.

import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { unifiedDiff, writeChanges, type FileChange } from "../gitops/changes.ts";
import { planFreezeImport, type FreezeImport } from "../gitops/calendar/freeze-merge.ts";
import type { ImportedFreeze } from "../gitops/calendar/ics-import.ts";
import { RepositoryInputError } from "../gitops/errors.ts";
import { readRepositoryFile, RepoFiles, requireDirectory } from "../gitops/files.ts";
import { FleetWindows } from "../gitops/fleet/effective.ts";
import { fleetWindowFile } from "../gitops/fleet/layout.ts";
import { DEFAULT_TIME_ZONE } from "../api/index.ts";
import { windowFile, windowsDir } from "../gitops/layout.ts";
import { field, str as text } from "../gitops/objects.ts";
import { str, type CommandResult, type Values } from "./command.ts";

export interface FreezeImportOptions {
  repo: string;
  /** The .ics file. */
  calendar: string;
  /** A cluster's window (clusters/<cluster>/windows/<window>.yaml). */
  window?: string | undefined;
  /** Which cluster's, when several clusters have a window of that name. */
  cluster?: string | undefined;
  /** A fleet window (fleet/windows/<name>/<name>.yaml). */
  fleetWindow?: string | undefined;
  prune: boolean;
  dryRun: boolean;
  /** kustomize for rendering the clusters that take a fleet window (their zones). */
  kustomize?: string | undefined;
  now: number;
}

/** Runs `fluxgate freeze import CALENDAR.ics` (its spec: specs.ts). */
export function runFreezeImport(v: Values, [calendar]: string[]): Promise<CommandResult> {
  return freezeImport({
    repo: str(v.repo) ?? ".",
    calendar: calendar as string,
    window: str(v.window),
    cluster: str(v.cluster),
    fleetWindow: str(v["fleet-window"]),
    prune: v.prune === true,
    dryRun: v["dry-run"] === true,
    kustomize: str(v.kustomize),
    now: Date.now(),
  });
}

/** The repository file of the window the import writes. */
async function windowPath(files: RepoFiles, options: FreezeImportOptions): Promise<string> {
  if ((options.window === undefined) === (options.fleetWindow === undefined))
    throw new RepositoryInputError(
      "give the window the freezes go to: --window NAME (a cluster's window) or --fleet-window NAME (one of fleet/windows/), one of them",
    );
  if (options.fleetWindow !== undefined) {
    if (options.cluster !== undefined) throw new RepositoryInputError("--cluster goes with --window: a fleet window is shared by its clusters");
    const path = fleetWindowFile(options.fleetWindow);
    if ((await files.text(path)) === null) throw new RepositoryInputError(`--fleet-window ${options.fleetWindow}: there is no ${path}`);
    return path;
  }
  const name = options.window as string;
  const repository = await readRepositoryFile(files);
  if (repository === null)
    throw new RepositoryInputError(
      `${files.root} has no fluxgate.yaml: run fluxgate freeze import in a repository laid out by fluxgate init, or give --repo PATH`,
    );
  const clusters = repository.clusters.filter((c) => options.cluster === undefined || c.name === options.cluster);
  if (options.cluster !== undefined && clusters.length === 0)
    throw new RepositoryInputError(
      `--cluster ${options.cluster}: fluxgate.yaml has no such cluster (it has ${repository.clusters.map((c) => c.name).join(", ")})`,
    );
  const found: Array<{ cluster: string; path: string }> = [];
  for (const c of clusters) if ((await files.text(windowFile(c, name))) !== null) found.push({ cluster: c.name, path: windowFile(c, name) });
  if (found.length === 0)
    throw new RepositoryInputError(
      `--window ${name}: no ${options.cluster === undefined ? "cluster" : `cluster ${options.cluster}`} has it (looked for ${clusters.map((c) => windowFile(c, name)).join(", ") || "clusters in fluxgate.yaml"}); a fleet window goes with --fleet-window`,
    );
  if (found.length > 1)
    throw new RepositoryInputError(`--window ${name}: clusters ${found.map((f) => f.cluster).join(", ")} each have one; say which with --cluster NAME`);
  return (found[0] as { path: string }).path;
}

/** The zone each cluster that takes the fleet window reads it in: what kustomize renders of its windows/ (a patch may change the zone). */
async function fleetZones(root: string, name: string, kustomize: string | undefined): Promise<Array<{ timeZone: string; who: string }>> {
  const fleet = await FleetWindows.open(root, { kustomize, env: process.env });
  try {
    const out: Array<{ timeZone: string; who: string }> = [];
    for (const c of fleet.repository?.clusters ?? []) {
      const r = await fleet.of(c);
      if (r.error !== null)
        throw new RepositoryInputError(
          `cluster ${c.name}: ${windowsDir(c)} does not build, so the zone it reads fleet window ${name} in is not known: ${r.error}`,
        );
      for (const w of r.windows) {
        if (w.fleetWindow === name) out.push({ timeZone: text(field(w.manifest, "spec", "timeZone")) ?? DEFAULT_TIME_ZONE, who: `cluster ${c.name}` });
      }
    }
    return out;
  } finally {
    await fleet.close();
  }
}

function describe(f: ImportedFreeze): string {
  const x = f.freeze;
  const when =
    x.recurrence !== undefined
      ? `${x.recurrence} from ${x.dtstart ?? "?"} at ${x.at ?? "?"}, ${x.duration !== undefined ? `for ${x.duration}` : `until ${x.endAt ?? "?"}`}${x.exdates === undefined ? "" : `, except ${x.exdates.join(", ")}`}`
      : `${x.from ?? "?"} → ${x.to ?? "?"}`;
  return `"${f.summary}" (UID ${f.uid}, ${f.kind}): ${when}`;
}

/** The report of an import: one line per freeze added, updated or removed, then the counts. */
export function importReport(plan: FreezeImport, path: string): string {
  const lines = [
    ...plan.added.map((f) => `added    ${describe(f)}`),
    ...plan.updated.map((f) => `updated  ${describe(f)}`),
    ...plan.removed.map((f) => `removed  "${f.reason ?? ""}" (UID ${f.uid})`),
    ...plan.kept.map((f) => `kept     "${f.reason ?? ""}" (UID ${f.uid}): no longer in the calendar; --prune removes it`),
  ];
  const counts = `${plan.added.length} added, ${plan.updated.length} updated, ${plan.removed.length} removed, ${plan.unchanged.length} unchanged`;
  return `${lines.map((l) => `${l}\n`).join("")}${path} (${plan.timeZone}): ${counts}.\n`;
}

/**
 * Imports the calendar's events into the window's freezes. Every event is converted (and the new
 * window validated) before anything is written; a refused event writes nothing.
 *
 * @example await freezeImport({ repo: ".", calendar: "freezes.ics", window: "apps-rw", prune: false, dryRun: true, now: Date.now() })
 */
export async function freezeImport(options: FreezeImportOptions): Promise<string> {
  const root = resolve(options.repo);
  await requireDirectory(root, "repository");
  const files = new RepoFiles(root);
  const path = await windowPath(files, options);
  let calendar: string;
  try {
    calendar = await readFile(options.calendar, "utf8");
  } catch (e) {
    throw new RepositoryInputError(`${options.calendar}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message}`, {
      cause: e,
    });
  }
  const before = (await files.text(path)) as string;
  const fleet = options.fleetWindow === undefined ? {} : { absolute: true, alsoReadIn: await fleetZones(root, options.fleetWindow, options.kustomize) };
  const plan = planFreezeImport(before, path, { calendar, prune: options.prune, ...fleet }, options.now);
  const changes: FileChange[] = [{ path, before, after: plan.text }];
  const report = importReport(plan, path);
  if (plan.text === before) return `${report}Nothing to change.\n`;
  if (options.dryRun) return `${unifiedDiff(changes)}${report}`;
  await writeChanges(root, changes);
  return `${report}Commit and push the change to apply it.\n`;
}
