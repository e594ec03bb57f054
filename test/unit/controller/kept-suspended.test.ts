// A target kept suspended while its windows let it take changes: one stretch through a fight's short resumes, over after a quiet minute or when the windows
// close.

import assert from "node:assert/strict";
import { test } from "node:test";
import { KEPT_SUSPENDED_QUIET_MS, keptSuspended } from "../../../src/controller/state.ts";

const NONE = { since: null, resumedAt: null };

test("seen suspended while open starts the stretch; seen again keeps its start", () => {
  const first = keptSuspended(NONE, "held", 1_000);
  assert.deepEqual(first, { since: 1_000, resumedAt: null, recheckAt: null });
  assert.deepEqual(keptSuspended(first, "held", 9_000), { since: 1_000, resumedAt: null, recheckAt: null });
});

test("a resume shorter than the quiet minute (a re-assert that the other writer undoes) does not end the stretch", () => {
  const held = { since: 1_000, resumedAt: null };
  const resumed = keptSuspended(held, "resumed", 5_000);
  assert.deepEqual(resumed, { since: 1_000, resumedAt: 5_000, recheckAt: 5_000 + KEPT_SUSPENDED_QUIET_MS });
  assert.deepEqual(
    keptSuspended(resumed, "resumed", 20_000),
    { since: 1_000, resumedAt: 5_000, recheckAt: 5_000 + KEPT_SUSPENDED_QUIET_MS },
    "the resume keeps its first instant",
  );
  assert.deepEqual(keptSuspended(resumed, "held", 30_000), { since: 1_000, resumedAt: null, recheckAt: null }, "suspended again: the same stretch");
  assert.deepEqual(
    keptSuspended(resumed, "resumed", 5_000 + KEPT_SUSPENDED_QUIET_MS),
    { since: null, resumedAt: null, recheckAt: null },
    "resumed for a minute: over",
  );
});

test("windows that close end it; a target never held stays out of it", () => {
  assert.deepEqual(keptSuspended({ since: 1_000, resumedAt: null }, "closed", 2_000), { since: null, resumedAt: null, recheckAt: null });
  assert.deepEqual(keptSuspended(NONE, "resumed", 2_000), { since: null, resumedAt: null, recheckAt: null });
  assert.ok(KEPT_SUSPENDED_QUIET_MS > 30_000, "longer than the longest back-off of a re-assert");
});
