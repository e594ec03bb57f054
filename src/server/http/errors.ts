// Errors of the Config Service: handlers throw HttpError(status, message); one handler renders them as JSON.

import type { FieldProblem } from "../../api/index.ts";
import { InputError } from "../../errors.ts";
import { BusyFailure, ConfigError, ConflictError, NotFoundError, RemoteFailure } from "../model/errors.ts";
import { GitError } from "../git/git.ts";

/** A request that fails with an HTTP status and a message for the caller. */
export class HttpError extends Error {
  readonly status: number;
  /** Field problems of an invalid body (400), in the controller's words. */
  readonly problems: readonly FieldProblem[];
  /** Extra response headers, e.g. Retry-After or WWW-Authenticate. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, message: string, options: { problems?: readonly FieldProblem[]; headers?: Record<string, string>; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = "HttpError";
    this.status = status;
    this.problems = options.problems ?? [];
    this.headers = options.headers ?? {};
  }
}

/** The JSON body of every error response. */
export interface ErrorBody {
  error: { status: number; message: string; problems?: FieldProblem[] };
}

/** The body for an HttpError: the message, and the field problems when there are any. */
export function errorBody(error: HttpError): ErrorBody {
  const body: ErrorBody = { error: { status: error.status, message: error.message } };
  if (error.problems.length > 0) body.error.problems = [...error.problems];
  return body;
}

/**
 * The one mapping of errors to HTTP answers: an HttpError as it is; the service's own bad
 * configuration 503; what a request names and is not there 404; a request that conflicts with
 * how things are 409; any other input error 400 with its field problems; a remote that failed
 * 502; writes that lost every race 503; a failed Git command 500; anything else a 500 that says
 * to look in the log (its details stay there).
 */
export function httpErrorOf(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof ConfigError) return new HttpError(503, `the repository cannot be read: ${err.message}`, { cause: err });
  if (err instanceof NotFoundError) return new HttpError(404, err.message, { problems: err.problems, cause: err });
  if (err instanceof ConflictError) return new HttpError(409, err.message, { problems: err.problems, cause: err });
  if (err instanceof RemoteFailure) return new HttpError(502, err.message, { cause: err });
  if (err instanceof BusyFailure) return new HttpError(503, err.message, { cause: err });
  if (err instanceof InputError) return new HttpError(400, err.message, { problems: err.problems, cause: err });
  if (err instanceof GitError) return new HttpError(500, `a Git command failed: ${err.message}`, { cause: err });
  return new HttpError(500, "internal error; see the service's log", { cause: err });
}
