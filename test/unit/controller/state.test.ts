// What the controller remembers: selections replaced and forgotten with their window, target memory, the source index.

import assert from "node:assert/strict";
import { test } from "node:test";
import { ControllerState } from "../../../src/controller/state.ts";

test("a window's selection replaces the previous one, and a deleted window gives back the targets it selected", () => {
  const s = new ControllerState();
  assert.deepEqual([...s.select("ns/w", new Set(["K/ns/a", "K/ns/b"]))], []);
  assert.deepEqual([...s.select("ns/w", new Set(["K/ns/b"]))], ["K/ns/a", "K/ns/b"]);
  assert.deepEqual(s.windowsThatSelected("K/ns/b"), ["ns/w"]);
  assert.deepEqual(s.windowsThatSelected("K/ns/a"), []);
  assert.equal(s.decisionChanged("ns/w", "x"), true);
  assert.equal(s.decisionChanged("ns/w", "x"), false);
  s.reportState("ns/w", "Open");
  assert.deepEqual([...s.forgetWindow("ns/w")], ["K/ns/b"]);
  assert.deepEqual([...s.selected("ns/w")], []);
  assert.equal(s.reportedState("ns/w"), undefined);
  assert.equal(s.decisionChanged("ns/w", "x"), true, "a window created again starts afresh");
});

test("a target's memory is made fresh once, kept, and forgotten when the target is deleted", () => {
  const s = new ControllerState();
  assert.equal(s.knownMemory("K/ns/a"), undefined);
  const m = s.memoryOf("K/ns/a");
  assert.equal(m.fresh, true);
  m.fresh = false;
  assert.equal(s.memoryOf("K/ns/a"), m);
  s.indexTarget("K/ns/a", "GitRepository/ns/gitops", false);
  assert.deepEqual([...s.targetsOfSource("GitRepository/ns/gitops")], ["K/ns/a"]);
  s.indexTarget("K/ns/a", "GitRepository/ns/gated", false);
  assert.deepEqual([...s.targetsOfSource("GitRepository/ns/gitops")], [], "a target moved to another source leaves the old one");
  s.indexTarget("K/ns/a", null, true);
  assert.deepEqual([...s.targetsOfSource("GitRepository/ns/gated")], []);
  assert.equal(s.knownMemory("K/ns/a"), undefined);
});

test("released gated sources are remembered until marked otherwise", () => {
  const s = new ControllerState();
  s.markReleased("GitRepository/ns/gated", true);
  assert.deepEqual(s.releasedSourceKeys(), ["GitRepository/ns/gated"]);
  s.markReleased("GitRepository/ns/gated", false);
  assert.deepEqual(s.releasedSourceKeys(), []);
});
