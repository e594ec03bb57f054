// Reconcile steps and typed errors: the first step that stops decides, and the error's type decides the requeue.

import assert from "node:assert/strict";
import { test } from "node:test";
import { ValidationError } from "../../../src/api/index.ts";
import { DONE, isFailure, outcomeOf, requeueAfter, runSteps, StallingError, verdictOf, WaitingError, type Step } from "../../../src/controller/result.ts";
import { RequestTimeoutError } from "../../../src/kube/connection.ts";

test("steps run in order until one stops; every step saying next gives null", async () => {
  const ran: string[] = [];
  const step =
    (name: string, result: "next" | ReturnType<typeof requeueAfter>): Step<string[]> =>
    (log) => {
      log.push(name);
      return result;
    };
  assert.deepEqual(await runSteps(ran, [step("a", "next"), step("b", requeueAfter(250)), step("c", "next")]), { kind: "requeueAfter", ms: 250 });
  assert.deepEqual(ran, ["a", "b"], "c does not run after b stopped the run");
  assert.equal(await runSteps([], [step("a", "next"), async () => Promise.resolve("next" as const)]), null);
});

test("a step that throws ends the run with its error", async () => {
  const boom = new Error("boom");
  const after: string[] = [];
  await assert.rejects(
    runSteps(after, [
      () => {
        throw boom;
      },
      (log) => (log.push("after"), "next"),
    ]),
    boom,
  );
  assert.deepEqual(after, []);
});

test("a stalling error is done, a waiting one is retried (after its time when known), anything else is retried with backoff", () => {
  const stalled = new StallingError("InvalidSpec", 'cron "0 0 30 2 *" never runs');
  assert.deepEqual(outcomeOf(stalled), DONE);
  assert.equal(stalled.reason, "InvalidSpec");
  const later = new WaitingError("WindowOpened", "event not recorded", { retryAfterMs: 1_500 });
  assert.deepEqual(outcomeOf(later), { kind: "requeueAfter", ms: 1_500 });
  const backoff = new WaitingError("WindowOpened", "event not recorded");
  assert.deepEqual(outcomeOf(backoff), { kind: "retry", error: backoff });
  const transient = new Error("HTTP 500");
  assert.deepEqual(outcomeOf(transient), { kind: "retry", error: transient });
  assert.deepEqual([stalled, later, transient].map(isFailure), [false, false, true], "only a transient error counts as a failure");
});

test("the controller's edge maps the error vocabulary once: an input error stalls with its reason, a waiting error requeues, a failure is retried", () => {
  const invalid = verdictOf(new ValidationError([{ path: "spec.schedules[0].start", message: "not a cron" }]));
  assert.deepEqual(invalid, { kind: "stalled", reason: "InvalidSpec", message: "spec.schedules[0].start: not a cron", outcome: DONE });
  assert.equal(verdictOf(new WaitingError("WindowOpened", "not recorded", { retryAfterMs: 10 })).kind, "waiting");
  const timeout = new RequestTimeoutError("no answer");
  assert.deepEqual(verdictOf(timeout), { kind: "failed", reason: timeout.reason, message: "no answer", outcome: { kind: "retry", error: timeout } });
  assert.equal(verdictOf(new Error("HTTP 500")).reason, "ReconcileFailed");
});

test("requeueAfter waits at least a millisecond", () => {
  assert.deepEqual(requeueAfter(0), { kind: "requeueAfter", ms: 1 });
  assert.deepEqual(requeueAfter(-5), { kind: "requeueAfter", ms: 1 });
});
