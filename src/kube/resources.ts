// The Kubernetes resources fluxgate reads and writes, by kind: group, version and plural.

import { FLUX_KINDS, TARGET_KINDS } from "../api/kinds.ts";
import { GROUP, VERSION } from "../api/window.ts";

export interface Resource {
  kind: string;
  group: string;
  version: string;
  plural: string;
}

export function apiVersionOf(r: Resource): string {
  return r.group === "" ? r.version : `${r.group}/${r.version}`;
}

/** URL path of the collection, across namespaces or in one. */
export function collectionPath(r: Resource, namespace?: string): string {
  const base = r.group === "" ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  return namespace === undefined ? `${base}/${r.plural}` : `${base}/namespaces/${namespace}/${r.plural}`;
}

export const WINDOWS: Resource = { kind: "ReconciliationWindow", group: GROUP, version: VERSION, plural: "reconciliationwindows" };
export const OVERRIDES: Resource = { kind: "WindowOverride", group: GROUP, version: VERSION, plural: "windowoverrides" };
/** ConfigMaps: the controller reads one, the cluster's identity (api/constants.ts CLUSTER_IDENTITY_NAME). */
export const CONFIGMAPS: Resource = { kind: "ConfigMap", group: "", version: "v1", plural: "configmaps" };

/** Flux objects a window may govern in Suspend mode (they all have `spec.suspend`), from the one table of Flux kinds. */
export const TARGET_RESOURCES: Readonly<Record<string, Resource>> = Object.fromEntries(
  Object.entries(FLUX_KINDS).map(([kind, k]) => [kind, { kind, group: k.group, version: k.version, plural: k.plural }]),
);

/** Sources whose artifact revision tells what a target has not applied yet. */
export const SOURCE_KINDS = TARGET_KINDS.filter((k) => FLUX_KINDS[k].source);

/** Target kinds watched by default. */
export const DEFAULT_TARGET_KINDS = TARGET_KINDS.filter((k) => FLUX_KINDS[k].watchedByDefault);

export function resourceOf(kind: string): Resource | undefined {
  return TARGET_RESOURCES[kind];
}
