// The suite's reporter: node's TAP with its summary, then the failed tests listed at the end with their places and
// errors, so that a log read from its end names what failed.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

const reporter = fileURLToPath(new URL("../../harness/reporter.ts", import.meta.url));

function runSuite(files: Record<string, string>): { status: number | null; stdout: string } {
  const dir = mkdtempSync(join(tmpdir(), "fluxgate-reporter-"));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    // Without NODE_TEST_CONTEXT, which node sets for the files it runs: the inner run reports as a run of its own.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const run = spawnSync(process.execPath, ["--test", `--test-reporter=${reporter}`, join(dir, "*.test.ts")], {
      encoding: "utf8",
      env,
      timeout: 60_000,
    });
    return { status: run.status, stdout: run.stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("failed tests are listed after TAP's summary with their files, lines and errors; a parent failed by them is not", () => {
  const { status, stdout } = runSuite({
    "a.test.ts": [
      'import test from "node:test";',
      'import assert from "node:assert/strict";',
      'test("passes", () => {});',
      'test("fails plainly", () => { assert.equal(1 + 1, 3); });',
      'test("outer", async (t) => { await t.test("inner fails", () => { throw new Error("inner boom"); }); });',
    ].join("\n"),
    "b.test.ts": 'import test from "node:test";\ntest("rejects", async () => { await Promise.reject(new TypeError("nope")); });\n',
  });
  assert.equal(status, 1);
  const [tapPart, list] = stdout.split("# failing tests: ");
  assert.ok(list !== undefined, `a list of failures at the end:\n${stdout}`);
  assert.match(tapPart!, /^# pass 1$/m, "TAP's summary comes first");
  assert.match(tapPart!, /^# fail 4$/m);
  assert.match(list, /^3\n/, "three failures of their own; the parent failed by its subtest is not one");
  assert.match(list, /^# not ok - fails plainly \(.*a\.test\.ts:4\)\n# {3}AssertionError .*\n# {3}\n# {3}2 !== 3$/m);
  assert.match(list, /^# not ok - inner fails \(.*a\.test\.ts:5\)\n# {3}Error: inner boom$/m);
  assert.match(list, /^# not ok - rejects \(.*b\.test\.ts:2\)\n# {3}TypeError: nope$/m);
  assert.doesNotMatch(list, /not ok - outer/);
  assert.doesNotMatch(list, /\(node:/, "node's own stack frames are left out");
});

test("what node found itself is listed with its kind: a timeout, a file whose process exited with its exit code", () => {
  const { status, stdout } = runSuite({
    "exits.test.ts": 'import test from "node:test";\ntest("exits", () => { process.exit(3); });\n',
    "slow.test.ts": 'import test from "node:test";\ntest("too slow", { timeout: 50 }, async () => { await new Promise((r) => setTimeout(r, 2_000)); });\n',
  });
  assert.equal(status, 1);
  const list = stdout.split("# failing tests: ")[1];
  assert.ok(list !== undefined, `a list of failures at the end:\n${stdout}`);
  assert.match(list, /^# not ok - .*exits\.test\.ts .*\n# {3}test failed \(exit code 3\)$/m);
  assert.match(list, /^# not ok - too slow \(.*slow\.test\.ts:2\) \[testTimeoutFailure\]\n# {3}test timed out after 50ms$/m);
});

test("a run without failures ends with TAP's summary alone; a todo test that fails is no failure", () => {
  const { status, stdout } = runSuite({
    "a.test.ts": 'import test from "node:test";\ntest("passes", () => {});\ntest("later", { todo: true }, () => { throw new Error("not yet"); });\n',
  });
  assert.equal(status, 0);
  assert.match(stdout, /# fail 0\n# cancelled 0\n# skipped 0\n# todo 1\n# duration_ms [\d.]+\n$/);
  assert.doesNotMatch(stdout, /failing tests/);
});
