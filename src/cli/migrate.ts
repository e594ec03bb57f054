// `fluxgate migrate`: CronJob windows to ReconciliationWindows, with a proof over 366 days that both open at the same times.

import { resolve } from "node:path";
import { readFiles, summary, unifiedDiff, writeChanges } from "../gitops/changes.ts";
import { parseDeclaredRoot, parseSource, renderClusters, resolveClusters } from "../gitops/clusters.ts";
import { RepositoryInputError } from "../gitops/errors.ts";
import { join2, KUSTOMIZATION_FILES, readRepositoryFile, RepoFiles, requireDirectory } from "../gitops/files.ts";
import { findKustomize, KustomizeRunner } from "../gitops/kustomize.ts";
import { windowFile, windowsKustomizationFile } from "../gitops/layout.ts";
import { planMigration, type MigrationPlan, type PlannedWindow } from "../gitops/migrate.ts";
import type { Unproven } from "../gitops/proof.ts";
import { planMigrationWrite } from "../gitops/migrate-write.ts";
import { Renderer } from "../gitops/render.ts";
import { zoneRules } from "../schedule/index.ts";
import { inContext } from "../errors.ts";
import { localTime, rfc3339 } from "../schedule/format.ts";
import { DEFAULT_TIME_ZONE } from "../api/window.ts";
import { list, outputOf, str, type CommandResult, type Values } from "./command.ts";

/** Runs `fluxgate migrate REPO` (its spec: specs.ts). */
export function runMigrate(v: Values, [repo]: string[]): Promise<CommandResult> {
  return migrate({
    repo: repo as string,
    cluster: str(v.cluster),
    kustomizations: list(v.kustomization),
    source: str(v.source),
    timeZone: str(v["time-zone"]),
    output: outputOf(v.output, ["yaml", "json"] as const, "yaml"),
    write: v.write === true,
    dryRun: v["dry-run"] === true,
    force: v.force === true,
    kustomize: str(v.kustomize),
    env: process.env,
    now: Date.now(),
  });
}

export interface MigrateOptions {
  repo: string;
  /** `--cluster`: a cluster name from fluxgate.yaml or the cluster's bootstrap path. */
  cluster: string | undefined;
  /** `--kustomization NAME=PATH`: roots that are not in Git. */
  kustomizations: readonly string[];
  /** `--source NAME`: the GitRepository, named by those roots' children, that is this repository; default: whichever they name. */
  source?: string | undefined;
  /** `--time-zone`: the zone CronJobs without spec.timeZone run in; default UTC. */
  timeZone: string | undefined;
  output: "yaml" | "json";
  /** Replace the CronJobs with the windows in the repository. */
  write: boolean;
  /** Print the diff of what --write would change, and write nothing. */
  dryRun: boolean;
  /** Write windows whose proof found differences too. */
  force: boolean;
  kustomize: string | undefined;
  env: NodeJS.ProcessEnv;
  /** Start of the proof's 366 days, injected. */
  now: number;
}

/** The first few differences a report shows. */
const SHOWN = 5;

/**
 * Plans (and with `write`, applies) the migration of one cluster's CronJob windows.
 * Exit code 1 when a proof finds a difference or cannot tell (and then nothing is written without `force`).
 */
export async function migrate(options: MigrateOptions): Promise<{ output: string; exitCode: number }> {
  return run(options);
}

async function run(options: MigrateOptions): Promise<{ output: string; exitCode: number }> {
  const giveCluster =
    "give the cluster: --cluster NAME or --cluster PATH (its Flux bootstrap path), or the entry points of a repository set up with flux create: --kustomization NAME=PATH";
  if (options.cluster === undefined && options.kustomizations.length === 0) throw new RepositoryInputError(giveCluster);
  const defaultZone = options.timeZone ?? DEFAULT_TIME_ZONE;
  inContext({ field: `--time-zone ${defaultZone}`, as: RepositoryInputError }, () => zoneRules(defaultZone));
  const root = resolve(options.repo);
  await requireDirectory(root, "repository");
  const files = new RepoFiles(root);
  const repository = await readRepositoryFile(files);
  const source = parseSource(options.source);
  const declared = options.kustomizations.map((k) => parseDeclaredRoot(k, source));
  const resolved = await resolveClusters(files, repository, options.cluster === undefined ? [] : [options.cluster], declared);
  // Without --cluster, only a repository whose entry points are the whole cluster names one.
  if (options.cluster === undefined && !(resolved.length === 1 && resolved[0]?.entryPointsOnly === true)) {
    throw new RepositoryInputError(`${giveCluster}; this repository has clusters: ${resolved.map((t) => t.path).join(", ")}`);
  }
  const [target] = resolved;
  if (target === undefined) throw new RepositoryInputError(`--cluster ${options.cluster ?? ""}: no such cluster`);
  const runner = new KustomizeRunner(await findKustomize(options.kustomize, options.env));
  const renderer = new Renderer(files, runner);
  try {
    const [cluster] = await renderClusters(renderer, [target]);
    if (cluster === undefined) throw new RepositoryInputError(`--cluster ${options.cluster ?? ""}: no such cluster`);
    const failed = cluster.kustomizations.filter((k) => k.error !== null);
    if (failed.length > 0) {
      throw new RepositoryInputError(failed.map((k) => `cannot build ./${k.path} (Kustomization ${k.namespace}/${k.name}): ${k.error ?? ""}`).join("\n"));
    }
    const plan = planMigration(cluster, { defaultZone, zoneGiven: options.timeZone !== undefined, now: Math.floor(options.now / 60_000) * 60_000 });
    const unequal = plan.windows.filter((w) => !w.proof.equivalent);
    const report = options.output === "json" ? jsonReport(cluster.name, plan) : yamlReport(plan);
    if (!options.write && !options.dryRun) return { output: report, exitCode: unequal.length > 0 ? 1 : 0 };

    if (unequal.length > 0 && !options.force) {
      const differ = unequal.filter((w) => w.proof.differences.length > 0).map((w) => w.name);
      const untold = unequal.filter((w) => w.proof.unproven.length > 0).map((w) => w.name);
      const found = [
        ...(differ.length > 0 ? [`found differences for ${differ.join(", ")}`] : []),
        ...(untold.length > 0 ? [`cannot tell for ${untold.join(", ")}`] : []),
      ].join(" and ");
      return { output: `${report}# Nothing written: the proof ${found}; --force writes them anyway.\n`, exitCode: 1 };
    }
    // Files that another cluster renders are not this migration's to change.
    const others = target.entryPointsOnly ? [] : (await resolveClusters(files, repository, [], [])).filter((t) => t.path !== target.path);
    const shared = new Set((await renderClusters(renderer, others)).flatMap((c) => c.kustomizations.flatMap((k) => k.inputs)));
    const paths = new Set(cluster.kustomizations.flatMap((k) => k.inputs));
    const entry = { path: target.path };
    for (const w of plan.windows) paths.add(windowFile({ ...entry, name: "", timeZone: "" }, w.name));
    paths.add(windowsKustomizationFile({ ...entry, name: "", timeZone: "" }));
    for (const n of KUSTOMIZATION_FILES) paths.add(join2(target.path, n));
    const texts = await readFiles(root, paths);
    const { changes, notes } = planMigrationWrite(cluster, entry, plan.windows, texts, shared);
    const noteText = notes.map((n) => `# Note: ${n}\n`).join("");
    if (options.dryRun) return { output: `${unifiedDiff(changes)}${noteText}`, exitCode: 0 };
    await writeChanges(root, changes);
    const done = summary(changes);
    return { output: `${done.join("\n")}${done.length > 0 ? "\n" : "Nothing to write.\n"}${noteText}`, exitCode: 0 };
  } finally {
    await renderer.close();
  }
}

/** The proof of one window as the report's comment lines. */
export function proofLines(w: Pick<PlannedWindow, "proof" | "zone">): string[] {
  const p = w.proof;
  const zone = zoneRules(w.zone);
  const range = `${rfc3339(p.from)} to ${rfc3339(p.to)}`;
  if (p.equivalent) return [`# Proof: equivalent. From ${range} (366 days) both are open at exactly the same times (${p.window.length} intervals).`];
  const lines = [
    p.differences.length === 0
      ? `# Proof: NOT proven. From ${range} they do not differ until ${localTime((p.unproven[0] as { from: number }).from, zone)}, and after that nobody can tell:`
      : `# Proof: NOT equivalent. From ${range} they differ ${p.differences.length} time${p.differences.length === 1 ? "" : "s"}${p.unproven.length > 0 ? " before the proof has to stop" : ""}:`,
  ];
  for (const d of p.differences.slice(0, SHOWN)) {
    lines.push(
      `#   ${localTime(d.start, zone)} → ${localTime(d.end, zone)} (${rfc3339(d.start)} → ${rfc3339(d.end)}): the CronJobs leave the targets ${d.legacy}, the window ${d.legacy === "open" ? "closed" : "open"}`,
    );
  }
  if (p.differences.length > SHOWN) lines.push(`#   ... and ${p.differences.length - SHOWN} more`);
  for (const u of p.unproven) lines.push(`#   from ${localTime(u.from, zone)} (${rfc3339(u.from)}): ${unprovenText(u)}`);
  lines.push("# CronJobs skip a run in a spring-forward gap and run twice in a repeated hour; windows do not (docs/schedules.md).");
  return lines;
}

/** Why the proof stops at `u`. */
function unprovenText(u: Unproven): string {
  return `not proven: robfig/cron, the CronJob controller's cron library, never finds the next run of CronJob ${u.job} (its loop does not end at this zone's change of offset), so the controller never runs it again; what the CronJobs leave open from then on is not known`;
}

function yamlReport(plan: MigrationPlan): string {
  const parts: string[] = [];
  for (const w of plan.windows) parts.push(`${proofLines(w).join("\n")}\n${w.text}`);
  const skipped = plan.skipped.map((s) => `# Not migrated: ${s.cronJob}${s.file === null ? "" : ` (${s.file})`}: ${s.reason}.`);
  if (plan.windows.length === 0) skipped.unshift("# Found no CronJob window to migrate.");
  return `${parts.join("---\n")}${skipped.length > 0 ? `${parts.length > 0 ? "---\n" : ""}${skipped.join("\n")}\n` : ""}`;
}

function jsonReport(cluster: string, plan: MigrationPlan): string {
  return `${JSON.stringify(
    {
      cluster,
      windows: plan.windows.map((w) => ({
        name: w.name,
        window: w.manifest,
        replaces: w.replaces.map((g) => ({ kind: "CronJob", namespace: g.object.ref.namespace, name: g.object.ref.name, file: g.object.file })),
        timeZone: w.zone,
        timeZoneSource: w.zoneSource,
        warnings: w.warnings,
        proof: {
          equivalent: w.proof.equivalent,
          from: rfc3339(w.proof.from),
          to: rfc3339(w.proof.to),
          intervals: w.proof.window.length,
          differences: w.proof.differences.map((d) => ({
            start: rfc3339(d.start),
            end: rfc3339(d.end),
            cronJobs: d.legacy,
            window: d.legacy === "open" ? "closed" : "open",
          })),
          unproven: w.proof.unproven.map((u) => ({ from: rfc3339(u.from), cronJob: u.job, reason: unprovenText(u) })),
        },
      })),
      skipped: plan.skipped,
    },
    null,
    2,
  )}\n`;
}
