// What waits for a target, and since when: from the revision's arrival, or from the target's creation when that came later.

import assert from "node:assert/strict";
import { test } from "node:test";
import { pendingOf, trimTarget, type FluxObject } from "../../../src/kube/flux.ts";

const source = { kind: "GitRepository", status: { artifact: { revision: "main@sha1:bbbb", lastUpdateTime: "2026-11-28T10:00:00Z" } } } as FluxObject;
const target = (created: string): FluxObject =>
  trimTarget({
    apiVersion: "kustomize.toolkit.fluxcd.io/v1",
    kind: "Kustomization",
    metadata: { name: "apps", namespace: "flux-system", creationTimestamp: created as unknown as Date },
    status: { lastAppliedRevision: "main@sha1:aaaa" },
  } as FluxObject);

test("a target made after the revision arrived waits from its creation, not from the artifact's time", () => {
  assert.equal(pendingOf(target("2026-11-28T10:03:10Z"), source)?.waitingSince, "2026-11-28T10:03:10Z", "20 s old, not 3m30s");
  assert.equal(pendingOf(target("2026-11-01T00:00:00Z"), source)?.waitingSince, "2026-11-28T10:00:00Z");
});
