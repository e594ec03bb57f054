// fluxgate's error vocabulary, two words for every layer: bad input (with the fields at fault) and a failure; each edge maps them once.
//
// The CLI exits 2 for an InputError and 1 for a Failure (src/cli/main.ts); the Config Service
// answers 400 with the problems, or 5xx (src/server/app.ts); the controller reports an input error
// as Ready=False without retrying and retries a failure with backoff. Subclasses say where an
// error comes from (ScheduleError, ValidationError, GitError, ...) and add their own fields; no
// layer translates one family into another to reach its edge.

/** One thing wrong with the input, named by its field as users write it: `spec.schedules[1].duration`. */
export interface FieldProblem {
  /** Field path as users write it; "" when the problem is not about one field. */
  path: string;
  message: string;
}

/** The input is wrong (a spec, a flag, a file, a request body); nothing was done. Retrying the same input fails the same way. */
export class InputError extends Error {
  /** A machine-readable reason, as Kubernetes conditions have one. */
  readonly reason: string;
  /** The problems, one per field; the message lists them, one a line, when none is given. */
  readonly problems: readonly FieldProblem[];

  constructor(message: string, options: { reason?: string; problems?: readonly FieldProblem[]; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.reason = options.reason ?? "InvalidInput";
    this.problems = options.problems ?? [{ path: "", message }];
  }
}

/** Something failed while doing the work (a cluster unreachable, a tool or Git that failed, a disk); the input may be fine. */
export class Failure extends Error {
  readonly reason: string;

  constructor(message: string, options: { reason?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.reason = options.reason ?? "Failed";
  }
}

/** The message of a list of problems: one a line, each with its field. */
export function problemsText(problems: readonly FieldProblem[]): string {
  return problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join("\n");
}
