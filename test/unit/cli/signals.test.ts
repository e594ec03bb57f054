// How long-running commands stop (src/cli/signals.ts): the first SIGINT or SIGTERM aborts, once, and the handlers go away.

import assert from "node:assert/strict";
import { test } from "node:test";
import { aborted, exitCodeOf, stopSignals } from "../../../src/cli/signals.ts";

test("the first SIGTERM aborts with its name, tells onStop once, and removes both handlers", async () => {
  const before = { int: process.listenerCount("SIGINT"), term: process.listenerCount("SIGTERM") };
  const told: string[] = [];
  const stop = stopSignals((s) => told.push(s));
  assert.equal(process.listenerCount("SIGINT"), before.int + 1);
  assert.equal(stop.signal.aborted, false);
  process.emit("SIGTERM", "SIGTERM");
  await aborted(stop.signal);
  assert.equal(stop.signal.reason, "SIGTERM");
  assert.deepEqual(told, ["SIGTERM"]);
  assert.equal(process.listenerCount("SIGINT"), before.int, "SIGINT's handler is gone too");
  assert.equal(process.listenerCount("SIGTERM"), before.term);
});

test("dispose() stops listening without aborting; `using` disposes at the end of the block", () => {
  const before = process.listenerCount("SIGINT");
  let signal: AbortSignal;
  {
    using stop = stopSignals();
    signal = stop.signal;
    assert.equal(process.listenerCount("SIGINT"), before + 1);
  }
  assert.equal(process.listenerCount("SIGINT"), before);
  assert.equal(signal.aborted, false);
});

test("exit codes as shells report them", () => {
  assert.equal(exitCodeOf("SIGINT"), 130);
  assert.equal(exitCodeOf("SIGTERM"), 143);
});
