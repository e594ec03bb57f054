// In-process route tests of writes: each PUT or DELETE of a window is one commit with author and reason, validated first.
/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are untyped JSON, checked field by field */

import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { assertUntouched, berlinSpec, COMMENT, fixture, git } from "../../support/server.ts";

const WINDOWS = "clusters/edge-berlin/windows";

test("PUT changes a window in one commit, authored by the token's holder, with the reason, keeping comments", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const before = await f.repository.head();
  const spec = { ...berlinSpec(), schedules: [{ start: "0 7 * * MON", end: "0 17 * * THU" }] };
  const r = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", { body: { spec, reason: "The plant starts at 07:00 now" } });
  assert.equal(r.status, 200);
  assert.equal(r.body.changed, true);
  assert.equal(r.body.created, false);
  assert.equal(r.body.pushed, false);
  assert.equal(r.body.commit, await git(f.dir, "rev-parse", "HEAD"));
  assert.equal(await git(f.dir, "rev-parse", "HEAD~1"), before);
  assert.equal(
    await git(f.dir, "log", "-1", "--format=%an <%ae>|%cn|%s|%b"),
    "eddie editor <eddie@example.com>|fluxgate serve|edge-berlin: change window apps-rw: The plant starts at 07:00 now|",
    "the reason is in the subject, so git log --oneline shows it",
  );
  assert.equal(await git(f.dir, "show", "--format=", "--name-only", "HEAD"), `${WINDOWS}/apps-rw.yaml`);
  const text = await readFile(join(f.dir, WINDOWS, "apps-rw.yaml"), "utf8");
  assert.ok(text.includes(COMMENT), "the comment in the file survives");
  assert.match(text, /start: "0 7 \* \* MON"/);
  assert.equal(await git(f.dir, "status", "--porcelain"), "", "the working copy is clean");
  assert.equal(r.body.window.state, "open");
  assert.equal(r.headers.get("etag"), `"${r.body.window.etag}"`);
});

test("a reason of several lines: its first line ends the subject (git log --oneline), the whole reason is the body", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const reason = "The plant starts at 07:00 now\n\nAgreed with the plant manager on 20 November.\nTicket CHG-1234.";
  const r = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", {
    body: { spec: { ...berlinSpec(), schedules: [{ start: "0 7 * * MON", end: "0 17 * * THU" }] }, reason },
  });
  assert.equal(r.status, 200, r.text);
  assert.equal(await git(f.dir, "log", "-1", "--format=%s"), "edge-berlin: change window apps-rw: The plant starts at 07:00 now");
  assert.equal(await git(f.dir, "log", "-1", "--format=%b"), reason);
  assert.equal(
    await git(f.dir, "log", "-1", "--oneline", "--no-decorate"),
    `${(r.body.commit as string).slice(0, 7)} edge-berlin: change window apps-rw: The plant starts at 07:00 now`,
  );
});

test("PUT of a new window creates its file and lists it in kustomization.yaml (201)", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const spec = { timeZone: "Europe/Berlin", schedules: [{ start: "30 2 * * SUN", duration: "1h" }], targets: [{ kind: "HelmRelease", name: "db" }] };
  const r = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/db-maintenance", {
    body: { spec, reason: "Sunday night database upgrades" },
    headers: { "if-none-match": "*" },
  });
  assert.equal(r.status, 201);
  assert.equal(r.body.created, true);
  assert.equal(await git(f.dir, "log", "-1", "--format=%s"), "edge-berlin: add window db-maintenance: Sunday night database upgrades");
  assert.deepEqual((await git(f.dir, "show", "--format=", "--name-only", "HEAD")).split("\n").sort(), [
    `${WINDOWS}/db-maintenance.yaml`,
    `${WINDOWS}/kustomization.yaml`,
  ]);
  const kustomization = await readFile(join(f.dir, WINDOWS, "kustomization.yaml"), "utf8");
  assert.match(kustomization, /^# Windows and overrides of edge-berlin/, "its comment is kept");
  assert.match(kustomization, /resources:\n {2}- apps-rw.yaml\n {2}- nightly.yaml\n {2}- db-maintenance.yaml\n/);
  const file = await readFile(join(f.dir, WINDOWS, "db-maintenance.yaml"), "utf8");
  assert.match(file, /^apiVersion: fluxgate.io\/v1alpha1\nkind: ReconciliationWindow\nmetadata:\n {2}name: db-maintenance\n {2}namespace: flux-system\n/);
  const again = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/db-maintenance", {
    body: { spec: { ...spec, closeGracePeriod: "5m" }, reason: "again" },
    headers: { "if-none-match": "*" },
  });
  assert.equal(again.status, 412);
  await assertUntouched(f, r.body.commit as string);
});

test("an invalid spec is 400 with field paths, and nothing is committed", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const before = await f.repository.head();
  const spec = {
    timeZone: "Europe/Berlinn",
    schedules: [{ start: "0 25 * * *", duration: "0s" }],
    freezes: [{ from: "2026-12-20T00:00", to: "2026-12-19T00:00" }],
    targets: [],
  };
  const r = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", { body: { spec, reason: "broken" } });
  assert.equal(r.status, 400);
  const paths = r.body.error.problems.map((p: any) => p.path);
  for (const path of ["spec.timeZone", "spec.schedules[0].start", "spec.schedules[0].duration", "spec.targets"])
    assert.ok(paths.includes(path), `${path} in ${paths.join(", ")}`);
  assert.match(r.body.error.message, /^the window is not valid:\nspec\./);
  const order = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", {
    body: { spec: { ...berlinSpec(), freezes: [{ from: "2026-12-20T00:00", to: "2026-12-19T00:00" }] }, reason: "x" },
  });
  assert.equal(order.status, 400);
  assert.deepEqual(order.body.error.problems, [
    { path: "spec.freezes[0].to", message: '"2026-12-19T00:00" is before from "2026-12-20T00:00": a freeze must end after it starts' },
  ]);
  // Two bad freezes, one the engine refuses and one the schema refuses: both, each with its field.
  const two = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", {
    body: {
      spec: {
        ...berlinSpec(),
        freezes: [
          { from: "2026-12-20T00:00", to: "2026-12-19T00:00" },
          { start: "0 0 30 2 *", duration: "1h" },
        ],
      },
      reason: "x",
    },
  });
  assert.equal(two.status, 400);
  assert.deepEqual(
    two.body.error.problems.map((p: any) => p.path),
    ["spec.freezes[0].to", "spec.freezes[1].start"],
  );
  assert.match(two.body.error.message, /^the window is not valid:\nspec\.freezes\[0\]\.to: .*\nspec\.freezes\[1\]\.start: /);
  const noReason = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", { body: { spec: berlinSpec(), reason: " " } });
  assert.equal(noReason.status, 400);
  assert.deepEqual(
    noReason.body.error.problems.map((p: any) => p.path),
    ["reason"],
  );
  const extra = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", { body: { spec: berlinSpec(), reason: "x", force: true } });
  assert.equal(extra.status, 400);
  assert.match(extra.body.error.message, /unknown field "force"/);
  await assertUntouched(f, before);
});

test("If-Match guards against overwriting a change made since the window was read (412)", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const read = await f.call("GET", "/api/v1/clusters/edge-berlin/windows/apps-rw");
  const etag = read.headers.get("etag") as string;
  const first = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", {
    body: { spec: { ...berlinSpec(), closeGracePeriod: "10m" }, reason: "first" },
    headers: { "if-match": etag },
  });
  assert.equal(first.status, 200);
  const stale = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", {
    body: { spec: berlinSpec(), reason: "second" },
    headers: { "if-match": etag },
  });
  assert.equal(stale.status, 412);
  await assertUntouched(f, first.body.commit as string);
  assert.match(stale.body.error.message, /changed since you read it/);
  assert.equal(await git(f.dir, "log", "-1", "--format=%s"), "edge-berlin: change window apps-rw: first");
});

test("a PUT that changes nothing makes no commit", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const before = await f.repository.head();
  const r = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", { body: { spec: berlinSpec(), reason: "same" } });
  assert.equal(r.status, 200);
  assert.equal(r.body.changed, false);
  assert.equal(r.body.commit, before);
  assert.equal(await f.repository.head(), before);
});

test("DELETE needs a reason, removes the file and its kustomization entry in one commit", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const start = await f.repository.head();
  const noReason = await f.call("DELETE", "/api/v1/clusters/edge-berlin/windows/nightly");
  assert.equal(noReason.status, 400);
  await assertUntouched(f, start);
  assert.match(noReason.body.error.message, /say why/);
  const r = await f.call("DELETE", "/api/v1/clusters/edge-berlin/windows/nightly?reason=No%20more%20night%20work");
  assert.equal(r.status, 200);
  assert.equal(r.body.commit, await git(f.dir, "rev-parse", "HEAD"));
  assert.equal(await git(f.dir, "log", "-1", "--format=%an|%s|%b"), "eddie editor|edge-berlin: delete window nightly: No more night work|");
  assert.doesNotMatch(await readFile(join(f.dir, WINDOWS, "kustomization.yaml"), "utf8"), /nightly/);
  assert.equal(await git(f.dir, "ls-files", `${WINDOWS}/nightly.yaml`), "");
  const deleted = await f.repository.head();
  const gone = await f.call("DELETE", "/api/v1/clusters/edge-berlin/windows/nightly?reason=again");
  assert.equal(gone.status, 404);
  await assertUntouched(f, deleted);
  const viaBody = await f.call("DELETE", "/api/v1/clusters/edge-berlin/windows/apps-rw", { body: { reason: "by body" } });
  assert.equal(viaBody.status, 200);
});

test("uncommitted edits of the same file in the working copy are never overwritten (409)", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const path = join(f.dir, WINDOWS, "apps-rw.yaml");
  await writeFile(path, `${await readFile(path, "utf8")}# hand edit\n`);
  const head = await f.repository.head();
  const r = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", { body: { spec: { ...berlinSpec(), closeGracePeriod: "1m" }, reason: "x" } });
  assert.equal(r.status, 409);
  assert.match(r.body.error.message, /uncommitted changes in clusters\/edge-berlin\/windows\/apps-rw.yaml/);
  // git() trims, so the status line " M path" starts at its "M".
  await assertUntouched(f, head, `M ${WINDOWS}/apps-rw.yaml`);
  assert.match(await readFile(path, "utf8"), /# hand edit/);
  // Other windows can still be written, and the hand edit stays out of the commit.
  const other = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/nightly", {
    body: { spec: { schedules: [{ start: "0 23 * * *", duration: "1h" }], targets: [{ kind: "HelmRelease", name: "x" }] }, reason: "y" },
  });
  assert.equal(other.status, 200);
  assert.equal(await git(f.dir, "show", "--format=", "--name-only", "HEAD"), `${WINDOWS}/nightly.yaml`);
});

test("a window file broken by hand in Git is listed as invalid with its problems", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  await writeFile(
    join(f.dir, WINDOWS, "nightly.yaml"),
    "apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata: {name: other}\nspec:\n  schedules: [{start: '0 99 * * *', duration: 1h}]\n  targets: [{kind: Kustomization, name: x}]\n",
  );
  await git(f.dir, "commit", "--quiet", "-am", "hand edit");
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const r = await f.call("GET", "/api/v1/clusters/edge-berlin/windows");
  const broken = r.body.windows.find((w: any) => w.name === "nightly");
  assert.equal(broken.state, "invalid");
  assert.equal(broken.valid, false);
  assert.deepEqual(broken.problems.map((p: any) => p.path).sort(), ["metadata.name", "spec.schedules[0].start"]);
  const timeline = await f.call("GET", "/api/v1/clusters/edge-berlin/timeline");
  assert.equal(timeline.body.windows.find((w: any) => w.name === "nightly").valid, false);
});
