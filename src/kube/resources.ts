// The Kubernetes resources fluxgate reads and writes, by kind: group, version and plural.

import { GROUP, VERSION } from "../api/index.ts";

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

/** Flux objects a window may govern in Suspend mode: they all have `spec.suspend`. */
export const TARGET_RESOURCES: Readonly<Record<string, Resource>> = {
  Kustomization: { kind: "Kustomization", group: "kustomize.toolkit.fluxcd.io", version: "v1", plural: "kustomizations" },
  HelmRelease: { kind: "HelmRelease", group: "helm.toolkit.fluxcd.io", version: "v2", plural: "helmreleases" },
  ImageUpdateAutomation: { kind: "ImageUpdateAutomation", group: "image.toolkit.fluxcd.io", version: "v1beta2", plural: "imageupdateautomations" },
  GitRepository: { kind: "GitRepository", group: "source.toolkit.fluxcd.io", version: "v1", plural: "gitrepositories" },
  OCIRepository: { kind: "OCIRepository", group: "source.toolkit.fluxcd.io", version: "v1", plural: "ocirepositories" },
  HelmRepository: { kind: "HelmRepository", group: "source.toolkit.fluxcd.io", version: "v1", plural: "helmrepositories" },
  HelmChart: { kind: "HelmChart", group: "source.toolkit.fluxcd.io", version: "v1", plural: "helmcharts" },
  Bucket: { kind: "Bucket", group: "source.toolkit.fluxcd.io", version: "v1", plural: "buckets" },
};

/** Sources whose artifact revision tells what a target has not applied yet. */
export const SOURCE_KINDS = ["GitRepository", "OCIRepository", "Bucket", "HelmChart"] as const;

/** Target kinds watched by default. */
export const DEFAULT_TARGET_KINDS = ["Kustomization", "HelmRelease", "ImageUpdateAutomation"] as const;

export function resourceOf(kind: string): Resource | undefined {
  return TARGET_RESOURCES[kind];
}
