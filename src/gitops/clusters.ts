// Which clusters a command looks at, and their roots: from flags, from fluxgate.yaml, or found in the repository.

import { join2, type RepoFiles } from "./files.ts";
import { RepositoryInputError } from "./errors.ts";
import { FLUX_NAMESPACE, type RepositoryFile } from "./layout.ts";
import { ANY_SOURCE, Renderer, type RenderedCluster, type RootSpec } from "./render.ts";

/** A cluster to render: a name for messages, its bootstrap path, and the Kustomizations to start from. */
export interface ClusterTarget {
  name: string;
  path: string;
  roots: RootSpec[];
  /** True when the repository has no cluster root and the cluster is its entry points alone (`flux create kustomization`). */
  entryPointsOnly: boolean;
}

/**
 * Parses `--source NAME` (NAME may be `namespace/name`; the namespace defaults to flux-system):
 * the GitRepository that is this repository, for the children of entry points.
 */
export function parseSource(text: string | undefined): string {
  if (text === undefined) return ANY_SOURCE;
  const m = /^(?:([a-z0-9][-a-z0-9]*)\/)?([a-z0-9][-a-z0-9.]*)$/.exec(text);
  if (m === null) throw new RepositoryInputError(`--source ${text}: give the GitRepository's NAME or NAMESPACE/NAME, e.g. --source flux-system/source`);
  return `GitRepository/${m[1] ?? FLUX_NAMESPACE}/${m[2] as string}`;
}

/**
 * Parses `--kustomization NAME=PATH` (NAME may be `namespace/name`; the namespace defaults to
 * flux-system): a Kustomization created outside Git, e.g. by `flux create kustomization`.
 */
export function parseDeclaredRoot(text: string, source: string = ANY_SOURCE): RootSpec {
  const m = /^(?:([a-z0-9][-a-z0-9]*)\/)?([a-z0-9][-a-z0-9.]*)=(.*)$/.exec(text);
  if (m === null || (m[3] as string).trim() === "")
    throw new RepositoryInputError(`--kustomization ${text}: give NAME=PATH or NAMESPACE/NAME=PATH, e.g. apps=./deploy/edge`);
  return { namespace: m[1] ?? FLUX_NAMESPACE, name: m[2] as string, path: join2((m[3] as string).replace(/^\.\//, "")), source };
}

/**
 * The clusters to look at. `--cluster` values are cluster names from fluxgate.yaml or paths in
 * the repository; without any, every cluster of fluxgate.yaml, or else every directory with a
 * `flux-system/` bootstrap below it (or, when no entry point is declared, every directory under
 * clusters/). Declared roots are added to each cluster, and one whose path is the cluster's
 * stands in for its root. When the repository has no cluster root, the declared roots alone are
 * the cluster: none is invented.
 */
export async function resolveClusters(
  files: RepoFiles,
  repository: RepositoryFile | null,
  clusterArgs: readonly string[],
  declared: readonly RootSpec[],
): Promise<ClusterTarget[]> {
  const targets: Array<{ name: string; path: string }> = [];
  if (clusterArgs.length > 0) {
    for (const arg of clusterArgs) {
      const known = repository?.clusters.find((c) => c.name === arg || join2(c.path) === join2(arg.replace(/^\.\//, "")));
      let path = known !== undefined ? join2(known.path) : join2(arg.replace(/^\.\//, ""));
      if (known === undefined && !arg.includes("/") && !(await files.isDir(path)) && (await files.isDir(`clusters/${arg}`))) path = `clusters/${arg}`;
      if (!(await files.isDir(path))) {
        const names = repository?.clusters.map((c) => c.name).join(", ");
        throw new RepositoryInputError(`--cluster ${arg}: no such cluster directory in the repository${names ? ` (clusters in fluxgate.yaml: ${names})` : ""}`);
      }
      targets.push({ name: known?.name ?? path.split("/").pop() ?? path, path });
    }
  } else if (repository !== null && repository.clusters.length > 0) {
    for (const c of repository.clusters) targets.push({ name: c.name, path: join2(c.path) });
  } else {
    const bootstrapped = (await files.walk()).filter((f) => /(^|\/)flux-system\/gotk-sync\.ya?ml$/.test(f)).map((f) => f.split("/").slice(0, -2).join("/"));
    const paths =
      bootstrapped.length > 0 || declared.length > 0
        ? bootstrapped
        : ((await files.list("clusters")) ?? []).filter((e) => e.dir).map((e) => `clusters/${e.name}`);
    for (const path of [...new Set(paths)].sort()) targets.push({ name: path.split("/").pop() ?? path, path });
  }
  if (targets.length === 0 && declared.length === 0) {
    throw new RepositoryInputError(
      "found no cluster in the repository: give --cluster PATH (the cluster's Flux bootstrap path), --kustomization NAME=PATH (an entry point made with flux create kustomization), or run fluxgate init",
    );
  }
  if (targets.length === 0) {
    const first = declared[0] as RootSpec;
    return [{ name: first.name, path: first.path, roots: [...declared], entryPointsOnly: true }];
  }
  const seen = new Set<string>();
  return targets
    .filter((t) => !seen.has(t.path) && seen.add(t.path))
    .map((t) => ({
      ...t,
      roots: [...(declared.some((d) => d.path === t.path) ? [] : [Renderer.bootstrapRoot(t.path)]), ...declared],
      entryPointsOnly: false,
    }));
}

/** Renders every cluster (their builds share the renderer's pool and cache). */
export function renderClusters(renderer: Renderer, targets: readonly ClusterTarget[]): Promise<RenderedCluster[]> {
  return Promise.all(targets.map((t) => renderer.renderCluster(t.name, t.path, t.roots)));
}
