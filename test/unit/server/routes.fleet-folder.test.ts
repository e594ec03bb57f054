// In-process route tests: on a repository with the fleet folder, the Config Service writes a fleet freeze as the CLI does (one file with the clusterSelector
// and its entry in fleet/kustomization.yaml, one commit) and ends it the same way; fleet windows it still refuses, writing nothing and saying what to use.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { assertUntouched, fixture, type Fixture } from "../../support/server.ts";

/** The example fleet with edge-berlin including the fleet folder, committed. */
async function folderFixture(): Promise<Fixture> {
  const f = await fixture();
  const kustomization = join(f.dir, "clusters/edge-berlin/windows/kustomization.yaml");
  await writeFile(kustomization, (await readFile(kustomization, "utf8")).replace(/resources:\n/, "resources:\n  - ../../../fleet\n"));
  await mkdir(join(f.dir, "fleet"), { recursive: true });
  await writeFile(join(f.dir, "fleet/kustomization.yaml"), "resources: []\n");
  git(f.dir, "add", "-A");
  git(f.dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "the fleet folder");
  return f;
}

function git(dir: string, ...args: string[]): string {
  return execFileSync("git", ["-C", dir, ...args], { encoding: "utf8" });
}

/** The files a commit changes (`git show --numstat`), and that it is the only commit on top of `parent`. */
function filesOf(dir: string, commit: string, parent: string): string[] {
  assert.equal(git(dir, "rev-parse", `${commit}^`).trim(), parent, "one commit on top of the previous HEAD");
  return git(dir, "show", "--numstat", "--format=", commit)
    .trim()
    .split("\n")
    .map((l) => l.split("\t")[2] as string)
    .sort();
}

test("a fleet freeze on a repository with the fleet folder is one commit of two files, as fluxgate fleet freeze writes it, and ends the same way", async (t) => {
  const f = await folderFixture();
  t.after(f.cleanup);
  const head = await f.repository.head();
  const freeze = await f.call("POST", "/api/v1/fleet/overrides", { body: { selector: "!ring", duration: "1h", reason: "incident", name: "all-stop" } });
  assert.equal(freeze.status, 201, JSON.stringify(freeze.body));
  assert.equal(freeze.body.name, "all-stop");
  assert.equal(typeof freeze.body.until, "string");
  assert.ok(freeze.body.overrides.length > 0, JSON.stringify(freeze.body));
  for (const o of freeze.body.overrides) assert.deepEqual(o, { cluster: o.cluster, name: "all-stop", delivery: "git" });
  assert.equal(freeze.body.commit, await f.repository.head());
  assert.deepEqual(filesOf(f.dir, freeze.body.commit, head), ["fleet/freezes/all-stop.yaml", "fleet/kustomization.yaml"]);
  const file = git(f.dir, "show", `${freeze.body.commit}:fleet/freezes/all-stop.yaml`);
  assert.match(file, /clusterSelector:/);
  assert.match(file, /windowSelector: \{\}/);
  assert.match(file, /reason: incident/);
  assert.match(git(f.dir, "show", `${freeze.body.commit}:fleet/kustomization.yaml`), /- freezes\/all-stop\.yaml/);
  assert.equal(git(f.dir, "status", "--porcelain"), "");

  // The same name again is refused, changing nothing.
  const frozen = await f.repository.head();
  const again = await f.call("POST", "/api/v1/fleet/overrides", { body: { selector: "!ring", duration: "1h", reason: "incident", name: "all-stop" } });
  assert.equal(again.status, 409, JSON.stringify(again.body));
  assert.match(JSON.stringify(again.body), /a fleet override named all-stop exists/);
  await assertUntouched(f, frozen);

  const end = await f.call("DELETE", "/api/v1/fleet/overrides/all-stop", { body: { reason: "resolved" } });
  assert.equal(end.status, 200, JSON.stringify(end.body));
  assert.equal(end.body.ended.name, "all-stop");
  assert.deepEqual(filesOf(f.dir, end.body.commit, frozen), ["fleet/freezes/all-stop.yaml", "fleet/kustomization.yaml"]);
  assert.equal(git(f.dir, "ls-tree", "--name-only", end.body.commit, "fleet/freezes/"), "");
  assert.doesNotMatch(git(f.dir, "show", `${end.body.commit}:fleet/kustomization.yaml`), /all-stop/);
});

test("fleet windows are still refused with 409 on a repository whose clusters include the fleet folder", async (t) => {
  const f = await folderFixture();
  t.after(f.cleanup);
  const head = await f.repository.head();
  const window = await f.call("POST", "/api/v1/fleet/windows", {
    body: {
      name: "eu-nightly",
      selector: "!ring",
      reason: "nightly slot",
      spec: { schedules: [{ start: "0 22 * * *", duration: "2h" }], targets: [{ kind: "Kustomization", name: "apps-rw" }] },
    },
  });
  assert.equal(window.status, 409, JSON.stringify(window.body));
  assert.match(JSON.stringify(window.body), /does not write fleet windows there yet/);
  await assertUntouched(f, head);
});
