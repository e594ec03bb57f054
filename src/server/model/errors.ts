// The Config Service's domain errors: what the Git layer, the model, the planners and the live reads throw. They know no HTTP; http/errors.ts maps each to a
// status, once.

import { Failure, InputError, type FieldProblem } from "../../errors.ts";

/**
 * The service cannot start or run with what it was given: a repository, a tokens file, a flag.
 * Bad input of whoever runs the service (the CLI exits 2); to a caller of the API it is the
 * service's failure (503).
 */
export class ConfigError extends InputError {
  constructor(message: string, options?: { cause?: unknown; problems?: readonly FieldProblem[] }) {
    super(message, { reason: "InvalidConfiguration", cause: options?.cause, ...(options?.problems === undefined ? {} : { problems: options.problems }) });
  }
}

/** What a request names is not there: a cluster, a window, an override (404). */
export class NotFoundError extends InputError {
  constructor(message: string, options: { problems?: readonly FieldProblem[]; cause?: unknown } = {}) {
    super(message, { reason: "NotFound", problems: options.problems ?? [], cause: options.cause });
  }
}

/**
 * The request cannot be done as things are, though it is well formed (409): a fleet window changed
 * as a cluster's own file, a name already taken, a working copy with changes of its own, no live
 * connection to the cluster.
 */
export class ConflictError extends InputError {
  constructor(message: string, options: { problems?: readonly FieldProblem[]; cause?: unknown } = {}) {
    super(message, { reason: "Conflict", problems: options.problems ?? [], cause: options.cause });
  }
}

/** A remote the service depends on refused or failed (502): Git's origin did not take a push, a cluster's API did not answer. */
export class RemoteFailure extends Failure {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { reason: "RemoteFailed", cause: options.cause });
  }
}

/** Writes raced and this one lost every time (503): nothing was written; trying again may work. */
export class BusyFailure extends Failure {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { reason: "Busy", cause: options.cause });
  }
}
