// Error types of the local control plane (devenv) that `fluxgate demo` and the tests run: each says what went wrong and what to do about it.

import { Failure } from "../errors.ts";

/** Base class of every error the local control plane throws (named for the test harness it grew out of). */
export class HarnessError extends Failure {
  constructor(reason: string, message: string, options?: { cause?: unknown }) {
    super(message, { reason, cause: options?.cause });
  }
}

/** A program the local control plane needs (go, git) is missing or too old. */
export class PrerequisiteError extends HarnessError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("PrerequisiteMissing", message, options);
  }
}

/** Building an upstream tool from its Go module failed. */
export class ToolBuildError extends HarnessError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("ToolBuildFailed", message, options);
  }
}

/** A component did not become ready in time, or exited while starting. */
export class StartupError extends HarnessError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("StartupFailed", message, options);
  }
}

/** A polled condition did not hold before its deadline. */
export class WaitTimeoutError extends HarnessError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("WaitTimeout", message, options);
  }
}
