// Where things live in a window-enabled GitOps repository: the contract shared by init, split, check, migrate and the Config Service.
//
// repo/
//   fluxgate.yaml                    the repository file below: clusters (name, path, zone) and types
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

const dnsLabel = z
  .string()
  .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, "must be a DNS label: lower-case letters, digits and '-', at most 63 characters");

export const ClusterEntrySchema = z.strictObject({
  name: dnsLabel,
  /** Relative to the repository root, with "/" separators, e.g. "clusters/edge-berlin". */
  path: z.string().min(1),
  timeZone: z.string().min(1),
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

export type ClusterEntry = z.infer<typeof ClusterEntrySchema>;
export type TypeEntry = z.infer<typeof TypeEntrySchema>;
export type RepositoryFile = z.infer<typeof RepositoryFileSchema>;

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
