// What the service does when origin does not simply move ahead: it was force-pushed, a hook refuses the push, it is unreachable.

import assert from "node:assert/strict";
import { chmod, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { git } from "../../support/server.ts";
import { setup, spec } from "./remote.ts";

test("after a force-push of origin, the service resets to it, keeps a backup ref, says so, and never pushes the dropped commit back", async (t) => {
  const logs: Array<Record<string, unknown>> = [];
  const s = await setup(t, 0, (fields) => logs.push(fields));
  const base = await git(s.remote, "rev-parse", "main");
  const dropped = await s.put("edge-berlin", "dropped-window", spec(3), "Will be force-pushed away");
  assert.equal(dropped.status, 201, JSON.stringify(dropped.body));
  assert.equal(dropped.body.pushed, true);

  // Someone rewrites origin: back to the base commit, with a commit of their own on top.
  const other = join(s.root, "other");
  await git(s.root, "clone", "--quiet", s.remote, other);
  await git(other, "reset", "--quiet", "--hard", base);
  await writeFile(join(other, "NOTES.md"), "rewritten\n");
  await git(other, "add", "NOTES.md");
  await git(other, "commit", "--quiet", "-m", "Rewritten history");
  await git(other, "push", "--quiet", "--force", "origin", "main");
  const theirs = await git(other, "rev-parse", "HEAD");

  const next = await s.put("edge-berlin", "after-reset", spec(4), "After the force-push");
  assert.equal(next.status, 201, JSON.stringify(next.body));
  assert.equal(await git(s.remote, "rev-parse", "main^"), theirs, "the new commit sits on origin's rewritten history");
  const onOrigin = await git(s.remote, "log", "--format=%H", "main");
  assert.ok(!onOrigin.includes(dropped.body.commit), "the dropped commit was not pushed back");
  assert.ok(!(await git(s.remote, "ls-tree", "-r", "--name-only", "main")).includes("dropped-window.yaml"));

  const ready = await (await fetch(`${s.service.url}/readyz`)).json();
  assert.equal(ready.lastReset.cause, "force-push");
  assert.equal(ready.lastReset.from, dropped.body.commit);
  assert.equal(ready.lastReset.to, theirs);
  assert.deepEqual(ready.lastReset.dropped, [dropped.body.commit]);
  assert.match(ready.lastReset.backupRef, /^refs\/fluxgate\/dropped\//);
  assert.equal(await git(s.work, "rev-parse", ready.lastReset.backupRef), dropped.body.commit, "the backup ref keeps what was dropped");
  const repo = await (await fetch(`${s.service.url}/api/v1/repository`, { headers: { authorization: `Bearer ${s.tokens.viewer}` } })).json();
  assert.equal(repo.lastReset.backupRef, ready.lastReset.backupRef, "the dashboard reads it from /api/v1/repository");
  const line = logs.find((l) => typeof l.msg === "string" && l.msg.startsWith("Reset the working copy to origin"));
  assert.ok(line !== undefined, "a log line says so");
  assert.match(line.msg as string, /a force-push/);
  assert.equal(line.backupRef, ready.lastReset.backupRef);
});

test("a commit left in the working copy that origin never had (a write cut off before its push) is kept aside, not pushed, and not called a force-push", async (t) => {
  const logs: Array<Record<string, unknown>> = [];
  const s = await setup(t, 0, (fields) => logs.push(fields));
  const origin = await git(s.remote, "rev-parse", "main");
  await writeFile(join(s.work, "clusters/edge-berlin/windows/left.yaml"), "# left behind\n");
  await git(s.work, "add", "--all");
  await git(s.work, "commit", "--quiet", "-m", "Never pushed");
  const left = await git(s.work, "rev-parse", "HEAD");
  await s.service.repository.sync();
  assert.equal(await git(s.work, "rev-parse", "HEAD"), origin);
  assert.equal(await git(s.remote, "rev-parse", "main"), origin, "nothing was pushed");
  const ready = await (await fetch(`${s.service.url}/readyz`)).json();
  assert.deepEqual([ready.lastReset.cause, ready.lastReset.dropped], ["unpushed", [left]]);
  assert.equal(await git(s.work, "rev-parse", ready.lastReset.backupRef), left);
  const line = logs.find((l) => l.cause === "unpushed");
  assert.match(String(line?.msg), /^Reset the working copy to origin: it held commits origin never had/);
});

test("a force-push that only took commits away (origin moved back) is noticed at the next write: the dropped commit is not pushed back under it", async (t) => {
  const s = await setup(t);
  const base = await git(s.remote, "rev-parse", "main");
  const dropped = await s.put("edge-berlin", "dropped-window", spec(3), "Will be force-pushed away");
  assert.equal(dropped.status, 201, JSON.stringify(dropped.body));

  // Someone puts origin back where it was: the service's next commit would otherwise be a fast-forward of it.
  const other = join(s.root, "other");
  await git(s.root, "clone", "--quiet", s.remote, other);
  await git(other, "push", "--quiet", "--force", "origin", `${base}:refs/heads/main`);

  const next = await s.put("edge-berlin", "after-reset", spec(4), "After the force-push");
  assert.equal(next.status, 201, JSON.stringify(next.body));
  assert.equal(next.body.attempts, 2, "the first push was refused: origin was not where the service last saw it");
  assert.equal(await git(s.remote, "rev-parse", "main^"), base, "the new commit sits on origin's history");
  assert.ok(!(await git(s.remote, "log", "--format=%H", "main")).includes(dropped.body.commit), "the dropped commit was not pushed back");
  assert.ok(!(await git(s.remote, "ls-tree", "-r", "--name-only", "main")).includes("dropped-window.yaml"));
  const ready = await (await fetch(`${s.service.url}/readyz`)).json();
  assert.deepEqual([ready.lastReset.cause, ready.lastReset.dropped], ["force-push", [dropped.body.commit]]);
  assert.equal(await git(s.work, "rev-parse", ready.lastReset.backupRef), dropped.body.commit);
  assert.equal(await git(s.work, "status", "--porcelain", "--untracked-files=all"), "");
});

test("a push refused by a pre-receive hook answers 502 with the hook's own lines, and nothing is kept", async (t) => {
  const s = await setup(t);
  const hook = join(s.remote, "hooks", "pre-receive");
  await writeFile(
    hook,
    '#!/bin/sh\necho "policy: window changes need the change board\'s ticket" >&2\necho "see https://wiki.example/change-board" >&2\nexit 1\n',
  );
  await chmod(hook, 0o755);
  const head = await git(s.work, "rev-parse", "HEAD");
  const r = await s.put("edge-berlin", "refused", spec(5), "Refused by the hook");
  assert.equal(r.status, 502, JSON.stringify(r.body));
  assert.match(r.body.error.message, /remote: policy: window changes need the change board's ticket/);
  assert.match(r.body.error.message, /remote: see https:\/\/wiki\.example\/change-board/);
  assert.match(r.body.error.message, /pre-receive hook declined/);
  assert.equal((await fetch(`${s.service.url}/readyz`)).status, 200, "origin answered: a refusal is not unreadiness");
  assert.equal(await git(s.work, "rev-parse", "HEAD"), head, "no commit is left behind");
  assert.equal(await git(s.work, "status", "--porcelain", "--untracked-files=all"), "", "no file is left changed");
});

test("/readyz is 503 with the reason while origin cannot be reached (found by a fetch or by a write), and 200 again once it can", async (t) => {
  const s = await setup(t);
  const ok = await fetch(`${s.service.url}/readyz`);
  assert.equal(ok.status, 200);
  await rename(s.remote, `${s.remote}.away`);
  await s.service.repository.sync().catch(() => undefined);
  const down = await fetch(`${s.service.url}/readyz`);
  assert.equal(down.status, 503);
  const body = await down.json();
  assert.equal(body.ready, false);
  assert.match(body.lastSyncError, /fleet\.git/);
  assert.match(body.message, /^cannot sync with origin: /);
  await rename(`${s.remote}.away`, s.remote);
  await s.service.repository.sync();
  assert.equal((await fetch(`${s.service.url}/readyz`)).status, 200);

  // A write that cannot reach origin says so at once, without waiting for the next fetch.
  await rename(s.remote, `${s.remote}.away`);
  const head = await git(s.work, "rev-parse", "HEAD");
  const refused = await s.put("edge-berlin", "unreachable", spec(6), "origin is away");
  assert.equal(refused.status, 502, JSON.stringify(refused.body));
  assert.match(refused.body.error.message, /was not pushed, so it was not kept: .*fleet\.git/s);
  assert.equal(await git(s.work, "rev-parse", "HEAD"), head, "no commit is left behind");
  assert.equal(await git(s.work, "status", "--porcelain", "--untracked-files=all"), "");
  const notReady = await fetch(`${s.service.url}/readyz`);
  assert.equal(notReady.status, 503);
  assert.match((await notReady.json()).lastSyncError, /fleet\.git/);
  await rename(`${s.remote}.away`, s.remote);
  await s.service.repository.sync();
  const back = await fetch(`${s.service.url}/readyz`);
  assert.equal(back.status, 200);
  assert.equal((await back.json()).lastSyncError, null);
});
