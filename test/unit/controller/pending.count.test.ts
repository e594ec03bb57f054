// Counting what waits: distinct revisions arrived since the applied one, and since when, carried over from the previous status.

import assert from "node:assert/strict";
import { test } from "node:test";
import { pendingSincePin } from "../../../src/controller/gate.ts";
import { carryPending } from "../../../src/controller/status.ts";

const A = "a".repeat(40);
const B = "b".repeat(40);
const C = "c".repeat(40);

test("a target starts waiting with one revision, since its source's artifact arrived", () => {
  assert.deepEqual(carryPending(undefined, { appliedRevision: `main@sha1:${A}`, pendingRevision: `main@sha1:${B}`, waitingSince: "2026-11-20T10:00:00Z" }), {
    revisions: 1,
    waitingSince: "2026-11-20T10:00:00Z",
  });
});

test("each new revision adds one while the target applies nothing, and the wait keeps its start", () => {
  const before = {
    kind: "Kustomization",
    namespace: "ns",
    name: "apps-rw",
    appliedRevision: `main@sha1:${A}`,
    pendingRevision: `main@sha1:${B}`,
    revisions: 1,
    waitingSince: "2026-11-20T10:00:00Z",
  };
  const second = carryPending(before, { appliedRevision: `main@sha1:${A}`, pendingRevision: `main@sha1:${C}`, waitingSince: "2026-11-20T11:00:00Z" });
  assert.deepEqual(second, { revisions: 2, waitingSince: "2026-11-20T10:00:00Z" });
  // The same revision seen again (a resync) is not counted twice.
  assert.deepEqual(
    carryPending(
      { ...before, pendingRevision: `main@sha1:${C}`, revisions: 2 },
      { appliedRevision: `main@sha1:${A}`, pendingRevision: `main@sha1:${C}`, waitingSince: "2026-11-20T11:00:00Z" },
    ),
    second,
  );
});

test("once the target applied something, counting starts over", () => {
  const before = {
    kind: "Kustomization",
    namespace: "ns",
    name: "apps-rw",
    appliedRevision: `main@sha1:${A}`,
    pendingRevision: `main@sha1:${B}`,
    revisions: 3,
    waitingSince: "2026-11-20T10:00:00Z",
  };
  assert.deepEqual(carryPending(before, { appliedRevision: `main@sha1:${B}`, pendingRevision: `main@sha1:${C}`, waitingSince: "2026-11-21T08:00:00Z" }), {
    revisions: 1,
    waitingSince: "2026-11-21T08:00:00Z",
  });
});

test("Gate: upstream revisions ahead of the pin are counted while the pin holds, and reset when it moves", () => {
  const first = pendingSincePin("GitRepository", undefined, A, `main@sha1:${B}`, "2026-11-21T09:30:00Z");
  assert.deepEqual(first, { pendingRevisions: 1, pendingSince: "2026-11-21T09:30:00Z" });
  const previous = {
    upstream: "GitRepository/gitops",
    gatedSource: "GitRepository/gitops-gated",
    upstreamRevision: `main@sha1:${B}`,
    pinnedRevision: A,
    ...first,
  };
  assert.deepEqual(pendingSincePin("GitRepository", previous, A, `main@sha1:${B}`, "2026-11-21T09:30:00Z"), first, "the same upstream revision again");
  assert.deepEqual(pendingSincePin("GitRepository", previous, A, `main@sha1:${C}`, "2026-11-21T10:15:00Z"), {
    pendingRevisions: 2,
    pendingSince: "2026-11-21T09:30:00Z",
  });
  // The pin moved to B (approved, or the window opened): C is the first revision ahead of it.
  assert.deepEqual(pendingSincePin("GitRepository", previous, B, `main@sha1:${C}`, "2026-11-21T10:15:00Z"), {
    pendingRevisions: 1,
    pendingSince: "2026-11-21T10:15:00Z",
  });
  // A previous pin recorded as a full revision names the same commit.
  assert.deepEqual(pendingSincePin("GitRepository", { ...previous, pinnedRevision: `main@sha1:${A}` }, A, `main@sha1:${C}`, "2026-11-21T10:15:00Z"), {
    pendingRevisions: 2,
    pendingSince: "2026-11-21T09:30:00Z",
  });
});
