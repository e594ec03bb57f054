// Errors of the time engine: every rejected input says which field and what is wrong with it.

import { InputError, problemsText, type FieldProblem } from "../errors.ts";

/**
 * Bad schedule input. `path` names the field in the user's manifest
 * (e.g. `spec.schedules[1].duration`) when the caller knows it.
 */
export class ScheduleError extends InputError {
  readonly path: string;
  readonly detail: string;

  constructor(detail: string, path = "", options?: { cause?: unknown; problems?: readonly FieldProblem[] }) {
    const problems = options?.problems ?? [{ path, message: detail }];
    super(problems.length > 1 ? problemsText(problems) : path ? `${path}: ${detail}` : detail, { reason: "InvalidSchedule", problems, cause: options?.cause });
    this.path = path;
    this.detail = detail;
  }

  /** The same error, placed at a field of the manifest. */
  at(path: string): ScheduleError {
    return new ScheduleError(this.detail, path, { cause: this.cause });
  }

  /** One error for the problems of several fields, as a check of every part finds them; `path` and `detail` are the first's. */
  static all(errors: readonly ScheduleError[]): ScheduleError {
    const [first] = errors;
    if (first === undefined) throw new RangeError("ScheduleError.all needs at least one error");
    if (errors.length === 1) return first;
    return new ScheduleError(first.detail, first.path, { problems: errors.flatMap((e) => e.problems) });
  }
}
