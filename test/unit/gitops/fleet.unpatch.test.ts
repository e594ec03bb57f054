// Removing a cluster's patch of a fleet window, on file texts alone: the entry goes with its comments, the rest of the file stays, a missing patch is refused.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseRepositoryFile } from "../../../src/gitops/files.ts";
import { NoFleetPatchError, planFleetWindowPatch, planFleetWindowUnpatch } from "../../../src/gitops/fleet/windows.ts";

const repository = parseRepositoryFile(`apiVersion: fluxgate.io/v1alpha1
kind: Repository
types: [{name: rw, window: true}]
clusters:
  - {name: a, path: clusters/a, timeZone: UTC, labels: {ring: prod}}
  - {name: b, path: clusters/b, timeZone: UTC, labels: {ring: prod}}
`);
const now = Date.parse("2026-11-24T00:00:00Z");
const base = `apiVersion: fluxgate.io/v1alpha1
kind: ReconciliationWindow
metadata: {name: w, namespace: flux-system}
spec:
  schedules: [{start: "0 8 * * MON", duration: 2h}]
  targets: [{kind: Kustomization, name: apps-rw}]
`;
const plain = `# a's windows
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ../../../fleet/windows/w # the fleet's window
`;
const withOwn = `${plain}patches:
  # a's own window runs later
  - target: {kind: ReconciliationWindow, name: own}
    patch: |-
      - {op: add, path: /spec/timeZone, value: UTC}
`;

function files(kustomization: string): (path: string) => string | null {
  const all = new Map([
    ["fleet/windows/w/w.yaml", base],
    ["clusters/a/windows/kustomization.yaml", kustomization],
  ]);
  return (p) => all.get(p) ?? null;
}

test("removing the patch a cluster was given brings its kustomization.yaml back byte for byte", () => {
  const [patched] = planFleetWindowPatch(repository, files(plain), { name: "w", cluster: "a", timeZone: "Asia/Tokyo" }, now);
  assert.match(patched?.after ?? "", /patches:/);
  const [removed] = planFleetWindowUnpatch(repository, files(patched?.after as string), { name: "w", cluster: "a" });
  assert.equal(removed?.path, "clusters/a/windows/kustomization.yaml");
  assert.equal(removed?.after, plain);
});

test("the cluster's other patches and their comments stay", () => {
  const [patched] = planFleetWindowPatch(repository, files(withOwn), { name: "w", cluster: "a", timeZone: "Asia/Tokyo" }, now);
  const [removed] = planFleetWindowUnpatch(repository, files(patched?.after as string), { name: "w", cluster: "a" });
  assert.equal(removed?.after, withOwn);
  // A patch written by hand, with comment lines above it, goes with them.
  const byHand = `${withOwn}  # w starts later here\n  - target:\n      kind: ReconciliationWindow\n      name: w\n    path: later.yaml\n`;
  const [again] = planFleetWindowUnpatch(repository, files(byHand), { name: "w", cluster: "a" });
  assert.equal(again?.after, withOwn);
});

test("a cluster without that patch, an unknown cluster or a bad name is refused, naming what there is", () => {
  assert.throws(
    () => planFleetWindowUnpatch(repository, files(withOwn), { name: "w", cluster: "a" }),
    (e: unknown) => {
      assert.ok(e instanceof NoFleetPatchError);
      assert.equal(e.message, "cluster a has no patch of fleet window w in clusters/a/windows/kustomization.yaml (it patches own): nothing to remove");
      return true;
    },
  );
  assert.throws(
    () => planFleetWindowUnpatch(repository, files(plain), { name: "w", cluster: "b" }),
    /cluster b has no patch of fleet window w in clusters\/b\/windows\/kustomization\.yaml \(the file does not exist\)/,
  );
  assert.throws(() => planFleetWindowUnpatch(repository, files(plain), { name: "w", cluster: "a" }), /\(it patches no window\): nothing to remove/);
  assert.throws(
    () => planFleetWindowUnpatch(repository, files(plain), { name: "w", cluster: "z" }),
    /--cluster z: not a cluster of fluxgate\.yaml \(clusters: a, b\)/,
  );
  assert.throws(() => planFleetWindowUnpatch(repository, files(plain), { name: "W_", cluster: "a" }), /must be a Kubernetes object name/);
});
