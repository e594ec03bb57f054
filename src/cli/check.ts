// `fluxgate check`: renders every Flux Kustomization of every cluster with kustomize and reports what would break windows.

import { resolve } from "node:path";
import { checkCluster, compareFindings } from "../gitops/check.ts";
import { parseDeclaredRoot, parseSource, renderClusters, resolveClusters } from "../gitops/clusters.ts";
import { join2, readRepositoryFile, RepoFiles, requireDirectory } from "../gitops/files.ts";
import { checkFleet } from "../gitops/fleet/check.ts";
import { FleetWindows } from "../gitops/fleet/effective.ts";
import { describeKustomize, findKustomize, KustomizeRunner } from "../gitops/kustomize.ts";
import { Renderer } from "../gitops/render.ts";
import { RepositoryInputError } from "../gitops/errors.ts";
import { selectClusters } from "../gitops/fleet/select.ts";
import { jsonReport, locate, sarifReport, textReport, type LocatedFinding } from "../gitops/report.ts";
import { fluxgateVersion } from "./version.ts";
import { list, outputOf, str, type CommandResult, type Values } from "./command.ts";

/** Runs `fluxgate check REPO` (its spec: specs.ts). */
export async function runCheck(v: Values, [repo]: string[]): Promise<CommandResult> {
  const result = await check({
    repo: repo as string,
    clusters: list(v.cluster),
    selector: str(v.selector),
    kustomizations: list(v.kustomization),
    source: str(v.source),
    output: outputOf(v.output, ["text", "json", "sarif"] as const, "text"),
    strict: v.strict === true,
    kustomize: str(v.kustomize),
    env: process.env,
    now: Date.now(),
  });
  return { output: result.output, exitCode: result.exitCode };
}

export interface CheckOptions {
  /** The repository's root directory. */
  repo: string;
  /** `--cluster`: cluster names (fluxgate.yaml) or bootstrap paths; empty for every cluster. */
  clusters: readonly string[];
  /** `--selector`: the clusters of fluxgate.yaml whose labels match (Kubernetes label-selector syntax); not with `clusters`. */
  selector?: string | undefined;
  /** `--kustomization NAME=PATH`: roots that are not in Git. */
  kustomizations: readonly string[];
  /** `--source NAME`: the GitRepository, named by those roots' children, that is this repository; default: whichever they name. */
  source?: string | undefined;
  output: "text" | "json" | "sarif";
  /** Warnings make the exit code 1 too. */
  strict: boolean;
  /** `--kustomize PATH`. */
  kustomize: string | undefined;
  env: NodeJS.ProcessEnv;
  /** The current time, injected: windows are validated against it. */
  now: number;
  /** Parallel kustomize builds; default: the number of CPUs. */
  concurrency?: number | undefined;
}

export interface CheckResult {
  output: string;
  exitCode: number;
  findings: LocatedFinding[];
  /** Clusters checked, Kustomizations rendered, kustomize processes run, builds answered from the cache. */
  stats: { clusters: number; kustomizations: number; builds: number; cacheHits: number };
}

/**
 * Checks a repository. Exit code 1 when any finding is an error (or, with `strict`, a warning).
 *
 * @example await check({ repo: ".", clusters: [], kustomizations: [], output: "json", strict: false, kustomize: undefined, env: process.env, now: Date.now() })
 */
export async function check(options: CheckOptions): Promise<CheckResult> {
  return run(options);
}

async function run(options: CheckOptions): Promise<CheckResult> {
  const root = resolve(options.repo);
  await requireDirectory(root, "repository");
  const source = parseSource(options.source);
  const declared = options.kustomizations.map((k) => parseDeclaredRoot(k, source));
  const files = new RepoFiles(root);
  const repository = await readRepositoryFile(files);
  if (options.selector !== undefined && options.clusters.length > 0) throw new RepositoryInputError("give --cluster or --selector, not both");
  const clusterArgs = options.selector === undefined ? options.clusters : selectClusters(repository, options.selector).map((c) => c.name);
  const targets = await resolveClusters(files, repository, clusterArgs, declared);
  const runner = new KustomizeRunner(await findKustomize(options.kustomize, options.env), { concurrency: options.concurrency });
  const renderer = new Renderer(files, runner);
  let findings: LocatedFinding[];
  let kustomizations: number;
  try {
    const clusters = await renderClusters(renderer, targets);
    kustomizations = clusters.reduce((n, c) => n + c.kustomizations.length, 0);
    const entries = targets.flatMap((t) => repository?.clusters.filter((c) => c.name === t.name && join2(c.path) === t.path) ?? []);
    const fleet = await checkFleet(new FleetWindows(files, repository, runner, renderer), entries, options.now, options.repo);
    const all = [...clusters.flatMap((c) => checkCluster(c, repository, options.now)), ...fleet].sort(compareFindings);
    findings = await locate(all, (p) => files.text(p));
  } finally {
    await renderer.close();
  }
  const failing = findings.filter((f) => f.severity === "error" || options.strict).length;
  const output =
    options.output === "json"
      ? jsonReport(findings)
      : options.output === "sarif"
        ? sarifReport(findings, fluxgateVersion())
        : textReport(findings, { clusters: targets.length, kustomizations, kustomize: await describeKustomize(runner) });
  return {
    output,
    exitCode: failing > 0 ? 1 : 0,
    findings,
    stats: { clusters: targets.length, kustomizations, builds: runner.builds, cacheHits: renderer.cacheHits },
  };
}
