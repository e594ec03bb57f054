// Errors of the repository tooling: bad input (nothing was changed) and failures of the tools it runs.

import { Failure, InputError, type FieldProblem } from "../errors.ts";

/** The repository or the command's input is wrong; nothing was written. The CLI exits 2. */
export class RepositoryInputError extends InputError {
  constructor(message: string, options?: { cause?: unknown; problems?: readonly FieldProblem[] }) {
    super(message, { reason: "InvalidInput", cause: options?.cause, ...(options?.problems === undefined ? {} : { problems: options.problems }) });
  }
}

/** kustomize is missing or failed in a way that is not the repository's fault, or the disk refused a write. The CLI exits 1. */
export class ToolFailedError extends Failure {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { reason: "ToolFailed", cause: options?.cause });
  }
}
