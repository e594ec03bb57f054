// What the controller wrote about a target on its windows, read back the same way by every surface; and the closest name for one that does not exist.

import assert from "node:assert/strict";
import { test } from "node:test";
import { closestName, observedTarget, refusesTarget } from "../../../src/policy/index.ts";

const target = { kind: "Kustomization", namespace: "b", name: "app-b" };
const window = (namespace: string, name: string, reason: string, message: string, status = "False") => ({
  metadata: { namespace, name },
  status: { conditions: [{ type: "Ready", status, reason, message }] },
});

test("a window in another namespace that reports AccessDenied does not govern the target; a Ready=False naming it is its problem", () => {
  const o = observedTarget(target, [
    window(
      "a",
      "wa",
      "AccessDenied",
      "cross-namespace references are disabled (--no-cross-namespace-refs): spec.targets[0] (Kustomization b/app-b) is not acted on",
    ),
    window("b", "wb", "TargetNotFollowing", "1 target(s) do not follow the window: Kustomization/b/app-b: spec.suspend is false, the window wants true"),
    window("b", "other", "TargetNotFollowing", "1 target(s) do not follow the window: Kustomization/b/app-c: spec.suspend is false"),
    window("b", "fine", "Reconciled", "1 target(s) follow the window", "True"),
  ]);
  assert.deepEqual(
    o.refusedBy.map((r) => r.name),
    ["wa"],
  );
  assert.deepEqual(
    o.problems.map((p) => [p.name, p.reason]),
    [["wb", "TargetNotFollowing"]],
  );
  assert.equal(refusesTarget(o, { namespace: "a", name: "wa" }), true);
  assert.equal(refusesTarget(o, { namespace: "b", name: "wb" }), false);
  // AccessDenied in the target's own namespace is about other entries: the window governs this one.
  assert.deepEqual(observedTarget(target, [window("b", "own", "AccessDenied", "…")]).refusedBy, []);
});

test("the closest existing name, within a third of its length", () => {
  assert.equal(closestName("apps-rww", ["apps-rt", "apps-rw", "infra"]), "apps-rw");
  assert.equal(closestName("podinfo", ["podinfo-canary", "grafana"]), undefined);
  assert.equal(closestName("ap", ["ab", "xy"]), "ab");
});
