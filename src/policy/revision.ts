// Revision identity and the gate's marks: which commit or digest a Flux revision names, the annotations that approve one, the gated source's labels.

/** Annotations `fluxgate approve` writes on a window to promote one revision outside the window. */
export const APPROVE_REVISION = "fluxgate.io/approve-revision";
export const APPROVE_REASON = "fluxgate.io/approve-reason";
export const APPROVED_BY = "fluxgate.io/approved-by";
export const APPROVED_AT = "fluxgate.io/approved-at";

/** Label on a gated source: the window that owns and pins it. */
export const GATED_BY = "fluxgate.io/window";
/** Label on a gated source whose window was deleted: unpinned, it follows upstream until no Kustomization uses it. */
export const RELEASED_FROM = "fluxgate.io/released-from";

/** The commit (Git) or digest (OCI) a revision names: "main@sha1:abc…" → "abc…", "latest@sha256:…" → "sha256:…". */
export function revisionId(kind: string, revision: string | undefined): string | undefined {
  if (revision === undefined) return undefined;
  if (kind === "OCIRepository") return /(sha256:[0-9a-f]{64})$/.exec(revision)?.[1];
  return /(?:sha1:|sha256:|\/|^)([0-9a-f]{40}|[0-9a-f]{64})$/.exec(revision)?.[1];
}
