// Helpers of the fleet tests: the fleet fixture in a Git working copy, and bad input that must change nothing.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fluxgate, snapshot } from "./helpers.ts";

/** `git ARGS` in `dir`, with an identity for commits. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync("git", ["-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { encoding: "utf8" });
}

/** A copy of the fleet fixture (test/fixtures/gitops/fleet) in a Git working copy with one commit. */
export async function fleetRepo(copy: (name: string) => Promise<string>): Promise<string> {
  const dir = await copy("fleet");
  git(dir, "init", "-q", "-b", "main");
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", "fleet");
  return dir;
}

/** Runs each command: each exits 2 with its message on stderr and nothing on stdout, and the repository stays byte for byte as it was. */
export async function assertRefused(dir: string, cases: ReadonlyArray<[string[], RegExp]>): Promise<void> {
  const before = await snapshot(dir);
  for (const [args, message] of cases) {
    const r = await fluxgate(...args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.equal(r.stdout, "");
  }
  assert.deepEqual(await snapshot(dir), before);
}
