// The CLI's words for the two kinds of error (src/errors.ts) and their exit codes: 2 for bad usage or input, 1 for failures.

import { Failure, InputError, type FieldProblem } from "../errors.ts";

/** The command line or its input is wrong; nothing was done. Exit code 2, as every InputError. */
export class UsageError extends InputError {
  constructor(message: string, options?: { cause?: unknown; problems?: readonly FieldProblem[] }) {
    super(message, { reason: "Usage", cause: options?.cause, ...(options?.problems === undefined ? {} : { problems: options.problems }) });
  }
}

/** Something failed while doing the work (file unreadable, cluster unreachable). Exit code 1, as every Failure. */
export class OperationalError extends Failure {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { reason: "Failed", cause: options?.cause });
  }
}

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
