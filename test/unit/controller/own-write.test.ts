// fluxgate's own write coming back by the watch: known by the resourceVersion the API server answered, once.

import assert from "node:assert/strict";
import { test } from "node:test";
import { ControllerState } from "../../../src/controller/state.ts";

test("a target's own write is known by the version the API server answered, once, and only that version", () => {
  const s = new ControllerState();
  assert.equal(s.isOwnWrite("K/ns/a", "7"), false, "a target never written");
  const m = s.memoryOf("K/ns/a");
  m.lastWrite = { suspend: false, at: 1, over: "5", answered: undefined };
  assert.equal(s.isOwnWrite("K/ns/a", "7"), false, "a write whose answer was not as written (a webhook changed it)");
  m.lastWrite = { suspend: false, at: 1, over: "5", answered: "7" };
  assert.equal(s.isOwnWrite("K/ns/a", "8"), false, "another version: someone else's change");
  assert.equal(s.isOwnWrite("K/ns/a", undefined), false);
  assert.equal(s.isOwnWrite("K/ns/a", "7"), true);
  assert.equal(s.isOwnWrite("K/ns/a", "7"), false, "said once: the same version seen again (a relist) is reconciled");
  assert.equal(s.isOwnWrite("K/ns/b", "7"), false, "another target");
});
