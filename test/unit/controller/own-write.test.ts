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

test("a watch event that comes while the target is being written waits for the answer: the write's own needs no reconcile, any other version does", () => {
  const s = new ControllerState();
  s.beginWrite("K/ns/a");
  assert.equal(s.isOwnWrite("K/ns/a", "9"), true, "kept until the answer");
  assert.equal(s.isOwnWrite("K/ns/b", "9"), false, "another target is not being written");
  assert.deepEqual(s.endWrite("K/ns/a", "9"), { reconcile: false, echoSeen: true }, "the write's own event came first");
  assert.equal(s.isOwnWrite("K/ns/a", "9"), false, "no write in flight, none answered: reconciled");

  s.beginWrite("K/ns/a");
  s.isOwnWrite("K/ns/a", "8");
  s.isOwnWrite("K/ns/a", "10");
  assert.deepEqual(s.endWrite("K/ns/a", "10"), { reconcile: true, echoSeen: true }, "someone else's version came too");

  s.beginWrite("K/ns/a");
  s.isOwnWrite("K/ns/a", "11");
  assert.deepEqual(s.endWrite("K/ns/a", undefined), { reconcile: true, echoSeen: false }, "the write failed or was changed by a webhook");

  s.beginWrite("K/ns/a");
  assert.deepEqual(s.endWrite("K/ns/a", "12"), { reconcile: false, echoSeen: false }, "nothing came meanwhile: the echo is still to come");
});
