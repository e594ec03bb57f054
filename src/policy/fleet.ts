// Fleet windows and fleet overrides on one cluster: whether an object with a `clusterSelector` is this cluster's, from the cluster's identity, failing safe.

import { parse } from "yaml";
import { CLUSTER_IDENTITY_CLUSTER_KEY, CLUSTER_IDENTITY_LABELS_KEY, CLUSTER_IDENTITY_NAME, CLUSTER_IDENTITY_NAMESPACE } from "../api/constants.ts";
import { isLabelKey, isLabelValue } from "../api/label-syntax.ts";
import { matchesSelector, selectorProblem, type LabelSelector } from "./select.ts";
import { formatSelector } from "./selector-text.ts";

/** What a cluster knows of itself: its name and labels, confirmed by its identity object, or why they cannot be. */
export type ClusterIdentity = { confirmed: true; cluster: string; labels: Readonly<Record<string, string>> } | { confirmed: false; problem: string };

/** The identity ConfigMap's place, as people read it. */
export const CLUSTER_IDENTITY_REF = `ConfigMap ${CLUSTER_IDENTITY_NAMESPACE}/${CLUSTER_IDENTITY_NAME}`;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * The identity a ConfigMap states (`undefined` when there is none), or why it cannot be confirmed:
 * missing, no `cluster`, or `labels` that are not a YAML map of Kubernetes labels. Pure; the
 * controller, check and the Config Service read it alike.
 *
 * @example readClusterIdentity({ data: { cluster: "edge-berlin", labels: "region: eu\n" } }) // { confirmed: true, cluster: "edge-berlin", labels: { region: "eu" } }
 */
export function readClusterIdentity(configMap: unknown): ClusterIdentity {
  if (configMap === undefined || configMap === null)
    return { confirmed: false, problem: `${CLUSTER_IDENTITY_REF} does not exist (fluxgate init writes it into the cluster's windows/ folder)` };
  const data = (configMap as { data?: unknown }).data;
  const cluster = typeof data === "object" && data !== null ? (data as Record<string, unknown>)[CLUSTER_IDENTITY_CLUSTER_KEY] : undefined;
  if (typeof cluster !== "string" || !DNS_LABEL.test(cluster))
    return {
      confirmed: false,
      problem: `${CLUSTER_IDENTITY_REF}: data.${CLUSTER_IDENTITY_CLUSTER_KEY} must be the cluster's name in fluxgate.yaml (a DNS label)`,
    };
  const text = (data as Record<string, unknown>)[CLUSTER_IDENTITY_LABELS_KEY] ?? "";
  let labels: unknown;
  try {
    labels = typeof text === "string" ? (parse(text) ?? {}) : undefined;
  } catch {
    labels = undefined;
  }
  const bad = `${CLUSTER_IDENTITY_REF}: data.${CLUSTER_IDENTITY_LABELS_KEY} must be a YAML map of Kubernetes labels (key: value)`;
  if (typeof labels !== "object" || labels === null || Array.isArray(labels)) return { confirmed: false, problem: bad };
  for (const [k, v] of Object.entries(labels)) {
    if (!isLabelKey(k) || typeof v !== "string" || !isLabelValue(v)) return { confirmed: false, problem: `${bad}; ${JSON.stringify(k)} is not one` };
  }
  return { confirmed: true, cluster, labels: labels as Record<string, string> };
}

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
