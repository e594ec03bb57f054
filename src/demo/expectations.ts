// The demo's expectations: each step of the story states one, and the result is an `ok` or `FAIL` line.

import { Failure } from "../errors.ts";
import { DemoTimeoutError } from "./poll.ts";

/** The outcome of one expectation. */
export interface Result {
  readonly ok: boolean;
  /** `[Suspend] the ConfigMap took the commit at once`. */
  readonly expectation: string;
  /** What was measured (ok) or what went wrong (FAIL). */
  readonly detail: string;
}

/** `ok  [Suspend] …: 2.1s after the commit` or `FAIL [Gate] …: timed out …`. */
export function formatResult(r: Result): string {
  return `${r.ok ? "ok  " : "FAIL"} ${r.expectation}${r.detail === "" ? "" : `: ${r.detail}`}`;
}

/** Collects results and hands each line to `report` as it is known. */
export class Expectations {
  readonly results: Result[] = [];
  private readonly report: (line: string) => void;

  constructor(report: (line: string) => void) {
    this.report = report;
  }

  record(result: Result): void {
    this.results.push(result);
    this.report(formatResult(result));
  }

  get failed(): number {
    return this.results.filter((r) => !r.ok).length;
  }
}

/** A step whose expectation did not hold; its message says what was seen instead. */
export class ExpectationError extends Failure {
  constructor(message: string) {
    super(message, { reason: "ExpectationFailed" });
  }
}

/** Throws an ExpectationError with `message` unless `condition` holds. */
export function expect(condition: boolean, message: string): asserts condition {
  if (!condition) throw new ExpectationError(message);
}

/** One step of a story: the expectation it states, and what it does. */
export interface Step {
  readonly expectation: string;
  /** Does the step; returns what was measured, or throws an ExpectationError or DemoTimeoutError. */
  run(): Promise<string>;
}

/**
 * Plays `steps` in order and records one result per step, its expectation after `label`. A step
 * that fails ends the story: the steps after it are recorded as not checked. Any other error is thrown.
 */
export async function playSteps(steps: readonly Step[], label: string, expectations: Expectations): Promise<void> {
  let failed = false;
  for (const step of steps) {
    const expectation = `${label} ${step.expectation}`;
    if (failed) {
      expectations.record({ ok: false, expectation, detail: "not checked: an earlier step failed" });
      continue;
    }
    try {
      expectations.record({ ok: true, expectation, detail: await step.run() });
    } catch (e) {
      if (!(e instanceof ExpectationError || e instanceof DemoTimeoutError)) throw e;
      failed = true;
      expectations.record({ ok: false, expectation, detail: e.message });
    }
  }
}
