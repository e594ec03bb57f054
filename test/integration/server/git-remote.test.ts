// The service on a real socket over a working copy whose origin is a real bare repository: concurrent writers, a remote that moves ahead.
/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are untyped JSON, checked field by field */

import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { checkMetrics } from "../../harness/promtool.ts";
import { git } from "../../support/server.ts";
import { pushElsewhere, setup, spec } from "./remote.ts";

test("20 parallel PUTs of 20 windows make 20 commits on the remote, and nothing is lost", async (t) => {
  const s = await setup(t);
  const before = await git(s.remote, "rev-parse", "main");
  const names = Array.from({ length: 20 }, (_, i) => `w-${String(i).padStart(2, "0")}`);
  const results = await Promise.all(names.map((name, i) => s.put("edge-berlin", name, spec(i), `window ${name}`)));
  for (const r of results) assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.ok(results.every((r) => r.body.pushed === true));
  assert.equal(await git(s.remote, "rev-list", "--count", `${before}..main`), "20");
  const commits = new Set(results.map((r) => r.body.commit));
  assert.equal(commits.size, 20, "each PUT answered with its own commit");
  const subjects = (await git(s.remote, "log", "--format=%s", `${before}..main`)).split("\n").sort();
  assert.deepEqual(subjects, names.map((n) => `edge-berlin: add window ${n}: window ${n}`).sort());
  const kustomization = await git(s.remote, "show", "main:clusters/edge-berlin/windows/kustomization.yaml");
  for (const name of names) {
    assert.match(kustomization, new RegExp(`- ${name}\\.yaml(\\n|$)`));
    assert.match(await git(s.remote, "show", `main:clusters/edge-berlin/windows/${name}.yaml`), /kind: ReconciliationWindow/);
  }
  assert.equal(await git(s.service.repository.dir, "rev-parse", "HEAD"), await git(s.remote, "rev-parse", "main"));
  assert.equal(await git(s.service.repository.dir, "status", "--porcelain"), "");
});

test("20 parallel PUTs of one window are 20 commits in some order, each on top of the last", async (t) => {
  const s = await setup(t);
  const before = await git(s.remote, "rev-parse", "main");
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => s.put("edge-newyork", "apps-rw", { ...spec(i), closeGracePeriod: `${i + 1}m` }, `grace ${i + 1}m`)),
  );
  assert.ok(results.every((r) => r.status === 200 && r.body.changed === true));
  assert.equal(await git(s.remote, "rev-list", "--count", `${before}..main`), "20");
  // The last commit holds the last write.
  const last = await git(s.remote, "log", "-1", "--format=%s", "main");
  assert.match(
    await git(s.remote, "show", "main:clusters/edge-newyork/windows/apps-rw.yaml"),
    new RegExp(`closeGracePeriod: ${last.replace(/^.*: grace /, "")}`),
  );
});

test("when the remote moved ahead, the write is replayed on top of it: both changes survive", async (t) => {
  const s = await setup(t);
  const theirs = await pushElsewhere(
    s.root,
    s.remote,
    "other",
    {
      "clusters/edge-berlin/windows/from-git.yaml": () =>
        'apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata:\n  name: from-git\n  namespace: flux-system\nspec:\n  schedules:\n    - start: "@daily"\n      duration: 1h\n  targets:\n    - kind: Kustomization\n      name: apps-rt\n',
      "clusters/edge-berlin/windows/kustomization.yaml": (old) => (old as string).replace("  - nightly.yaml\n", "  - nightly.yaml\n  - from-git.yaml\n"),
    },
    "Add a window by hand",
  );
  const r = await s.put("edge-berlin", "from-api", spec(3), "Added through the API");
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(r.body.attempts, 2, "the first push was refused, the replay went through");
  assert.equal(await git(s.remote, "rev-parse", "main~1"), theirs);
  const kustomization = await git(s.remote, "show", "main:clusters/edge-berlin/windows/kustomization.yaml");
  assert.match(kustomization, /- from-git\.yaml\n {2}- from-api\.yaml$/);
  const metrics = await (await fetch(`${s.service.url}/metrics`, { headers: { authorization: `Bearer ${s.tokens.viewer}` } })).text();
  assert.match(metrics, /^fluxgate_serve_git_push_retries_total 1$/m);
  assert.match(metrics, /^fluxgate_serve_git_commits_total 2$/m);
  assert.match(metrics, /^fluxgate_serve_git_files_read_total [1-9]\d*$/m);
  assert.match(metrics, /^fluxgate_serve_kustomize_builds_total \d+$/m);
  const lint = await checkMetrics(metrics);
  assert.equal(lint.code, 0, `promtool check metrics:\n${lint.output}`);
  // The change made elsewhere is served too.
  const windows = await (
    await fetch(`${s.service.url}/api/v1/clusters/edge-berlin/windows`, { headers: { authorization: `Bearer ${s.tokens.viewer}` } })
  ).json();
  assert.deepEqual(
    windows.windows.map((w: any) => w.name),
    ["apps-rw", "from-api", "from-git", "nightly"],
  );
});

test("a replay checks preconditions again: a window changed on the remote is not overwritten (412)", async (t) => {
  const s = await setup(t);
  const read = await fetch(`${s.service.url}/api/v1/clusters/edge-tokyo/windows/apps-rw`, { headers: { authorization: `Bearer ${s.tokens.viewer}` } });
  const etag = read.headers.get("etag") as string;
  await pushElsewhere(
    s.root,
    s.remote,
    "other",
    { "clusters/edge-tokyo/windows/apps-rw.yaml": (old) => (old as string).replace("duration: 4h", "duration: 5h") },
    "Longer Tokyo window",
  );
  const response = await fetch(`${s.service.url}/api/v1/clusters/edge-tokyo/windows/apps-rw`, {
    method: "PUT",
    headers: { authorization: `Bearer ${s.tokens.editor}`, "content-type": "application/json", "if-match": etag },
    body: JSON.stringify({ spec: spec(1), reason: "stale" }),
  });
  assert.equal(response.status, 412);
  assert.match(await git(s.remote, "show", "main:clusters/edge-tokyo/windows/apps-rw.yaml"), /duration: 5h/);
  assert.equal(await git(s.remote, "log", "-1", "--format=%s", "main"), "Longer Tokyo window");
  assert.equal(
    await git(s.work, "rev-parse", "HEAD"),
    await git(s.remote, "rev-parse", "main"),
    "the working copy caught up with origin and kept no commit of its own",
  );
  assert.equal(await git(s.work, "status", "--porcelain", "--untracked-files=all"), "", "no file is left changed");
});

test("the service fetches from origin on its own, so changes pushed elsewhere are served", async (t) => {
  const s = await setup(t, 200);
  await pushElsewhere(
    s.root,
    s.remote,
    "other",
    { "clusters/edge-tokyo/windows/apps-rw.yaml": (old) => (old as string).replace("duration: 4h", "duration: 6h") },
    "Six hours",
  );
  const deadline = Date.now() + 10_000;
  let duration = "";
  while (Date.now() < deadline) {
    const w = await (
      await fetch(`${s.service.url}/api/v1/clusters/edge-tokyo/windows/apps-rw`, { headers: { authorization: `Bearer ${s.tokens.viewer}` } })
    ).json();
    duration = w.spec.schedules[0].duration;
    if (duration === "6h") break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(duration, "6h");
});

test("a push the remote refuses for another reason keeps nothing and says why (502)", async (t) => {
  const s = await setup(t);
  const hook = join(s.remote, "hooks", "pre-receive");
  await writeFile(hook, "#!/bin/sh\necho 'pushes are closed for the audit' >&2\nexit 1\n", { mode: 0o755 });
  const before = await git(s.service.repository.dir, "rev-parse", "HEAD");
  const r = await s.put("edge-berlin", "blocked", spec(5), "will not land");
  assert.equal(r.status, 502);
  assert.match(r.body.error.message, /was not pushed, so it was not kept/);
  assert.equal(await git(s.service.repository.dir, "rev-parse", "HEAD"), before);
  assert.equal(await git(s.service.repository.dir, "status", "--porcelain"), "");
});

test("a write of hundreds of files (a fleet freeze's size) is one commit of exactly those files; something else staged is not taken along; an uncommitted edit among them is refused", async (t) => {
  const s = await setup(t);
  const repo = s.service.repository;
  const author = { name: "bree oncall", email: "bree@example.com" };
  const files = (tag: string): Record<string, string | null> =>
    Object.fromEntries(
      Array.from({ length: 250 }, (_, i) => [`clusters/edge-berlin/windows/overrides/${tag}-${String(i).padStart(3, "0")}.yaml`, `# ${tag} ${i}\n`]),
    );
  const committed = async (): Promise<string[]> =>
    (await git(repo.dir, "show", "--name-only", "--format=", "HEAD"))
      .split("\n")
      .filter((l) => l !== "")
      .sort();

  // Staged by name: one commit, exactly the files, a deletion among them, pushed; the working copy clean.
  const first = { ...files("a"), "clusters/edge-berlin/windows/nightly.yaml": null };
  const written = await repo.write(author, () => ({ changes: first, subject: "many files", reason: "bulk", result: null }));
  assert.equal(written.pushed, true);
  assert.deepEqual(await committed(), Object.keys(first).sort());
  assert.equal(await git(s.remote, "rev-parse", "main"), written.commit);
  assert.equal(await git(repo.dir, "status", "--porcelain"), "");
  assert.equal(await git(repo.dir, "log", "-1", "--format=%an <%ae>|%s"), "bree oncall <bree@example.com>|many files: bulk");

  // Something else staged in the working copy by hand: the write commits its own files only, and leaves it staged.
  await writeFile(join(repo.dir, "notes.txt"), "by hand\n");
  await git(repo.dir, "add", "notes.txt");
  await repo.write(author, () => ({ changes: files("b"), subject: "many more", reason: "bulk", result: null }));
  assert.deepEqual(await committed(), Object.keys(files("b")).sort());
  assert.equal(await git(repo.dir, "status", "--porcelain"), "A  notes.txt");
  await git(repo.dir, "reset", "--quiet", "notes.txt");

  // An uncommitted edit of one of the paths: refused, nothing written.
  const head = await git(repo.dir, "rev-parse", "HEAD");
  const edited = "clusters/edge-berlin/windows/overrides/b-100.yaml";
  await writeFile(join(repo.dir, edited), "# edited by hand\n");
  await assert.rejects(
    repo.write(author, () => ({
      changes: Object.fromEntries(Object.keys(files("b")).map((p) => [p, "# again\n"])),
      subject: "again",
      reason: "bulk",
      result: null,
    })),
    (e: unknown) => e instanceof Error && e.message.includes(`uncommitted changes in ${edited}`),
  );
  assert.equal(await git(repo.dir, "rev-parse", "HEAD"), head);
});
