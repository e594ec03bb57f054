// Fleet windows and fleet overrides on one cluster: whether an object with a `clusterSelector` is this cluster's, from the cluster's identity, failing safe.

import { CLUSTER_IDENTITY_NAME, CLUSTER_IDENTITY_NAMESPACE } from "../api/constants.ts";
import { matchesSelector, selectorProblem, type LabelSelector } from "./select.ts";
import { formatSelector } from "./selector-text.ts";

/** What a cluster knows of itself: its name and labels, confirmed by its identity object, or why they cannot be. */
export type ClusterIdentity = { confirmed: true; cluster: string; labels: Readonly<Record<string, string>> } | { confirmed: false; problem: string };

/** The identity ConfigMap's place, as people read it. */
export const CLUSTER_IDENTITY_REF = `ConfigMap ${CLUSTER_IDENTITY_NAMESPACE}/${CLUSTER_IDENTITY_NAME}`;

/**
 * Whether a window or override is this cluster's: `own` (it has no clusterSelector), `selected`
 * (the identity's labels match), `not-selected` (they do not: it does nothing here), or
 * `unconfirmed` (the identity cannot be confirmed: fail safe, see scopeWindow and scopeOverride).
 */
export type FleetScope =
  { kind: "own" } | { kind: "selected"; message: string } | { kind: "not-selected"; message: string } | { kind: "unconfirmed"; message: string };

/** The scope of an object with `clusterSelector` (absent: the cluster's own) on a cluster of `identity`. A selector that cannot be read selects nothing. */
export function fleetScope(clusterSelector: LabelSelector | null | undefined, identity: ClusterIdentity): FleetScope {
  if (clusterSelector === null || clusterSelector === undefined) return { kind: "own" };
  const text = formatSelector(clusterSelector) || "every cluster";
  if (!identity.confirmed)
    return { kind: "unconfirmed", message: `for clusters matching ${text}, and this cluster's identity cannot be confirmed: ${identity.problem}` };
  if (selectorProblem(clusterSelector) === null && matchesSelector(clusterSelector, identity.labels))
    return { kind: "selected", message: `cluster ${identity.cluster} matches ${text}` };
  return {
    kind: "not-selected",
    message: `for clusters matching ${text}; cluster ${identity.cluster} (${formatSelector({ matchLabels: identity.labels }) || "no labels"}) does not match`,
  };
}

/**
 * What a fleet window may do on this cluster: everything when it is the cluster's own or selects
 * it; nothing (no targets) when it does not select it; and, when the identity cannot be confirmed,
 * it opens by none of its schedules while its freezes hold — so it never lets a change through
 * that might not be for this cluster, and never lets one through in a freeze that might be.
 */
export function scopeWindowParts<C extends { allow: readonly unknown[] }, T>(
  scope: FleetScope,
  parts: { compiled: C | null; targets: readonly T[] },
): { compiled: C | null; targets: readonly T[] } {
  if (scope.kind === "not-selected") return { compiled: parts.compiled, targets: [] };
  if (scope.kind === "unconfirmed") return { compiled: parts.compiled === null ? null : { ...parts.compiled, allow: [] }, targets: parts.targets };
  return parts;
}

/** Whether an override acts on this cluster: not when it is not selected; when the identity cannot be confirmed, a Freeze does and an Open does not. */
export function overrideActsHere(scope: FleetScope, action: "Open" | "Freeze"): boolean {
  if (scope.kind === "not-selected") return false;
  if (scope.kind === "unconfirmed") return action === "Freeze";
  return true;
}
