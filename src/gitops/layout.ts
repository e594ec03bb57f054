// Where things live in a window-enabled GitOps repository: the contract shared by init, split, check, migrate and the Config Service.
//
// repo/
//   fluxgate.yaml                    the repository file below: clusters (name, path, zone, labels) and types
//   apps/<app>/                      application bases; split makes apps/<app>-<type>
//   clusters/<cluster>/              one directory per cluster (Flux's bootstrap path)
//     windows/                       applied by a real-time Kustomization, so schedule edits apply at once
//       kustomization.yaml           lists every window file and override file below
//       <window>.yaml                one ReconciliationWindow per file, named after it
//       overrides/<override>.yaml    one WindowOverride per file, named after it

import { z } from "zod";

/** Name of the repository file at the repository's root. It is never applied to a cluster. */
export const REPOSITORY_FILE = "fluxgate.yaml";

/** Namespace of the Flux objects, windows and overrides that init writes. */
export const FLUX_NAMESPACE = "flux-system";

const dnsLabel = z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, "must be a DNS label: lower-case letters, digits and '-', at most 63 characters");

export const ClusterEntrySchema = z.strictObject({
  name: dnsLabel,
  /** Relative to the repository root, with "/" separators, e.g. "clusters/edge-berlin". */
  path: z.string().min(1),
  timeZone: z.string().min(1),
  /** Labels that select the cluster (`region: eu`, `ring: prod`): Kubernetes label keys and values, checked by parseRepositoryFile. */
  labels: z.record(z.string(), z.unknown()).optional(),
});

export const TypeEntrySchema = z.strictObject({
  /** Short name of the type, e.g. "rt" or "rw"; variants are named `<app>-<type>`, Kustomizations `apps-<type>`. */
  name: dnsLabel,
  /** True when a window governs this type; false for real-time types. */
  window: z.boolean(),
});

export const RepositoryFileSchema = z.strictObject({
  apiVersion: z.literal("fluxgate.io/v1alpha1"),
  kind: z.literal("Repository"),
  types: z.array(TypeEntrySchema).min(1),
  clusters: z.array(ClusterEntrySchema),
});

export type ClusterEntry = Omit<z.infer<typeof ClusterEntrySchema>, "labels"> & { labels?: Record<string, string> | undefined };
export type TypeEntry = z.infer<typeof TypeEntrySchema>;
export type RepositoryFile = Omit<z.infer<typeof RepositoryFileSchema>, "clusters"> & { clusters: ClusterEntry[] };

/** Directory of a cluster's windows and overrides. */
export function windowsDir(cluster: ClusterEntry): string {
  return `${cluster.path}/windows`;
}

/** File of one window of a cluster. */
export function windowFile(cluster: ClusterEntry, window: string): string {
  return `${windowsDir(cluster)}/${window}.yaml`;
}

/** File of one override of a cluster. */
export function overrideFile(cluster: ClusterEntry, override: string): string {
  return `${windowsDir(cluster)}/overrides/${override}.yaml`;
}

// The rest of the layout (docs/gitops.md): entry directories, one Flux Kustomization per type, variants.
//
//   clusters/<cluster>/apps-<type>.yaml     the Flux Kustomization apps-<type>, applied by the cluster's root Kustomization
//   deploy/<cluster>/<type>/                its path: the entry directory of the type on the cluster
//   apps/<app>-<type>/                      a variant of an application, made by split

/** Name of the Flux Kustomization that bootstrap creates and that applies a cluster's path in real time. */
export const ROOT_KUSTOMIZATION = "flux-system";

/** Name of the GitRepository that bootstrap creates; the Kustomizations init writes take their source from it. */
export const SOURCE_NAME = "flux-system";

/** Label that names an object's type: on Flux Kustomizations (init writes it) and on manifests (split reads it). */
export const TYPE_LABEL = "fluxgate.io/type";

/** Directory under the repository root that holds the entry directories of every cluster. */
export const ENTRY_ROOT = "deploy";

/** Directory of application bases and their variants. */
export const APPS_ROOT = "apps";

/** Name of the Flux Kustomization, and of the window, of a type: `apps-<type>`. */
export function kustomizationName(type: string): string {
  return `apps-${type}`;
}

/** File of the Flux Kustomization of a type on a cluster. */
export function kustomizationFile(cluster: ClusterEntry, type: string): string {
  return `${cluster.path}/${kustomizationName(type)}.yaml`;
}

/** Entry directory of a type on a cluster: the path of its Flux Kustomization. */
export function entryDir(cluster: ClusterEntry, type: string): string {
  return `${ENTRY_ROOT}/${cluster.name}/${type}`;
}

/** The kustomization.yaml listing a cluster's windows and overrides. */
export function windowsKustomizationFile(cluster: ClusterEntry): string {
  return `${windowsDir(cluster)}/kustomization.yaml`;
}

/** Directory of the variant of an application for a type: `<app>-<type>` next to the application. */
export function variantDir(appDir: string, type: string): string {
  return `${appDir.replace(/\/+$/, "")}-${type}`;
}
