// Ready is observed: when a target that does not do what its windows decided is a problem, and the sentence that says why.

import assert from "node:assert/strict";
import { test } from "node:test";
import { FOLLOW_GRACE_MS, notFollowing, windowStatus, type FollowInput, type TargetReport } from "../../../src/controller/status.ts";
import { compileWindow } from "../../../src/schedule/index.ts";

const base: FollowInput = { desired: true, actual: false, divergedSince: 1_000, now: 1_000, writeError: null, revertedBy: null, inFlightUntil: null };

test("a target as decided follows; a lag shorter than a write's is no problem yet, and says when to look again", () => {
  assert.deepEqual(notFollowing({ ...base, actual: true }), { problem: null, recheckAt: null });
  assert.deepEqual(notFollowing({ ...base, now: 1_000 + FOLLOW_GRACE_MS - 1 }), { problem: null, recheckAt: 1_000 + FOLLOW_GRACE_MS });
  assert.equal(
    notFollowing({ ...base, now: 1_000 + FOLLOW_GRACE_MS }).problem,
    "spec.suspend is false, the window wants true: so for longer than 10s, although nothing refused fluxgate's write",
  );
});

test("a write the API server refused is a problem at once, quoting its answer; a failing one only once overdue", () => {
  const refused = { code: 403, message: 'kustomizations.kustomize.toolkit.fluxcd.io "apps" is forbidden: User "x" cannot patch resource "kustomizations"' };
  assert.equal(
    notFollowing({ ...base, writeError: refused }).problem,
    `spec.suspend is false, the window wants true: fluxgate may not write it (403): ${refused.message}`,
  );
  const flaky = { code: 500, message: "etcdserver: request timed out" };
  assert.equal(notFollowing({ ...base, writeError: flaky }).problem, null, "a server error may pass on the next try");
  assert.equal(
    notFollowing({ ...base, writeError: flaky, now: 1_000 + FOLLOW_GRACE_MS }).problem,
    "spec.suspend is false, the window wants true: fluxgate's writes fail: etcdserver: request timed out",
  );
  assert.equal(notFollowing({ ...base, writeError: { code: undefined, message: "connect ECONNREFUSED" } }).problem, null);
});

test("a close waiting for an apply in flight is what it should do, until its grace ends; a writer that sets it back is named", () => {
  assert.deepEqual(notFollowing({ ...base, now: 50_000, inFlightUntil: 60_000 }), { problem: null, recheckAt: 60_000 + FOLLOW_GRACE_MS });
  assert.match(notFollowing({ ...base, now: 80_000, inFlightUntil: 60_000 }).problem ?? "", /^spec\.suspend is false, the window wants true: /);
  assert.equal(
    notFollowing({ ...base, now: 1_000 + FOLLOW_GRACE_MS, revertedBy: "kustomize-controller" }).problem,
    'spec.suspend is false, the window wants true: manager "kustomize-controller" keeps setting it back',
  );
});

function report(extra: Partial<TargetReport> = {}): TargetReport {
  return {
    kind: "Kustomization",
    namespace: "flux-system",
    name: "apps-rw",
    suspended: false,
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

test("Ready is False with TargetNotFollowing naming the target, or TargetNotFound naming the missing ones; True only when every target follows", () => {
  const compiled = compileWindow("w", { schedules: [{ start: "0 9 * * *", duration: "1h" }] });
  const now = Date.parse("2026-11-25T06:00:00Z");
  const ready = (targets: TargetReport[], missing: string[] = []) =>
    windowStatus({ compiled, overrides: [], targets, generation: 3, previous: undefined, now, missing }).conditions?.find((c) => c.type === "Ready");
  assert.deepEqual([ready([report({ suspended: true })])?.status, ready([report({ suspended: true })])?.reason], ["True", "Reconciled"]);
  const astray = ready([report({ notFollowing: "spec.suspend is false, the window wants true: fluxgate may not write it (403): forbidden" })]);
  assert.deepEqual([astray?.status, astray?.reason], ["False", "TargetNotFollowing"]);
  assert.equal(
    astray?.message,
    "1 target(s) do not follow the window: Kustomization/flux-system/apps-rw: spec.suspend is false, the window wants true: fluxgate may not write it (403): forbidden",
  );
  const missing = ready([], ["Kustomization flux-system/apps-rww does not exist; did you mean apps-rw?"]);
  assert.deepEqual(
    [missing?.status, missing?.reason, missing?.message],
    ["False", "TargetNotFound", "1 target(s) named by the window do not exist: Kustomization flux-system/apps-rww does not exist; did you mean apps-rw?"],
  );
});
