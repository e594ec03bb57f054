// `kubectl fluxgate`: kubectl runs the executable kubectl-fluxgate on PATH with the words after "fluxgate"; the package installs it.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";

const run = promisify(execFile);
const ROOT = new URL("../../../", import.meta.url);

test("the package installs kubectl-fluxgate, the same program as fluxgate", async () => {
  const manifest = JSON.parse(await readFile(new URL("package.json", ROOT), "utf8")) as { bin: Record<string, string> };
  assert.equal(manifest.bin["kubectl-fluxgate"], manifest.bin.fluxgate);
});

test("run under the name kubectl-fluxgate (a link, as npm installs it), it is the fluxgate command", async () => {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-plugin-"));
  try {
    const plugin = join(dir, "kubectl-fluxgate");
    await symlink(new URL("src/cli/main.ts", ROOT).pathname, plugin);
    const { stdout } = await run(process.execPath, [plugin, "open", "--help"]);
    assert.match(stdout, /^Usage: fluxgate open WINDOW /);
    const refused = await run(process.execPath, [plugin, "freeze", "weekday-changes", "--for", "2h"]).catch((e: { code: number; stderr: string }) => e);
    assert.equal((refused as { code: number }).code, 2);
    assert.match((refused as { stderr: string }).stderr, /^error: --reason is required/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
