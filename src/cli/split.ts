// `fluxgate split`: cuts an application into one variant per type and re-points the clusters, proven by kustomize to change nothing.

import { canonicalJson } from "../api/canonical.ts";
import { cp, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { summary, unifiedDiff, writeChanges } from "../gitops/changes.ts";
import { parseDeclaredRoot, parseSource, renderClusters, resolveClusters, type ClusterTarget } from "../gitops/clusters.ts";
import { RepositoryInputError } from "../gitops/errors.ts";
import { KUSTOMIZATION_FILES, readRepositoryFile, RepoFiles } from "../gitops/files.ts";
import { findKustomize, KustomizeRunner } from "../gitops/kustomize.ts";
import { kustomizationName, REPOSITORY_FILE, TYPE_LABEL } from "../gitops/layout.ts";
import { display, field, str } from "../gitops/objects.ts";
import { appliedBefore, latePrerequisiteKey, latePrerequisites, latePrerequisiteText } from "../gitops/prerequisites.ts";
import { kustomizationId, Renderer, type RenderedCluster, type RenderedKustomization } from "../gitops/render.ts";
import { parseTypeRule, planSplit } from "../gitops/split.ts";
import { list, str as flag, type CommandResult, type Values } from "./command.ts";

/** Runs `fluxgate split APP_DIR` (its spec: specs.ts). */
export function runSplit(v: Values, [app]: string[]): Promise<CommandResult> {
  return split({
    app: app as string,
    types: list(v.type),
    fallback: flag(v.default),
    clusters: list(v.cluster),
    kustomizations: list(v.kustomization),
    source: flag(v.source),
    repo: flag(v.repo),
    dryRun: v["dry-run"] === true,
    kustomize: flag(v.kustomize),
    env: process.env,
  });
}

export interface SplitOptions {
  /** The application's kustomize directory. */
  app: string;
  /** `--type TYPE=KIND,...|FILE-GLOB,...`, repeatable. */
  types: readonly string[];
  /** `--default TYPE`: the type of objects no rule assigns. */
  fallback: string | undefined;
  /** `--cluster`: rewrite only these clusters' kustomizations (names or paths); default: every cluster. */
  clusters: readonly string[];
  /** `--kustomization NAME=PATH`: entry points created outside Git (flux create kustomization), as for check. */
  kustomizations?: readonly string[] | undefined;
  /** `--source NAME`: the GitRepository, named by those entry points' children, that is this repository. */
  source?: string | undefined;
  /** `--repo`: the repository root; default: the nearest directory above the app with fluxgate.yaml or .git. */
  repo: string | undefined;
  dryRun: boolean;
  kustomize: string | undefined;
  env: NodeJS.ProcessEnv;
}

/**
 * Splits the application, then renders every cluster before and after (in a copy of the
 * repository) and writes only when each cluster's rendered objects are the same.
 */
export async function split(options: SplitOptions): Promise<string> {
  return run(options);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function findRoot(app: string): Promise<string> {
  for (let dir = dirname(app); ; dir = dirname(dir)) {
    if ((await exists(join(dir, REPOSITORY_FILE))) || (await exists(join(dir, ".git")))) return dir;
    if (dirname(dir) === dir) throw new RepositoryInputError(`${app}: found no repository above it (no ${REPOSITORY_FILE} or .git): give --repo`);
  }
}

async function run(options: SplitOptions): Promise<string> {
  if (options.types.length === 0) throw new RepositoryInputError("give the types: --type rt=ConfigMap,Secret --type rw=Deployment,Service");
  const rules = options.types.map(parseTypeRule);
  const source = parseSource(options.source);
  const declared = (options.kustomizations ?? []).map((k) => parseDeclaredRoot(k, source));
  const appAbs = resolve(options.app);
  if (!(await exists(appAbs))) throw new RepositoryInputError(`${options.app}: no such directory`);
  const root = options.repo === undefined ? await findRoot(appAbs) : resolve(options.repo);
  const files = new RepoFiles(root);
  const app = files.rel(appAbs);
  if (app === null || app === "") throw new RepositoryInputError(`${options.app}: not a directory inside the repository ${root}`);
  const repository = await readRepositoryFile(files);
  const types = repository?.types.map((t) => t.name) ?? [
    ...new Set([...rules.map((r) => r.type), ...(options.fallback === undefined ? [] : [options.fallback])]),
  ];

  const runner = new KustomizeRunner(await findKustomize(options.kustomize, options.env));
  const before = new Renderer(files, runner);
  const temp = await mkdtemp(join(tmpdir(), "fluxgate-split-"));
  try {
    const targets = await resolveClusters(files, repository, [], declared);
    const clusters = await renderClusters(before, targets);
    const broken = clusters.flatMap((c) =>
      c.kustomizations.filter((k) => k.error !== null).map((k) => `cluster ${c.name}: cannot build ./${k.path}: ${k.error ?? ""}`),
    );
    if (broken.length > 0) throw new RepositoryInputError(`the repository does not build as it is, so split cannot prove anything:\n${broken.join("\n")}`);
    const selected = options.clusters.length === 0 ? targets : await resolveClusters(files, repository, options.clusters, declared);
    const selectedPaths = new Set(selected.map((t) => t.path));
    const rewritable = new Set(clusters.filter((c) => selectedPaths.has(c.path)).flatMap((c) => c.kustomizations.flatMap((k) => k.inputs)));
    const typedEntries = new Map<string, { cluster: string; type: string }>();
    const typed = new Map<RenderedCluster, Map<string, RenderedKustomization>>();
    for (const c of clusters) {
      const mine = new Map<string, RenderedKustomization>();
      typed.set(c, mine);
      for (const k of c.kustomizations) {
        const label = k.body === null ? undefined : str(field(k.body, "metadata", "labels", TYPE_LABEL));
        const type = label ?? types.find((t) => kustomizationName(t) === k.name);
        if (type !== undefined) {
          typedEntries.set(k.path, { cluster: c.name, type });
          mine.set(type, k);
        }
      }
    }
    // Type a comes before type b when, on every cluster that has both, b's Kustomization depends on a's.
    const orders = clusters.map((c) => ({ before: appliedBefore(c), typed: typed.get(c) as Map<string, RenderedKustomization> }));
    const typeBefore = (a: string, b: string): boolean => {
      const both = orders.filter((o) => o.typed.has(a) && o.typed.has(b));
      return (
        both.length > 0 &&
        both.every(
          (o) => o.before.get(kustomizationId(o.typed.get(b) as RenderedKustomization))?.has(kustomizationId(o.typed.get(a) as RenderedKustomization)) === true,
        )
      );
    };
    const all = (await files.walk()).filter(
      (p) => p.startsWith(`${app}/`) || KUSTOMIZATION_FILES.some((n) => p === n || p.endsWith(`/${n}`)) || /\.ya?ml$/.test(p),
    );
    const texts = new Map<string, string | null>();
    for (const p of all) texts.set(p, await files.text(p));
    const plan = planSplit({ app, types, rules, fallback: options.fallback, texts, rewritable, typedEntries, appliedBefore: typeBefore });

    // The guarantee: per cluster, the same objects before and after.
    await cp(root, temp, { recursive: true, filter: (src) => !src.split(/[\\/]/).includes(".git") });
    await writeChanges(temp, plan.changes);
    const after = new Renderer(new RepoFiles(temp), runner);
    try {
      const afterClusters = await renderClusters(
        after,
        targets.map((t): ClusterTarget => ({ ...t })),
      );
      const problems = compare(clusters, afterClusters);
      if (problems.length > 0)
        throw new RepositoryInputError(`splitting ${app} this way would change what clusters run, so nothing was written:\n${problems.join("\n")}`);
      // Nor may it leave an object's Namespace or CRD to a Kustomization applied after the object's own.
      const late = newlyLate(clusters, afterClusters);
      if (late.length > 0) throw new RepositoryInputError(`splitting ${app} this way would break new clusters, so nothing was written:\n${late.join("\n")}`);
    } finally {
      await after.close();
    }
    if (options.dryRun) return unifiedDiff(plan.changes);
    await writeChanges(root, plan.changes);
    const variants = [...plan.variants.entries()].map(([t, d]) => `${d} (${t})`).join(", ");
    return `${[...summary(plan.changes), ...plan.notes.map((n) => `note: ${n}`)].join("\n")}\nSplit ${app} into ${variants}; every cluster renders the same objects as before (${targets.length} checked with kustomize).\n`;
  } finally {
    await before.close();
    await rm(temp, { recursive: true, force: true });
  }
}

/** Per cluster: the Namespaces and CRDs applied after an object that needs them after the split and not before it, as lines. */
export function newlyLate(before: readonly RenderedCluster[], after: readonly RenderedCluster[]): string[] {
  const out: string[] = [];
  for (const a of after) {
    const b = before.find((x) => x.path === a.path);
    const had = new Set(
      b === undefined
        ? []
        : latePrerequisites(b)
            .filter((p) => p.order === "after")
            .map(latePrerequisiteKey),
    );
    for (const p of latePrerequisites(a))
      if (p.order === "after" && !had.has(latePrerequisiteKey(p))) out.push(`cluster ${a.name}: ${latePrerequisiteText(p)}`);
  }
  return out;
}

/** Per cluster: the multiset of rendered objects before and after; every difference, as lines. */
export function compare(before: readonly RenderedCluster[], after: readonly RenderedCluster[]): string[] {
  const out: string[] = [];
  for (const b of before) {
    const a = after.find((x) => x.path === b.path);
    const errors = a?.kustomizations.filter((k) => k.error !== null) ?? [];
    for (const k of errors) out.push(`cluster ${b.name}: cannot build ./${k.path}: ${k.error ?? ""}`);
    const count = (c: RenderedCluster | undefined): Map<string, { n: number; name: string }> => {
      const m = new Map<string, { n: number; name: string }>();
      for (const k of c?.kustomizations ?? []) {
        for (const o of k.objects) {
          const key = canonicalJson(o.body);
          const e = m.get(key);
          if (e === undefined) m.set(key, { n: 1, name: display(o.ref) });
          else e.n++;
        }
      }
      return m;
    };
    const x = count(b);
    const y = count(a);
    for (const [key, e] of x) {
      const n = y.get(key)?.n ?? 0;
      if (n < e.n) out.push(`cluster ${b.name}: ${e.name} ${n === 0 ? "would be lost or changed" : "would be rendered fewer times"}`);
      if (n > e.n) out.push(`cluster ${b.name}: ${e.name} would be rendered ${n} times`);
    }
    for (const [key, e] of y) if (!x.has(key)) out.push(`cluster ${b.name}: ${e.name} would be new or changed`);
  }
  return out;
}
