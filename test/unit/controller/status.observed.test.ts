// A window's status says what happened: the next change named right, revisions applied while closed, gates that hold nothing.

import assert from "node:assert/strict";
import { test } from "node:test";
import { violationsOf, windowStatus, type TargetReport } from "../../../src/controller/status.ts";
import { compileWindow } from "../../../src/schedule/index.ts";

const NOW = Date.parse("2026-11-25T06:00:00Z"); // Wednesday, closed

function report(extra: Partial<TargetReport> = {}): TargetReport {
  return {
    kind: "Kustomization",
    namespace: "flux-system",
    name: "apps-rw",
    suspended: true,
    conflict: false,
    pending: null,
    revertedBy: null,
    parentHeld: false,
    unwired: null,
    violation: null,
    suspendedWhileOpenSince: null,
    recheckAt: null,
    notFollowing: null,
    ...extra,
  };
}

function status(
  targets: TargetReport[],
  timing: Parameters<typeof compileWindow>[1] = { schedules: [{ start: "0 9 * * *", duration: "1h" }] },
  previous?: Parameters<typeof windowStatus>[0]["previous"],
) {
  return windowStatus({ compiled: compileWindow("w", timing), overrides: [], targets, generation: 1, previous, now: NOW });
}

test("a closed window whose next change is a freeze says it freezes, not that it opens", () => {
  // Schedule and freeze both at 09:00: the freeze wins, so at 09:00 the window freezes.
  const s = status([report()], {
    schedules: [{ start: "0 9 * * *", duration: "1h" }],
    freezes: [{ start: "0 9 * * *", duration: "1h", reason: "change board" }],
  });
  assert.equal(s.state, "Closed");
  assert.match(s.reason ?? "", /^Closed: no schedule is active; freezes Wed 2026-11-25 09:00 UTC$/);
  assert.match(status([report()]).reason ?? "", /^Closed: no schedule is active; opens Wed 2026-11-25 09:00 UTC$/);
});

test("a revision applied while closed is listed, makes Ready False with reason AppliedWhileClosed, and is kept until the window opens", () => {
  const violation = {
    revision: "main@sha1:bbb",
    previousRevision: "main@sha1:aaa",
    at: NOW - 60_000,
    cause: 'spec.suspend was set to false by manager "kustomize-controller"',
  };
  const s = status([report({ suspended: false, violation, revertedBy: "kustomize-controller" })]);
  assert.deepEqual(s.violations, [
    {
      kind: "Kustomization",
      namespace: "flux-system",
      name: "apps-rw",
      revision: "main@sha1:bbb",
      previousRevision: "main@sha1:aaa",
      at: "2026-11-25T05:59:00Z",
      cause: violation.cause,
    },
  ]);
  const ready = s.conditions?.find((c) => c.type === "Ready");
  assert.equal(ready?.status, "False");
  assert.equal(ready?.reason, "AppliedWhileClosed");
  assert.match(
    ready?.message ?? "",
    /Kustomization\/flux-system\/apps-rw applied main@sha1:bbb at 2026-11-25T05:59:00Z \(spec\.suspend was set to false by manager "kustomize-controller"\)/,
  );
  assert.equal(s.targets?.open, 1, "counts are observed: the target was not suspended");
  const reverted = s.conditions?.find((c) => c.type === "SuspendReverted");
  assert.match(reverted?.message ?? "", /remove spec\.suspend from the manifest in Git/, "advice for a Flux manager");
  // The target's memory is gone (a restart): the status keeps the record while closed.
  const later = status([report()], undefined, s);
  assert.equal(later.violations?.length, 1);
  assert.equal(later.conditions?.find((c) => c.type === "Ready")?.reason, "AppliedWhileClosed");
  // Once open, applying is what the window is for: the record clears.
  assert.deepEqual(violationsOf(s, [report({ violation })], true), []);
});

test("advice for a person who set spec.suspend back: use fluxgate open", () => {
  const s = status([report({ suspended: false, revertedBy: "kubectl-patch" })]);
  assert.match(s.conditions?.find((c) => c.type === "SuspendReverted")?.message ?? "", /use `fluxgate open`/);
  assert.equal(s.conditions?.find((c) => c.type === "Ready")?.status, "True", "a revert fluxgate set back is no violation by itself");
});

test("a Gate target that bypasses the gated source: Ready False, SourceNotGated, naming the sourceRef it should have", () => {
  const s = status([report({ unwired: "its sourceRef is GitRepository/gitops; set it to GitRepository/gitops-gated" })]);
  const ready = s.conditions?.find((c) => c.type === "Ready");
  assert.equal(ready?.reason, "SourceNotGated");
  assert.match(ready?.message ?? "", /Kustomization\/flux-system\/apps-rw: its sourceRef is GitRepository\/gitops; set it to GitRepository\/gitops-gated/);
});

test("a mode conflict: Ready False, ModeConflict, the target held closed", () => {
  const s = status([report({ conflict: true })]);
  const ready = s.conditions?.find((c) => c.type === "Ready");
  assert.equal(ready?.reason, "ModeConflict");
  assert.match(ready?.message ?? "", /held closed/);
});

test("a window open at all times has no current interval in its status (an empty object would be refused by the API server)", () => {
  const always = status([report({ suspended: false })], { schedules: [{ start: "* * * * *", end: "* * * * *" }] });
  assert.equal(always.state, "Open");
  assert.equal("currentInterval" in always, false);
  const bounded = status([report()]);
  assert.deepEqual(bounded.currentInterval, { end: "2026-11-25T09:00:00Z", ...(bounded.since !== undefined ? { start: bounded.since } : {}) });
});

test("observedGeneration moves only when Ready: a window that is not Ready keeps the generation last reconciled while Ready", () => {
  const ok = windowStatus({ compiled: compileWindow("w", {}), overrides: [], targets: [report()], generation: 1, previous: undefined, now: NOW });
  assert.equal(ok.observedGeneration, 1);
  const violation = { revision: "main@sha1:bbb", previousRevision: "main@sha1:aaa", at: NOW - 60_000, cause: "manual" };
  const notReady = windowStatus({
    compiled: compileWindow("w", {}),
    overrides: [],
    targets: [report({ suspended: false, violation })],
    generation: 2,
    previous: ok,
    now: NOW,
  });
  assert.equal(notReady.conditions?.find((c) => c.type === "Ready")?.status, "False");
  assert.equal(notReady.observedGeneration, 1, "not Ready at generation 2: still 1");
  assert.equal(notReady.conditions?.find((c) => c.type === "Ready")?.observedGeneration, 2, "the condition says which generation it is about");
  const never = windowStatus({
    compiled: compileWindow("w", {}),
    overrides: [],
    targets: [report({ suspended: false, violation })],
    generation: 1,
    previous: undefined,
    now: NOW,
  });
  assert.equal(never.observedGeneration, undefined, "never Ready: none");
});
