// Path traversal in cluster, window and override names, and symbolic links committed to the repository: every such request is refused with a 4xx, and nothing
// outside the repository is read, written or deleted.

import assert from "node:assert/strict";
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { assertUntouched, berlinSpec, fixture, git, type Fixture } from "../../support/server.ts";

/** Names as they appear in a URL path: traversal, encoded traversal, absolute paths, NUL bytes, backslashes, very long. */
const HOSTILE_SEGMENTS = [
  "..",
  "%2e%2e",
  "..%2F..%2F..%2Fetc%2Fpasswd",
  "%2e%2e%2f%2e%2e%2fetc",
  "%2Fetc%2Fpasswd",
  "apps-rw%00",
  "apps-rw%00.yaml",
  "%00",
  "..%5C..%5Cwindows",
  "C%3A%5Cwindows",
  "%252e%252e%252f",
  "APPS-RW",
  "a".repeat(254),
  "-rf",
  "--upload-pack=touch%20x",
];

/** What the service may not touch: the fixture's directory listing next to the repository. */
async function outside(f: Fixture): Promise<string[]> {
  return (await readdir(dirname(f.dir))).sort();
}

test("hostile cluster and window names in the path are refused with a 4xx; nothing is committed or written", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const head = await f.repository.head();
  const around = await outside(f);
  const put = { body: { spec: berlinSpec(), reason: "traversal" } };
  for (const bad of HOSTILE_SEGMENTS) {
    const requests: [string, string, object][] = [
      ["PUT", `/api/v1/clusters/edge-berlin/windows/${bad}`, put],
      ["DELETE", `/api/v1/clusters/edge-berlin/windows/${bad}?reason=x`, {}],
      ["GET", `/api/v1/clusters/edge-berlin/windows/${bad}`, {}],
      ["PUT", `/api/v1/clusters/${bad}/windows/apps-rw`, put],
      ["GET", `/api/v1/clusters/${bad}/windows`, {}],
      ["GET", `/api/v1/clusters/${bad}/timeline`, {}],
      ["GET", `/api/v1/clusters/${bad}/calendar.ics`, {}],
      ["POST", `/api/v1/clusters/${bad}/overrides`, { body: { window: "apps-rw", action: "Open", duration: "1h", reason: "x" } }],
    ];
    for (const [method, path, options] of requests) {
      const r = await f.call(method, path, options);
      // URLs resolve ".." (and "%2e%2e") before any router sees them: such a path may land on another route of the API.
      const resolved = new URL(path, "http://localhost").pathname !== path.split("?")[0];
      if (resolved) assert.ok(r.status < 500, `${method} ${path}: ${r.status}`);
      else assert.ok(r.status >= 400 && r.status < 500, `${method} ${path}: ${r.status} ${r.text.slice(0, 200)}`);
      assert.ok(!/root:|\/bin\/(ba)?sh/.test(r.text), `${method} ${path} answered with a file's content`);
    }
  }
  assert.equal(await f.repository.head(), head, "nothing was committed");
  assert.deepEqual(await outside(f), around, "nothing was written next to the repository");
  assert.equal(await git(f.dir, "status", "--porcelain"), "", "the working copy is untouched");
});

test("hostile window and override names in a body are refused with 400; nothing is committed", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const head = await f.repository.head();
  for (const bad of ["..", "../apps-rw", "../../../etc/passwd", "/etc/passwd", "apps-rw\0", "a\\b", "a".repeat(254), "--upload-pack=touch x", "-n"]) {
    const asWindow = await f.call("POST", "/api/v1/clusters/edge-berlin/overrides", { body: { window: bad, action: "Open", duration: "1h", reason: "x" } });
    assert.equal(asWindow.status, 400, `window ${JSON.stringify(bad)}: ${asWindow.text}`);
    const asName = await f.call("POST", "/api/v1/clusters/edge-berlin/overrides", {
      body: { window: "apps-rw", action: "Open", duration: "1h", reason: "x", name: bad },
    });
    assert.equal(asName.status, 400, `name ${JSON.stringify(bad)}: ${asName.text}`);
    assert.match(asName.body.error.message, /is not a valid Kubernetes name/);
  }
  await assertUntouched(f, head);
});

test("a window file committed as a symbolic link is never written through (409); its target is untouched", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const target = join(dirname(f.dir), "precious.txt");
  await writeFile(target, "do not overwrite\n");
  await symlink("../../../../precious.txt", join(f.dir, "clusters/edge-berlin/windows/linked.yaml"));
  await git(f.dir, "add", "--all");
  await git(f.dir, "commit", "--quiet", "-m", "a link");
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const head = await f.repository.head();
  const r = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/linked", { body: { spec: berlinSpec(), reason: "write through the link" } });
  assert.equal(r.status, 409, r.text);
  assert.match(r.body.error.message, /clusters\/edge-berlin\/windows\/linked\.yaml is a symbolic link in the working copy/);
  assert.equal(await readFile(target, "utf8"), "do not overwrite\n");
  await assertUntouched(f, head);
  const del = await f.call("DELETE", "/api/v1/clusters/edge-berlin/windows/linked?reason=x");
  assert.ok(del.status === 409 || del.status === 404, `${del.status} ${del.text}`);
  assert.equal(await readFile(target, "utf8"), "do not overwrite\n");
});

test("a cluster's windows directory committed as a symbolic link is never written into (409)", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const elsewhere = join(dirname(f.dir), "elsewhere");
  await mkdir(elsewhere);
  await git(f.dir, "rm", "--quiet", "-r", "clusters/edge-tokyo/windows");
  await symlink("../../../elsewhere", join(f.dir, "clusters/edge-tokyo/windows"));
  await git(f.dir, "add", "--all");
  await git(f.dir, "commit", "--quiet", "-m", "windows elsewhere");
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const r = await f.call("PUT", "/api/v1/clusters/edge-tokyo/windows/new-window", { body: { spec: berlinSpec(), reason: "write into the link" } });
  assert.equal(r.status, 409, r.text);
  assert.match(r.body.error.message, /clusters\/edge-tokyo\/windows is a symbolic link/);
  assert.deepEqual(await readdir(elsewhere), []);
  const o = await f.call("POST", "/api/v1/clusters/edge-tokyo/overrides", { body: { window: "apps-rw", action: "Open", duration: "1h", reason: "x" } });
  assert.ok(o.status >= 400 && o.status < 500, `${o.status} ${o.text}`);
  assert.deepEqual(await readdir(elsewhere), []);
});

test("a fleet freeze whose files pass through a linked overrides directory of one cluster is refused whole (409); nothing is written there or committed", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const elsewhere = join(dirname(f.dir), "elsewhere-overrides");
  await mkdir(elsewhere);
  const clusters = (await readdir(join(f.dir, "clusters"))).sort();
  assert.ok(clusters.length >= 2, `the fixture has clusters: ${clusters.join(", ")}`);
  const linked = clusters[clusters.length - 1] as string;
  await symlink("../../../../elsewhere-overrides", join(f.dir, `clusters/${linked}/windows/overrides`));
  await git(f.dir, "add", "--all");
  await git(f.dir, "commit", "--quiet", "-m", "overrides elsewhere");
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const head = await f.repository.head();
  const r = await f.call("POST", "/api/v1/fleet/overrides", { body: { selector: "!ring", duration: "1h", reason: "through a link", name: "all-stop" } });
  assert.equal(r.status, 409, r.text);
  assert.match(r.body.error.message, new RegExp(`clusters/${linked}/windows/overrides is a symbolic link in the working copy`));
  assert.deepEqual(await readdir(elsewhere), []);
  await assertUntouched(f, head);
});
