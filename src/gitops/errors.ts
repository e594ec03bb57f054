// Errors of the repository tooling: bad input (nothing was changed) and failures of the tools it runs.

/** The repository or the command's input is wrong; nothing was written. The CLI exits 2. */
export class RepositoryInputError extends Error {
  readonly reason = "InvalidInput";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RepositoryInputError";
  }
}

/** kustomize is missing or failed in a way that is not the repository's fault, or the disk refused a write. The CLI exits 1. */
export class ToolFailedError extends Error {
  readonly reason = "ToolFailed";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ToolFailedError";
  }
}
