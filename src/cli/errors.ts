// Errors the CLI maps to exit codes: 2 for bad usage or input, 1 for operational failures.

/** The command line or its input is wrong; nothing was done. Exit code 2. */
export class UsageError extends Error {
  readonly reason = "Usage";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "UsageError";
  }
}

/** Something failed while doing the work (file unreadable, cluster unreachable). Exit code 1. */
export class OperationalError extends Error {
  readonly reason = "Failed";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "OperationalError";
  }
}

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
