// Windows' and overrides' statuses as Flux's kstatus and `kubectl wait` read them: Ready → Current, invalid → Failed at once (also after an edit), waiting →
// InProgress.

import assert from "node:assert/strict";
import { test } from "node:test";
import { overrideStatus } from "../../../src/controller/override.ts";
import { invalidStatus, windowStatus, type TargetReport } from "../../../src/controller/status.ts";
import { Views } from "../../../src/policy/views.ts";
import { INVALID_SPEC } from "../../../src/api/conditions.ts";
import { compileWindow } from "../../../src/schedule/index.ts";
import { kstatus, kubectlWaitMet } from "../../support/kstatus.ts";

const NOW = Date.parse("2026-11-25T10:00:00Z");
const DAY = 86_400_000;

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

function validWindow(generation: number, previous?: Parameters<typeof windowStatus>[0]["previous"]) {
  return windowStatus({
    compiled: compileWindow("w", { schedules: [{ start: "0 9 * * *", duration: "1h" }] }),
    overrides: [],
    targets: [report()],
    generation,
    previous,
    now: NOW,
  });
}

function override(name: string, until: number, generation = 1): object {
  return {
    apiVersion: "fluxgate.io/v1alpha1",
    kind: "WindowOverride",
    metadata: { name, namespace: "flux-system", uid: `u-${name}`, generation, creationTimestamp: new Date(NOW).toISOString() },
    spec: { windowRef: { name: "weekday-changes" }, action: "Open", until: new Date(until).toISOString(), reason: "hotfix INC-42" },
  };
}

test("a valid window is Current for kstatus and meets kubectl wait --for=condition=Ready", () => {
  const status = validWindow(1);
  const obj = { metadata: { generation: 1 }, status };
  assert.deepEqual(kstatus(obj).status, "Current");
  assert.equal(kubectlWaitMet(obj, "Ready"), true);
  assert.equal(kubectlWaitMet(obj, "Stalled"), false);
});

test("an invalid window is Failed with the field message, also when an edit made a valid one invalid (the generation is observed)", () => {
  const message = 'spec.schedules[0].start: "0 0 30 2 *" never matches: February has no day 30';
  const fresh = { metadata: { generation: 1 }, status: invalidStatus({ reason: INVALID_SPEC, message }, 1, undefined, NOW) };
  assert.deepEqual(kstatus(fresh), { status: "Failed", message });
  const edited = { metadata: { generation: 2 }, status: invalidStatus({ reason: INVALID_SPEC, message }, 2, validWindow(1), NOW) };
  assert.equal(edited.status.observedGeneration, 2, "Stalled observes the generation");
  assert.deepEqual(kstatus(edited), { status: "Failed", message }, "not InProgress until a timeout: Failed at once");
  assert.equal(kubectlWaitMet(edited, "Stalled"), true);
  assert.equal(kubectlWaitMet(edited, "Ready"), false);
  assert.equal(kubectlWaitMet(edited, "Ready", "False"), true);
});

test("a window not Ready for a reason that can pass (a change applied while closed) is InProgress, its generation not observed", () => {
  const violation = { revision: "main@sha1:bbb", previousRevision: "main@sha1:aaa", at: NOW - 60_000, cause: "manual" };
  const status = windowStatus({
    compiled: compileWindow("w", { schedules: [{ start: "0 9 * * *", duration: "1h" }] }),
    overrides: [],
    targets: [report({ suspended: false, violation })],
    generation: 2,
    previous: validWindow(1),
    now: NOW,
  });
  const obj = { metadata: { generation: 2 }, status };
  assert.equal(kstatus(obj).status, "InProgress");
  assert.equal(kubectlWaitMet(obj, "Ready"), false);
});

test("an override whose until is 30 days ahead is Failed naming the field; a valid one is Current; one whose window is missing is InProgress", () => {
  const views = new Views();
  const bad = overrideStatus(views.override(override("too-long", NOW + 30 * DAY), NOW), "flux-system", true, NOW, 1, undefined);
  const badObj = { metadata: { generation: 1 }, status: bad };
  assert.equal(kstatus(badObj).status, "Failed");
  assert.match(kstatus(badObj).message, /^spec\.until: is more than 7 days after the override was asked for/);
  assert.deepEqual(
    bad.conditions?.map((c) => [c.type, c.status, c.reason]),
    [
      ["Ready", "False", "InvalidSpec"],
      ["Stalled", "True", "InvalidSpec"],
    ],
  );
  assert.equal(bad.observedGeneration, 1);

  // Edited from valid to invalid: Failed as well, not waiting for a generation that will never be observed.
  const good = overrideStatus(views.override(override("hotfix", NOW + DAY), NOW), "flux-system", true, NOW, 1, undefined);
  const goodObj = { metadata: { generation: 1 }, status: good };
  assert.equal(kstatus(goodObj).status, "Current");
  assert.equal(kubectlWaitMet(goodObj, "Ready"), true);
  const edited = overrideStatus(views.override(override("hotfix", NOW + 30 * DAY, 2), NOW), "flux-system", true, NOW, 2, good);
  assert.equal(kstatus({ metadata: { generation: 2 }, status: edited }).status, "Failed");

  const orphan = overrideStatus(views.override(override("orphan", NOW + DAY), NOW), "flux-system", false, NOW, 1, undefined);
  assert.equal(kstatus({ metadata: { generation: 1 }, status: orphan }).status, "InProgress");
});

test("the ports read conditions as their originals do: a generation not observed keeps kubectl waiting and kstatus InProgress", () => {
  const stale = { metadata: { generation: 3 }, status: { observedGeneration: 2, conditions: [{ type: "ready", status: "true", observedGeneration: 2 }] } };
  assert.equal(kubectlWaitMet(stale, "Ready"), false);
  assert.equal(kstatus(stale).status, "InProgress");
  const upToDate = { metadata: { generation: 3 }, status: { observedGeneration: 3, conditions: [{ type: "ready", status: "true" }] } };
  assert.equal(kubectlWaitMet(upToDate, "Ready"), true, "kubectl compares type and status without case");
  assert.equal(kstatus({ metadata: { generation: 1 } }).status, "Current", "no status at all: kstatus cannot tell, and calls it Current");
});
