// A cluster's identity as its ConfigMap states it, read apart from fleet.ts: it parses YAML, which the code that only scopes windows (a preview, the views) does not load.

import { parse } from "yaml";
import { CLUSTER_IDENTITY_CLUSTER_KEY, CLUSTER_IDENTITY_LABELS_KEY } from "../api/constants.ts";
import { isLabelKey, isLabelValue } from "../api/label-syntax.ts";
import { CLUSTER_IDENTITY_REF, type ClusterIdentity } from "./fleet.ts";

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
