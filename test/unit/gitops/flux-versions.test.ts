// Beta Flux Kustomizations read like v1: their patch fields become entries of spec.patches, as Flux converts them.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parse } from "yaml";
import { v1KustomizationSpec } from "../../../src/gitops/flux-versions.ts";

test("patchesStrategicMerge and patchesJson6902 become patches, after the ones already there; a v1 spec is left as it is", () => {
  const v1 = { path: "./apps", patches: [{ patch: "- op: remove\n  path: /spec/replicas\n", target: { kind: "Deployment" } }] };
  assert.equal(v1KustomizationSpec(v1), v1);

  const beta = v1KustomizationSpec({
    path: "./apps",
    validation: "client",
    patches: [{ path: "keep.yaml" }],
    patchesStrategicMerge: [{ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { replicas: 3 } }],
    patchesJson6902: [
      { target: { group: "apps", version: "v1", kind: "Deployment", name: "web" }, patch: [{ op: "add", path: "/metadata/labels/tier", value: "front" }] },
    ],
  });
  assert.equal(beta.patchesStrategicMerge, undefined);
  assert.equal(beta.patchesJson6902, undefined);
  assert.equal(beta.path, "./apps");
  const patches = beta.patches as Array<{ path?: string; patch?: string; target?: unknown }>;
  assert.equal(patches.length, 3);
  assert.deepEqual(patches[0], { path: "keep.yaml" });
  assert.deepEqual(parse(patches[1]?.patch ?? ""), { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { replicas: 3 } });
  assert.deepEqual(patches[2]?.target, { group: "apps", version: "v1", kind: "Deployment", name: "web" });
  assert.deepEqual(parse(patches[2]?.patch ?? ""), [{ op: "add", path: "/metadata/labels/tier", value: "front" }]);
});
