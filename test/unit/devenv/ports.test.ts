// Ports for local control planes: one claimed by a live fluxgate process is never handed out twice; a dead one's claim is taken over.

import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { claimPort, freePort } from "../../../src/devenv/process.ts";

const claims = join(tmpdir(), "fluxgate-ports");

test("a port claimed by another live process is not claimed again; once that process is gone, it is", async () => {
  const port = await freePort();
  const file = join(claims, String(port));
  assert.equal(readFileSync(file, "utf8"), String(process.pid), "freePort claims the port it returns");
  rmSync(file);

  const other = spawn("sleep", ["30"], { stdio: "ignore" });
  try {
    writeFileSync(file, String(other.pid));
    assert.equal(claimPort(port), false, "a live process's claim holds");
    assert.equal(readFileSync(file, "utf8"), String(other.pid), "and is left as it was");
  } finally {
    other.kill("SIGKILL");
    await new Promise((resolve) => other.once("exit", resolve));
  }
  // A pid that no process has now: the pid of a process that has exited.
  const gone = spawnSync("true").pid;
  writeFileSync(file, String(gone));
  assert.equal(claimPort(port), true, "a dead process's claim is taken over");
  assert.equal(readFileSync(file, "utf8"), String(process.pid));
  assert.equal(claimPort(port), false, "this process's own claim is not handed out twice");
  rmSync(file);
});

test("freePort hands out different ports to calls in a row", async () => {
  const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
  assert.equal(new Set(ports).size, ports.length, ports.join(", "));
  for (const port of ports) rmSync(join(claims, String(port)), { force: true });
});
