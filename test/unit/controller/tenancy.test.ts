// --no-cross-namespace-refs: which target entries a window may act on, and the sentence naming the others.

import assert from "node:assert/strict";
import { test } from "node:test";
import { refusedMessage, splitTargets } from "../../../src/policy/tenancy.ts";
import { Views } from "../../../src/policy/views.ts";

const targets = [
  { kind: "Kustomization", name: "apps" },
  { kind: "Kustomization", name: "apps", namespace: "team-d" },
  { kind: "Kustomization", name: "apps", namespace: "team-e" },
  { kind: "HelmRelease", namespace: "team-f", labelSelector: { matchLabels: { tier: "web" } } },
];

test("off (the default, as Flux's): every entry is acted on", () => {
  assert.deepEqual(splitTargets("team-d", targets, false), { allowed: targets, refused: [] });
});

test("on: entries naming another namespace are refused, with their index; the window's own namespace, named or not, is allowed", () => {
  const { allowed, refused } = splitTargets("team-d", targets, true);
  assert.deepEqual(allowed, targets.slice(0, 2));
  assert.deepEqual(
    refused.map((r) => r.index),
    [2, 3],
  );
  assert.equal(
    refusedMessage("team-d", refused),
    "cross-namespace references are disabled (--no-cross-namespace-refs): spec.targets[2] (Kustomization team-e/apps), spec.targets[3] (HelmRelease labelSelector in team-f) are not acted on; a window governs targets in its own namespace (team-d) only",
  );
});

test("the views of a controller with the flag select nothing outside the window's namespace, also for an invalid window", () => {
  const window = (spec: object): object => ({
    apiVersion: "fluxgate.io/v1alpha1",
    kind: "ReconciliationWindow",
    metadata: { name: "w", namespace: "team-d", uid: "u", generation: 1 },
    spec,
  });
  const valid = new Views({ noCrossNamespaceRefs: true }).window(window({ schedules: [{ start: "0 8 * * *", duration: "1h" }], targets }), Date.now());
  assert.deepEqual(valid.view.targets, targets.slice(0, 2));
  assert.equal(valid.refused.length, 2);
  const invalid = new Views({ noCrossNamespaceRefs: true }).window(window({ schedules: [{ start: "0 8 * * *", duration: "-1h" }], targets }), Date.now());
  assert.equal(invalid.view.compiled, null);
  assert.deepEqual(invalid.view.targets, targets.slice(0, 2));
  assert.equal(new Views().window(window({ schedules: [{ start: "0 8 * * *", duration: "1h" }], targets }), Date.now()).refused.length, 0);
});
