// Errors of the Config Service: handlers throw HttpError(status, message); one handler renders them as JSON.

import type { FieldProblem } from "../api/index.ts";

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

/** The service cannot start or run with what it was given: a repository, a tokens file, a flag. */
export class ConfigError extends Error {
  readonly reason = "InvalidConfiguration";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ConfigError";
  }
}
