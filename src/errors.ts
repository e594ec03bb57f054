// fluxgate's error vocabulary, two words for every layer: bad input (with the fields at fault) and a failure; each edge maps them once.
//
// The CLI exits 2 for an InputError and 1 for a Failure (src/cli/main.ts); the Config Service
// answers 400 with the problems, or 5xx (src/server/app.ts); the controller reports an input error
// as Ready=False without retrying and retries a failure with backoff. Subclasses say where an
// error comes from (ScheduleError, ValidationError, GitError, ...) and add their own fields; no
// layer translates one family into another to reach its edge. Where a layer knows where an input
// came from (a flag, a file, a request body), `inContext` says so in front of the problems.

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

/** Where an input came from, said in front of its problems by `inContext`. */
export interface InputContext {
  /**
   * The flag, file or field the input came from (`--sync-interval 5x`, `fluxgate.yaml`, `duration`): each problem is said as `field: problem` and placed under
   * it.
   */
  field?: string;
  /** Between the field and each problem: ": ", or " " where the problem names the input itself (`--for duration "2d" is not a Go duration`). */
  separator?: string;
  /** The field each problem is said under instead of its own (a spec's field as the flag that gave it: `spec.timeZone` → `--tz`). */
  rename?: (path: string) => string;
  /** A sentence in front of the whole message (`the window is not valid`); the problems keep their own fields. */
  heading?: string;
  /** The problems on one line, joined by "; " (an HTTP answer's message, a log line). */
  oneLine?: boolean;
  /** The reason the error carries instead of its own (a schedule problem of a spec is InvalidSpec). */
  reason?: string;
  /** The kind of input error to throw instead of an InputError (the service's own configuration, say). */
  as?: new (message: string, options: { reason?: string; problems?: readonly FieldProblem[]; cause?: unknown }) => InputError;
}

/**
 * Runs `work`; an InputError it throws is thrown again with `context` in front of its problems
 * (the original as its cause). The one place an input error gains context on its way to an edge;
 * anything else it throws passes through.
 *
 * @example inContext({ field: "--sync-interval 5x" }, () => parseDuration("5x")) // InputError: --sync-interval 5x: duration "5x" is not a Go duration: ...
 */
export function inContext<T>(context: InputContext, work: () => T): T {
  try {
    return work();
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    throw withContext(e, context);
  }
}

function withContext(e: InputError, c: InputContext): InputError {
  const { field, rename } = c;
  const own = rename === undefined ? e.problems : e.problems.map((p) => ({ path: rename(p.path), message: p.message }));
  const problems = field === undefined ? own : own.map((p) => ({ path: field, message: p.path ? `${p.path}: ${p.message}` : p.message }));
  const lines =
    field !== undefined
      ? problems.map((p) => `${field}${c.separator ?? ": "}${p.message}`)
      : rename !== undefined
        ? problems.map((p) => `${p.path}: ${p.message}`)
        : e.message.split("\n");
  const body = lines.join(c.oneLine === true ? "; " : "\n");
  const message = c.heading === undefined ? body : `${c.heading}${c.oneLine === true ? ": " : ":\n"}${body}`;
  const As = c.as ?? InputError;
  return new As(message, { reason: c.reason ?? e.reason, problems, cause: e });
}
