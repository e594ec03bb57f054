// How a reconcile ends: steps that each say "next" or stop with an outcome, and the typed errors that decide the requeue.

import { Failure, InputError } from "../errors.ts";
import type { Outcome } from "../kube/queue.ts";

/** Nothing more to do until something changes (or the periodic resync). */
export const DONE: Outcome = { kind: "done" };

/**
 * Look again once the targets' writes under way are done (the queue's first lane), without holding a
 * worker meanwhile — or after `maxMs` from the first time the key asked, the writes still under way:
 * that run is told so (Enqueue.windowWaitedOut, WorkQueue.waitedOut) and must not ask again.
 */
export function afterTargets(maxMs: number): Outcome {
  return { kind: "afterFirstLane", maxMs };
}

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
 * The object cannot make progress until its spec changes (an invalid schedule): an input error
 * (src/errors.ts), so no retry; a Warning event and a Stalled condition say what to fix.
 */
export class StallingError extends InputError {
  constructor(reason: string, message: string, options?: { cause?: unknown }) {
    super(message, { reason, cause: options?.cause });
  }
}

/**
 * The reconcile waits for something outside fluxgate (an event the API server has not taken
 * yet): tried again after `retryAfterMs`, or with the queue's backoff when no time is known.
 * Expected, so not counted as a failure.
 */
export class WaitingError extends Failure {
  readonly retryAfterMs: number | undefined;
  constructor(reason: string, message: string, options?: { retryAfterMs?: number; cause?: unknown }) {
    super(message, { reason, cause: options?.cause });
    this.retryAfterMs = options?.retryAfterMs;
  }
}

/** What an error means at the controller's edge: the condition a reconciler reports and what the queue does next. */
export interface Verdict {
  /** stalled: bad input, reported as Ready=False and Stalled=True, not retried; waiting: expected, retried; failed: counted, retried with backoff. */
  kind: "stalled" | "waiting" | "failed";
  /** The condition's (and the Warning event's) reason. */
  reason: string;
  message: string;
  outcome: Outcome;
}

/**
 * The one mapping of errors at the controller's edge (as exit codes are the CLI's and HTTP
 * statuses the Config Service's): an input error stalls the object (done until it changes),
 * a WaitingError requeues it, anything else is a failure retried with the queue's backoff.
 */
export function verdictOf(error: unknown): Verdict {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof InputError) return { kind: "stalled", reason: error.reason, message, outcome: DONE };
  if (error instanceof WaitingError) {
    return {
      kind: "waiting",
      reason: error.reason,
      message,
      outcome: error.retryAfterMs === undefined ? { kind: "retry", error } : requeueAfter(error.retryAfterMs),
    };
  }
  return { kind: "failed", reason: error instanceof Failure ? error.reason : "ReconcileFailed", message, outcome: { kind: "retry", error } };
}

/** What an error means for the queue (see verdictOf). */
export function outcomeOf(error: unknown): Outcome {
  return verdictOf(error).outcome;
}

/** Whether an error is a failure to count and log as one (neither stalling nor waiting is). */
export function isFailure(error: unknown): boolean {
  return verdictOf(error).kind === "failed";
}
