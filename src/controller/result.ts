// How a reconcile ends: steps that each say "next" or stop with an outcome, and the typed errors that decide the requeue.

import type { Outcome } from "../kube/queue.ts";

/** Nothing more to do until something changes (or the periodic resync). */
export const DONE: Outcome = { kind: "done" };

/** Look again after `ms` (at least 1 ms). */
export function requeueAfter(ms: number): Outcome {
  return { kind: "requeueAfter", ms: Math.max(1, ms) };
}

/** A step's result: carry on with the next step, or stop the reconcile with this outcome. */
export type StepResult = "next" | Outcome;

/** One named step of a reconcile over its run `R` (the object, the time, what the steps found so far). */
export type Step<R> = (run: R) => Promise<StepResult> | StepResult;

/** Runs the steps in order; the first that does not say "next" ends the run with its outcome (null: every step said "next"). */
export async function runSteps<R>(run: R, steps: readonly Step<R>[]): Promise<Outcome | null> {
  for (const step of steps) {
    const result = await step(run);
    if (result !== "next") return result;
  }
  return null;
}

/**
 * The object cannot make progress until its spec changes (an invalid schedule): no retry, a
 * Warning event and a Stalled condition say what to fix.
 */
export class StallingError extends Error {
  override readonly name = "StallingError";
  readonly reason: string;
  constructor(reason: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

/**
 * The reconcile waits for something outside fluxgate (an event the API server has not taken
 * yet): tried again after `retryAfterMs`, or with the queue's backoff when no time is known.
 * Expected, so not counted as a failure.
 */
export class WaitingError extends Error {
  override readonly name = "WaitingError";
  readonly reason: string;
  readonly retryAfterMs: number | undefined;
  constructor(reason: string, message: string, options?: { retryAfterMs?: number; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.reason = reason;
    this.retryAfterMs = options?.retryAfterMs;
  }
}

/** What an error means for the queue: stalled → done, waiting → requeue, anything else (transient) → retry with backoff. */
export function outcomeOf(error: unknown): Outcome {
  if (error instanceof StallingError) return DONE;
  if (error instanceof WaitingError) return error.retryAfterMs === undefined ? { kind: "retry", error } : requeueAfter(error.retryAfterMs);
  return { kind: "retry", error };
}

/** Whether an error is a failure to count and log as one (neither stalling nor waiting is). */
export function isFailure(error: unknown): boolean {
  return !(error instanceof StallingError) && !(error instanceof WaitingError);
}
