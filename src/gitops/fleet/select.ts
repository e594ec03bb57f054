// Which clusters of fluxgate.yaml a `--selector` names, by their labels, with the one selector matcher of src/policy.

import { RepositoryInputError } from "../errors.ts";
import { REPOSITORY_FILE, type ClusterEntry, type RepositoryFile } from "../layout.ts";
import { formatSelector, matchesSelector, parseSelector, type LabelSelector } from "../../policy/index.ts";

/** The labels of a cluster (none when fluxgate.yaml gives none). */
export function clusterLabels(cluster: ClusterEntry): Readonly<Record<string, string>> {
  return cluster.labels ?? {};
}

/** The cluster as the time engine sees it: a fleet window's holiday freeze may take its country from these labels. */
export function clusterContext(cluster: ClusterEntry): { name: string; labels: Readonly<Record<string, string>> } {
  return { name: cluster.name, labels: clusterLabels(cluster) };
}

/** True when the cluster's labels satisfy the selector. */
export function clusterMatches(cluster: ClusterEntry, selector: LabelSelector): boolean {
  return matchesSelector(selector, clusterLabels(cluster));
}

/**
 * The clusters of fluxgate.yaml whose labels match `selectorText` (Kubernetes label-selector
 * syntax), in the file's order. Throws a RepositoryInputError when the repository has no
 * fluxgate.yaml, or (unless `allowNone`) when no cluster matches, naming the clusters and labels there are.
 *
 * @example selectClusters(repository, "ring=prod,region in (eu)", "--selector")
 */
export function selectClusters(repository: RepositoryFile | null, selectorText: string, flag = "--selector", allowNone = false): ClusterEntry[] {
  const selector = parseSelector(selectorText, flag);
  if (repository === null)
    throw new RepositoryInputError(
      `${flag} ${selectorText}: selects clusters by the labels of ${REPOSITORY_FILE}, and the repository has none (fluxgate init writes it)`,
    );
  const chosen = repository.clusters.filter((c) => clusterMatches(c, selector));
  if (chosen.length === 0 && !allowNone) {
    const known = repository.clusters.map((c) => `${c.name} {${formatSelector({ matchLabels: clusterLabels(c) })}}`).join(", ");
    throw new RepositoryInputError(`${flag} ${selectorText}: no cluster of ${REPOSITORY_FILE} matches (clusters and labels: ${known || "none"})`);
  }
  return chosen;
}
