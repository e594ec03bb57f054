// Revision identity: which commit or digest a Flux revision names, so that a pin and a revision can be compared.

/**
 * The commit (Git) or digest (OCI) a revision names: "main@sha1:abc…" → "abc…", "latest@sha256:…" → "sha256:…".
 *
 * @example revisionId("GitRepository", "main@sha1:4f2c…") // "4f2c…"
 */
export function revisionId(kind: string, revision: string | undefined): string | undefined {
  if (revision === undefined) return undefined;
  if (kind === "OCIRepository") return /(sha256:[0-9a-f]{64})$/.exec(revision)?.[1];
  return /(?:sha1:|sha256:|\/|^)([0-9a-f]{40}|[0-9a-f]{64})$/.exec(revision)?.[1];
}
