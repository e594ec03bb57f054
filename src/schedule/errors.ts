// Errors of the time engine: every rejected input says which field and what is wrong with it.

import { InputError } from "../errors.ts";

/**
 * Bad schedule input. `path` names the field in the user's manifest
 * (e.g. `spec.schedules[1].duration`) when the caller knows it.
 */
export class ScheduleError extends InputError {
  readonly path: string;
  readonly detail: string;

  constructor(detail: string, path = "", options?: { cause?: unknown }) {
    super(path ? `${path}: ${detail}` : detail, { reason: "InvalidSchedule", problems: [{ path, message: detail }], cause: options?.cause });
    this.path = path;
    this.detail = detail;
  }

  /** The same error, placed at a field of the manifest. */
  at(path: string): ScheduleError {
    return new ScheduleError(this.detail, path, { cause: this.cause });
  }
}
