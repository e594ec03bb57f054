// In-process route tests: on a repository with the fleet folder, the Config Service writes a fleet freeze and a fleet window as the CLI does (the file with
// the clusterSelector and its entry in fleet/kustomization.yaml, one commit, no cluster's file), and ends the freeze the same way.

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

test("a fleet window added on a repository with the fleet folder is one commit of three files, as fluxgate fleet window add writes it", async (t) => {
  const f = await folderFixture();
  t.after(f.cleanup);
  const head = await f.repository.head();
  const body = {
    name: "eu-nightly",
    selector: "!ring",
    reason: "nightly slot",
    spec: { schedules: [{ start: "0 22 * * *", duration: "2h" }], targets: [{ kind: "Kustomization", name: "apps-rw" }] },
  };
  const window = await f.call("POST", "/api/v1/fleet/windows", { body });
  assert.equal(window.status, 201, JSON.stringify(window.body));
  assert.equal(window.body.window, "eu-nightly");
  assert.ok(window.body.clusters.length > 0, JSON.stringify(window.body));
  assert.equal(window.body.commit, await f.repository.head());
  assert.deepEqual(filesOf(f.dir, window.body.commit, head), [
    "fleet/kustomization.yaml",
    "fleet/windows/eu-nightly/eu-nightly.yaml",
    "fleet/windows/eu-nightly/kustomization.yaml",
  ]);
  const base = git(f.dir, "show", `${window.body.commit}:fleet/windows/eu-nightly/eu-nightly.yaml`);
  assert.match(base, /clusterSelector:/);
  assert.match(base, /start: "0 22 \* \* \*"/);
  assert.match(git(f.dir, "show", `${window.body.commit}:fleet/kustomization.yaml`), /- windows\/eu-nightly/);
  assert.equal(git(f.dir, "status", "--porcelain"), "");

  // The same name again, and a spec that is not valid, are refused, changing nothing.
  const added = await f.repository.head();
  const again = await f.call("POST", "/api/v1/fleet/windows", { body });
  assert.equal(again.status, 409, JSON.stringify(again.body));
  assert.match(JSON.stringify(again.body), /fleet window eu-nightly exists/);
  const bad = await f.call("POST", "/api/v1/fleet/windows", {
    body: { ...body, name: "eu-late", spec: { schedules: [{ start: "0 25 * * *", duration: "2h" }], targets: [{ kind: "Kustomization", name: "apps-rw" }] } },
  });
  assert.equal(bad.status, 400, JSON.stringify(bad.body));
  assert.match(JSON.stringify(bad.body), /schedules\[0\]\.start/);
  await assertUntouched(f, added);
});
