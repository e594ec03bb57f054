// `fluxgate demo` flags: which modes play, in which order, and what is refused before anything starts.

import assert from "node:assert/strict";
import { test } from "node:test";
import { demoModes } from "../../../src/cli/demo.ts";
import { fluxgate } from "../../support/cli.ts";

test("both modes play by default, Suspend first; --mode picks one, in any case", () => {
  assert.deepEqual(demoModes(undefined), ["Suspend", "Gate"]);
  assert.deepEqual(demoModes("both"), ["Suspend", "Gate"]);
  assert.deepEqual(demoModes("Gate"), ["Gate"]);
  assert.deepEqual(demoModes("suspend"), ["Suspend"]);
});

test("an unknown mode is a usage error, before anything starts", async () => {
  const r = await fluxgate(...["demo", "--mode", "Pause"]);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr, "error: --mode Pause: must be Suspend, Gate or both\n");
});

test("--ci and --keep together are refused: one exits, the other waits for Ctrl-C", async () => {
  const r = await fluxgate(...["demo", "--ci", "--keep"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^error: --keep waits for Ctrl-C after the story; --ci runs it once and exits/);
});

test("the demo takes no arguments", async () => {
  const r = await fluxgate(...["demo", "now"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /demo takes no arguments/);
});

test("--fleet with --mode is refused before anything starts: the fleet's story plays in Suspend mode", async () => {
  const r = await fluxgate(...["demo", "--fleet", "--mode", "Gate"]);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr, "error: --fleet plays the fleet's story, in Suspend mode: leave out --mode\n");
});
