// The Flux kinds a window may govern, with their API group, version and plural: the one table every surface reads.
// It imports nothing, so the dashboard's browser code is served a copy generated from it (server/dashboard/assets.ts).

/** A Flux kind as the API server serves it. */
export interface FluxKind {
  group: string;
  version: string;
  plural: string;
  /** A source: its artifact revision tells what a target has not applied yet. */
  source: boolean;
  /** Watched by the controller unless --target-kinds says otherwise. */
  watchedByDefault: boolean;
  /** Versions older Flux releases serve instead of `version`: fluxgate does not govern them, but names them when it skips the kind. */
  olderVersions?: readonly string[];
}

/** Every kind a window may target, in the order the CRD, the CLI and the dashboard list them. */
export const FLUX_KINDS = {
  Kustomization: { group: "kustomize.toolkit.fluxcd.io", version: "v1", plural: "kustomizations", source: false, watchedByDefault: true },
  HelmRelease: { group: "helm.toolkit.fluxcd.io", version: "v2", plural: "helmreleases", source: false, watchedByDefault: true },
  ImageUpdateAutomation: {
    group: "image.toolkit.fluxcd.io",
    version: "v1",
    plural: "imageupdateautomations",
    source: false,
    watchedByDefault: true,
    olderVersions: ["v1beta2"],
  },
  GitRepository: { group: "source.toolkit.fluxcd.io", version: "v1", plural: "gitrepositories", source: true, watchedByDefault: false },
  OCIRepository: { group: "source.toolkit.fluxcd.io", version: "v1", plural: "ocirepositories", source: true, watchedByDefault: false },
  HelmRepository: { group: "source.toolkit.fluxcd.io", version: "v1", plural: "helmrepositories", source: false, watchedByDefault: false },
  HelmChart: { group: "source.toolkit.fluxcd.io", version: "v1", plural: "helmcharts", source: true, watchedByDefault: false },
  Bucket: { group: "source.toolkit.fluxcd.io", version: "v1", plural: "buckets", source: true, watchedByDefault: false },
} as const satisfies Readonly<Record<string, FluxKind>>;

export type TargetKind = keyof typeof FLUX_KINDS;

/** Kinds a window may govern (spec.targets[].kind). */
export const TARGET_KINDS = Object.keys(FLUX_KINDS) as [TargetKind, ...TargetKind[]];

/** The entry of a kind, or undefined when a window cannot target it. */
export function fluxKindOf(kind: string): FluxKind | undefined {
  return Object.hasOwn(FLUX_KINDS, kind) ? FLUX_KINDS[kind as TargetKind] : undefined;
}

/** API groups of Flux (every Flux controller's, not only the targetable kinds'). */
export const FLUX_GROUPS: ReadonlySet<string> = new Set([
  "kustomize.toolkit.fluxcd.io",
  "helm.toolkit.fluxcd.io",
  "source.toolkit.fluxcd.io",
  "image.toolkit.fluxcd.io",
  "notification.toolkit.fluxcd.io",
]);

/** Short names people type for the kinds windows govern, as Flux's CRDs declare them (`kubectl get ks`). */
export const KIND_SHORT_NAMES: Readonly<Record<string, TargetKind>> = {
  ks: "Kustomization",
  hr: "HelmRelease",
  gitrepo: "GitRepository",
  ocirepo: "OCIRepository",
  helmrepo: "HelmRepository",
  hc: "HelmChart",
};

/**
 * The kind a resource name means as kubectl reads it, case aside: `Kustomization`, `kustomization`,
 * `kustomizations`, `kustomizations.kustomize.toolkit.fluxcd.io`, `kustomization.kustomize.toolkit.fluxcd.io`,
 * or a short name (`ks`, `hr`); undefined for a kind no window can govern.
 *
 * @example kindOfResourceName("hr") // "HelmRelease"
 */
export function kindOfResourceName(text: string): TargetKind | undefined {
  const lower = text.toLowerCase();
  const short = KIND_SHORT_NAMES[lower];
  if (short !== undefined) return short;
  return TARGET_KINDS.find((kind) => {
    const { plural, group } = FLUX_KINDS[kind];
    const name = kind.toLowerCase();
    return name === lower || plural === lower || `${plural}.${group}` === lower || `${name}.${group}` === lower;
  });
}

/** The kinds `kindOfResourceName` knows, as people type them (lower case), for messages and completion. */
export function kindNames(): string[] {
  return TARGET_KINDS.map((kind) => kind.toLowerCase());
}

/** The words the flux CLI names a kind with (`flux suspend ks NAME`, `flux resume source git NAME`). */
export const FLUX_CLI_KIND_WORDS: ReadonlyArray<readonly [readonly string[], TargetKind]> = [
  [["kustomization"], "Kustomization"],
  [["kustomizations"], "Kustomization"],
  [["ks"], "Kustomization"],
  [["helmrelease"], "HelmRelease"],
  [["helmreleases"], "HelmRelease"],
  [["hr"], "HelmRelease"],
  [["source", "git"], "GitRepository"],
  [["source", "oci"], "OCIRepository"],
  [["source", "helm"], "HelmRepository"],
  [["source", "chart"], "HelmChart"],
  [["source", "bucket"], "Bucket"],
  [["image", "update"], "ImageUpdateAutomation"],
];
