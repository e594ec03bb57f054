// In-process route tests of the edits people make: partial changes (PATCH), reserved names, ending overrides, cleaning up.
/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are untyped JSON, checked field by field */

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fixture, git, type Fixture } from "../../support/server.ts";

const WINDOWS = "clusters/edge-berlin/windows";

/** Runs `request` and checks it left no commit and no changed file. */
async function unchanged<T>(f: Fixture, request: () => Promise<T>): Promise<T> {
  const head = await f.repository.head();
  const tree = await git(f.dir, "status", "--porcelain", "--untracked-files=all");
  const answer = await request();
  assert.equal(await f.repository.head(), head, "no commit");
  assert.equal(await git(f.dir, "status", "--porcelain", "--untracked-files=all"), tree, "no changed file");
  return answer;
}

const tokyoSpec = { timeZone: "Asia/Tokyo", schedules: [{ start: "0 2 * * TUE,THU", duration: "5h" }], targets: [{ kind: "Kustomization", name: "apps-rw" }] };

test("names the layout reserves are refused with 400 before any write, for windows and overrides", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  for (const name of ["kustomization", "overrides"]) {
    for (const method of ["PUT", "PATCH"] as const) {
      const r = await unchanged(f, () =>
        f.call(
          method,
          `/api/v1/clusters/edge-berlin/windows/${name}`,
          method === "PUT"
            ? { body: { spec: tokyoSpec, reason: "x" } }
            : { body: { spec: { timeZone: "UTC" }, reason: "x" }, headers: { "content-type": "application/merge-patch+json" } },
        ),
      );
      assert.equal(r.status, 400, `${method} ${name}: ${r.text}`);
      assert.match(r.body.error.message, new RegExp(`window name "${name}" is reserved`));
    }
    const o = await unchanged(f, () =>
      f.call("POST", "/api/v1/clusters/edge-berlin/overrides", { body: { window: "apps-rw", action: "Open", duration: "1h", reason: "x", name } }),
    );
    assert.equal(o.status, 400);
    assert.match(o.body.error.message, /override name ".*" is reserved/);
  }
  assert.doesNotMatch(await readFile(join(f.dir, WINDOWS, "kustomization.yaml"), "utf8"), /- kustomization\.yaml/);
});

test("PATCH with a JSON Merge Patch changes only what it names: the weekend and holiday freezes stay", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const read = await f.call("GET", "/api/v1/clusters/edge-tokyo/windows/apps-rw");
  const r = await f.call("PATCH", "/api/v1/clusters/edge-tokyo/windows/apps-rw", {
    body: { spec: { schedules: [{ start: "0 2 * * TUE,THU", duration: "5h" }] }, reason: "Tokyo asked for an hour more" },
    headers: { "content-type": "application/merge-patch+json", "if-match": read.headers.get("etag") as string },
  });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.changed, true);
  assert.deepEqual(r.body.window.spec.schedules, [{ start: "0 2 * * TUE,THU", duration: "5h" }]);
  assert.deepEqual(r.body.window.spec.freezes, read.body.spec.freezes, "the freezes are kept");
  assert.equal(read.body.spec.freezes.length, 2);
  assert.equal(await git(f.dir, "log", "-1", "--format=%s"), "edge-tokyo: change window apps-rw: Tokyo asked for an hour more");
  assert.equal(await git(f.dir, "show", "--format=", "--name-only", "HEAD"), "clusters/edge-tokyo/windows/apps-rw.yaml");
  // null removes a member.
  const removed = await f.call("PATCH", "/api/v1/clusters/edge-tokyo/windows/apps-rw?reason=No%20weekend%20freeze", {
    body: { spec: { freezes: null } },
    headers: { "content-type": "application/merge-patch+json" },
  });
  assert.equal(removed.status, 200, removed.text);
  assert.equal(removed.body.window.spec.freezes, undefined);
  // A merge patch is refused as a PUT is, and changes nothing: a stale If-Match, an invalid result, a member other than spec.
  const merge = { "content-type": "application/merge-patch+json" };
  const refusals: Array<[unknown, Record<string, string>, number, RegExp]> = [
    [{ spec: { closeGracePeriod: "5m" }, reason: "stale" }, { "if-match": read.headers.get("etag") as string }, 412, /changed since you read it/],
    [{ spec: { timeZone: "Asia/Tokio" }, reason: "typo" }, {}, 400, /spec\.timeZone: time zone "Asia\/Tokio" is unknown/],
    [{ spec: { targets: null }, reason: "no targets" }, {}, 400, /spec\.targets/],
    [{ metadata: { name: "x" }, reason: "rename" }, {}, 400, /changes the window's spec only; remove "metadata"/],
    [{ spec: { closeGracePeriod: "5m" } }, {}, 400, /say why/],
    ["[1]", {}, 400, /JSON Merge Patch of a window is an object/],
  ];
  for (const [body, headers, status, message] of refusals) {
    const answer = await unchanged(f, () => f.call("PATCH", "/api/v1/clusters/edge-tokyo/windows/apps-rw", { body, headers: { ...merge, ...headers } }));
    assert.equal(answer.status, status, `${JSON.stringify(body)}: ${answer.text}`);
    assert.match(answer.body.error.message, message);
  }
});

test("PATCH with a JSON Patch applies its operations; If-Match, failed tests and bad operations change nothing", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const path = "/api/v1/clusters/edge-berlin/windows/apps-rw";
  const read = await f.call("GET", path);
  const jsonPatch = { "content-type": "application/json-patch+json" };
  const r = await f.call("PATCH", `${path}?reason=${encodeURIComponent("Fridays are fine now")}`, {
    body: [
      { op: "test", path: "/spec/freezes/0/reason", value: "No deploys on Fridays" },
      { op: "remove", path: "/spec/freezes/0" },
    ],
    headers: { ...jsonPatch, "if-match": read.headers.get("etag") as string },
  });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(
    r.body.window.spec.freezes.map((z: any) => z.reason),
    ["Holiday freeze"],
  );
  const text = await readFile(join(f.dir, WINDOWS, "apps-rw.yaml"), "utf8");
  assert.match(text, /# Agreed with the plant/, "comments survive a patch");

  const cases: Array<[unknown, Record<string, string>, string, number, RegExp]> = [
    [[{ op: "replace", path: "/spec/timeZone", value: "UTC" }], { "if-match": read.headers.get("etag") as string }, "stale", 412, /changed since you read it/],
    [[{ op: "test", path: "/spec/timeZone", value: "UTC" }], {}, "x", 409, /operation 0: the test failed/],
    [[{ op: "replace", path: "/spec/nothing/here", value: 1 }], {}, "x", 400, /operation 0: /],
    [[{ op: "replace", path: "/metadata/name", value: "other" }], {}, "x", 400, /paths start with \/spec/],
    [[{ op: "replace", path: "/spec/timeZone", value: "Mars/Base" }], {}, "x", 400, /spec\.timeZone: time zone "Mars\/Base" is unknown/],
    [[{ op: "replace", path: "/spec/timeZone", value: "UTC" }], {}, "", 400, /say why/],
    [{ op: "replace" }, {}, "x", 400, /a JSON Patch is an array/],
  ];
  for (const [body, headers, reason, status, message] of cases) {
    const answer = await unchanged(f, () =>
      f.call("PATCH", `${path}${reason === "" ? "" : `?reason=${reason}`}`, { body, headers: { ...jsonPatch, ...headers } }),
    );
    assert.equal(answer.status, status, `${JSON.stringify(body)}: ${answer.text}`);
    assert.match(answer.body.error.message, message);
  }
  const json = await unchanged(f, () => f.call("PATCH", `${path}?reason=x`, { body: { spec: {} } }));
  assert.equal(json.status, 415);
  assert.match(json.body.error.message, /application\/merge-patch\+json.*application\/json-patch\+json/);
  const missing = await unchanged(f, () => f.call("PATCH", "/api/v1/clusters/edge-berlin/windows/nope?reason=x", { body: [], headers: jsonPatch }));
  assert.equal(missing.status, 404);
});

test("DELETE of an override ends it early in one commit, for editor and breakglass; others and bad requests change nothing", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const created = await f.call("POST", "/api/v1/clusters/edge-berlin/overrides", {
    body: { window: "apps-rw", action: "Freeze", duration: "4h", reason: "Incident 88" },
  });
  const name = created.body.override.metadata.name as string;
  for (const [token, status] of [
    [f.tokens.viewer, 403],
    [null, 401],
  ] as const) {
    const r = await unchanged(f, () => f.call("DELETE", `/api/v1/clusters/edge-berlin/overrides/${name}?reason=x`, { token }));
    assert.equal(r.status, status);
  }
  assert.equal((await unchanged(f, () => f.call("DELETE", `/api/v1/clusters/edge-berlin/overrides/${name}`))).status, 400);
  assert.equal((await unchanged(f, () => f.call("DELETE", "/api/v1/clusters/edge-berlin/overrides/nope?reason=x"))).status, 404);
  assert.equal(
    (await unchanged(f, () => f.call("DELETE", `/api/v1/clusters/edge-berlin/overrides/${name}?reason=x`, { headers: { "if-match": '"0000"' } }))).status,
    412,
  );

  const r = await f.call("DELETE", `/api/v1/clusters/edge-berlin/overrides/${name}?reason=${encodeURIComponent("Incident 88 resolved")}`, {
    token: f.tokens.breakglass,
  });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.deleted, [name]);
  assert.equal(await git(f.dir, "log", "-1", "--format=%an|%s"), `bree oncall|edge-berlin: end override ${name} of window apps-rw: Incident 88 resolved`);
  assert.deepEqual((await git(f.dir, "show", "--format=", "--name-only", "HEAD")).split("\n").sort(), [
    `${WINDOWS}/kustomization.yaml`,
    `${WINDOWS}/overrides/${name}.yaml`,
  ]);
  assert.doesNotMatch(await readFile(join(f.dir, WINDOWS, "kustomization.yaml"), "utf8"), /overrides\//);
  const windows = await f.call("GET", "/api/v1/clusters/edge-berlin/windows");
  assert.equal(windows.body.windows.find((w: any) => w.name === "apps-rw").overridden, false);

  // An editor may end one too; the reason may be a JSON body.
  const second = await f.call("POST", "/api/v1/clusters/edge-berlin/overrides", {
    token: f.tokens.breakglass,
    body: { window: "nightly", action: "Open", duration: "1h", reason: "Hotfix", name: "hotfix" },
  });
  assert.equal(second.status, 201, second.text);
  const before = await f.repository.head();
  const byEditor = await f.call("DELETE", "/api/v1/clusters/edge-berlin/overrides/hotfix", { body: { reason: "Hotfix shipped" } });
  assert.equal(byEditor.status, 200, byEditor.text);
  assert.equal(await git(f.dir, "rev-parse", "HEAD~1"), before, "one commit");
  assert.equal(await git(f.dir, "log", "-1", "--format=%an|%s"), "eddie editor|edge-berlin: end override hotfix of window nightly: Hotfix shipped");
  assert.deepEqual((await f.call("GET", "/api/v1/clusters/edge-berlin/overrides")).body.overrides, []);
});

test("an override file broken by hand is listed as invalid and can be removed", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const { writeFile, mkdir } = await import("node:fs/promises");
  await mkdir(join(f.dir, WINDOWS, "overrides"), { recursive: true });
  await writeFile(
    join(f.dir, WINDOWS, "overrides", "broken.yaml"),
    "apiVersion: fluxgate.io/v1alpha1\nkind: WindowOverride\nmetadata:\n  name: broken\n  namespace: flux-system\nspec:\n  action: Opened\n",
  );
  const kustomization = join(f.dir, WINDOWS, "kustomization.yaml");
  await writeFile(kustomization, (await readFile(kustomization, "utf8")).replace("  - nightly.yaml\n", "  - nightly.yaml\n  - overrides/broken.yaml\n"));
  await git(f.dir, "add", "--all");
  await git(f.dir, "commit", "--quiet", "-m", "A broken override");
  // HEAD is looked at again at most once a second.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const list = await f.call("GET", "/api/v1/clusters/edge-berlin/overrides");
  assert.deepEqual(
    list.body.overrides.map((o: any) => [o.name, o.valid, o.active, o.expired]),
    [["broken", false, false, false]],
  );
  const r = await f.call("DELETE", "/api/v1/clusters/edge-berlin/overrides/broken?reason=Broken%20by%20hand");
  assert.equal(r.status, 200, r.text);
  assert.equal(await git(f.dir, "log", "-1", "--format=%s"), "edge-berlin: end override broken: Broken by hand");
  assert.doesNotMatch(await readFile(kustomization, "utf8"), /broken/);
});

test("deleting a window deletes its overrides in the same commit and says so", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const mine = await f.call("POST", "/api/v1/clusters/edge-berlin/overrides", { body: { window: "nightly", action: "Open", duration: "1h", reason: "x" } });
  const other = await f.call("POST", "/api/v1/clusters/edge-berlin/overrides", { body: { window: "apps-rw", action: "Open", duration: "1h", reason: "y" } });
  // A refused delete takes neither the window nor its overrides.
  const refusals: Array<[string, { headers?: Record<string, string>; token?: string }, number]> = [
    ["", {}, 400],
    ["?reason=x", { headers: { "if-match": '"0000"' } }, 412],
    ["?reason=x", { token: f.tokens.breakglass }, 403],
  ];
  for (const [query, options, status] of refusals) {
    const refused = await unchanged(f, () => f.call("DELETE", `/api/v1/clusters/edge-berlin/windows/nightly${query}`, options));
    assert.equal(refused.status, status, refused.text);
  }
  const r = await f.call("DELETE", "/api/v1/clusters/edge-berlin/windows/nightly?reason=No%20more%20night%20work");
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.deletedOverrides, [mine.body.override.metadata.name]);
  const files = (await git(f.dir, "show", "--format=", "--name-only", "HEAD")).split("\n").sort();
  assert.deepEqual(files, [`${WINDOWS}/kustomization.yaml`, `${WINDOWS}/nightly.yaml`, `${WINDOWS}/overrides/${mine.body.override.metadata.name}.yaml`]);
  const list = await f.call("GET", "/api/v1/clusters/edge-berlin/overrides");
  assert.deepEqual(
    list.body.overrides.map((o: any) => o.name),
    [other.body.override.metadata.name],
  );
  assert.match(
    await git(f.dir, "log", "-1", "--format=%s"),
    /^edge-berlin: delete window nightly and its overrides nightly-open-20261123-100000: No more night work$/,
  );
});

test("expired overrides are listed as expired and removed together in one commit with ?expired=true", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  // Two overrides that ended before the fixture's clock, committed as someone would have.
  const { writeFile, mkdir } = await import("node:fs/promises");
  await mkdir(join(f.dir, WINDOWS, "overrides"), { recursive: true });
  const kustomization = join(f.dir, WINDOWS, "kustomization.yaml");
  const old: Array<[string, string, string, string]> = [
    ["apps-rw-open-20261123-070000", "apps-rw", "Open", "2026-11-23T07:00:00Z|2026-11-23T09:00:00Z"],
    ["nightly-freeze-20261122-200000", "nightly", "Freeze", "2026-11-22T20:00:00Z|2026-11-23T02:00:00Z"],
  ];
  for (const [name, window, action, span] of old) {
    const [requested, until] = span.split("|");
    await writeFile(
      join(f.dir, WINDOWS, "overrides", `${name}.yaml`),
      `apiVersion: fluxgate.io/v1alpha1\nkind: WindowOverride\nmetadata:\n  name: ${name}\n  namespace: flux-system\n  annotations:\n    fluxgate.io/requested-at: "${requested}"\nspec:\n  windowRef:\n    name: ${window}\n  action: ${action}\n  until: "${until}"\n  reason: Old\n`,
    );
    await writeFile(kustomization, (await readFile(kustomization, "utf8")).replace("  - nightly.yaml\n", `  - nightly.yaml\n  - overrides/${name}.yaml\n`));
  }
  await git(f.dir, "add", "--all");
  await git(f.dir, "commit", "--quiet", "-m", "Old overrides");
  const active = await f.call("POST", "/api/v1/clusters/edge-berlin/overrides", { body: { window: "apps-rw", action: "Open", duration: "1h", reason: "now" } });
  const expired = old.map(([name]) => name).sort();

  const list = await f.call("GET", "/api/v1/clusters/edge-berlin/overrides");
  assert.deepEqual(
    list.body.overrides.map((o: any) => [o.name, o.active, o.expired]).sort(),
    [[active.body.override.metadata.name, true, false], ...expired.map((name) => [name, false, true])].sort(),
  );
  assert.equal((await unchanged(f, () => f.call("DELETE", "/api/v1/clusters/edge-berlin/overrides?reason=x"))).status, 400);
  assert.equal((await unchanged(f, () => f.call("DELETE", "/api/v1/clusters/edge-berlin/overrides?expired=true"))).status, 400);
  assert.equal(
    (await unchanged(f, () => f.call("DELETE", "/api/v1/clusters/edge-berlin/overrides?expired=true&reason=x", { token: f.tokens.viewer }))).status,
    403,
  );
  const before = await f.repository.head();
  const r = await f.call("DELETE", "/api/v1/clusters/edge-berlin/overrides?expired=true&reason=Clean%20up");
  assert.equal(r.status, 200, r.text);
  assert.deepEqual([...r.body.deleted].sort(), expired);
  assert.equal(r.body.changed, true);
  assert.equal(await git(f.dir, "rev-parse", "HEAD~1"), before, "one commit");
  assert.equal(await git(f.dir, "log", "-1", "--format=%s"), "edge-berlin: remove 2 expired overrides: Clean up");
  assert.deepEqual((await git(f.dir, "show", "--format=", "--name-only", "HEAD")).split("\n").sort(), [
    `${WINDOWS}/kustomization.yaml`,
    ...expired.map((name) => `${WINDOWS}/overrides/${name}.yaml`),
  ]);
  const left = await f.call("GET", "/api/v1/clusters/edge-berlin/overrides");
  assert.deepEqual(
    left.body.overrides.map((o: any) => o.name),
    [active.body.override.metadata.name],
    "the active override stays",
  );
  const again = await f.call("DELETE", "/api/v1/clusters/edge-berlin/overrides?expired=true&reason=Clean%20up");
  assert.deepEqual([again.status, again.body.changed, again.body.deleted], [200, false, []]);
});

test("two overrides asked for in the same second get unique names", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const body = { window: "apps-rw", action: "Open", duration: "1h", reason: "x" };
  const [a, b] = await Promise.all([
    f.call("POST", "/api/v1/clusters/edge-berlin/overrides", { body }),
    f.call("POST", "/api/v1/clusters/edge-berlin/overrides", { body }),
  ]);
  assert.deepEqual([a.status, b.status], [201, 201]);
  assert.deepEqual([a.body.override.metadata.name, b.body.override.metadata.name].sort(), ["apps-rw-open-20261123-100000", "apps-rw-open-20261123-100000-2"]);
});

test("a failed direct delivery keeps the commit and answers 201 with the reason, never an error with a commit behind it", async (t) => {
  const live = {
    contextOf: (cluster: string) => (cluster === "edge-berlin" ? "berlin" : null),
    read: () => Promise.resolve({ windows: [], overrides: [] }),
    create: () => Promise.reject(new Error("connection refused")),
    cancel: () => Promise.reject(new Error("connection refused")),
  };
  const f = await fixture({ live });
  t.after(f.cleanup);
  const before = await f.repository.head();
  const r = await f.call("POST", "/api/v1/clusters/edge-berlin/overrides", {
    token: f.tokens.breakglass,
    body: { window: "apps-rw", action: "Open", duration: "1h", reason: "x", delivery: "direct" },
  });
  assert.equal(r.status, 201);
  assert.equal(r.body.cluster, null);
  assert.match(r.body.deliveryError, /committed as [0-9a-f]{12} .*creating it directly in the cluster failed: connection refused/);
  assert.notEqual(await f.repository.head(), before);

  // Ending it directly: a bad ?delivery= and a role without direct delivery change nothing; a failed cancel keeps the commit and says why.
  const name: string = r.body.override.metadata.name;
  const path = `/api/v1/clusters/edge-berlin/overrides/${name}?reason=done`;
  const committed = await f.repository.head();
  const bad = await f.call("DELETE", `${path}&delivery=fast`, { token: f.tokens.breakglass });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.message, /delivery: "git" or "direct", not "fast"/);
  const editor = await f.call("DELETE", `${path}&delivery=direct`, { token: f.tokens.editor });
  assert.equal(editor.status, 403);
  assert.equal(await f.repository.head(), committed, "refused: no commit");
  const ended = await f.call("DELETE", `${path}&delivery=direct`, { token: f.tokens.breakglass });
  assert.equal(ended.status, 200, JSON.stringify(ended.body));
  assert.deepEqual(ended.body.deleted, [name]);
  assert.equal(ended.body.direct.length, 1);
  assert.deepEqual([ended.body.direct[0].cluster, ended.body.direct[0].name, ended.body.direct[0].result], ["edge-berlin", name, "failed"]);
  assert.match(ended.body.direct[0].error, /ended in Git as [0-9a-f]{12}, but cancelling it in the cluster failed: connection refused/);
  assert.equal(await f.repository.head(), ended.body.commit);
});

test("a calendar token reads the .ics feed and nothing else, and dies with its token", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const r = await f.call("GET", "/api/v1/calendar-token");
  assert.equal(r.status, 200);
  const calendar = r.body.token as string;
  assert.match(calendar, /^fgc_[A-Za-z0-9_-]{43}$/);
  assert.ok(!calendar.includes(f.tokens.editor));
  const feed = await f.app.request(`/api/v1/clusters/edge-berlin/calendar.ics?access_token=${calendar}`);
  assert.equal(feed.status, 200);
  assert.match(await feed.text(), /^BEGIN:VCALENDAR/);
  for (const [method, path] of [
    ["GET", "/api/v1/clusters"],
    ["GET", "/api/v1/calendar-token"],
    ["GET", "/metrics"],
    ["PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw"],
  ]) {
    const refused = await unchanged(f, () =>
      f.call(method as string, path as string, { token: calendar, ...(method === "GET" ? {} : { body: { spec: {}, reason: "x" } }) }),
    );
    assert.equal(refused.status, 401, `${method} ${path}`);
    assert.match(refused.body.error.message, /a calendar token only reads calendar feeds/);
  }
  const { addToken } = await import("../../../src/server/http/tokens.ts");
  await addToken(f.tokens.file, { name: "eddie editor", role: "editor", replace: true, now: Date.now() });
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const dead = await f.app.request(`/api/v1/clusters/edge-berlin/calendar.ics?access_token=${calendar}`);
  assert.equal(dead.status, 401);
});

test("PATCH refuses a reason longer than 1,024 characters, as a merge patch's member or ?reason=, and commits nothing", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const path = "/api/v1/clusters/edge-tokyo/windows/apps-rw";
  const long = "x".repeat(5000);
  const requests: Array<[string, unknown, string]> = [
    ["", { spec: { closeGracePeriod: "5m" }, reason: long }, "application/merge-patch+json"],
    [`?reason=${long}`, { spec: { closeGracePeriod: "5m" } }, "application/merge-patch+json"],
    [`?reason=${long}`, [{ op: "replace", path: "/spec/closeGracePeriod", value: "5m" }], "application/json-patch+json"],
  ];
  for (const [query, body, type] of requests) {
    const answer = await unchanged(f, () => f.call("PATCH", `${path}${query}`, { body, headers: { "content-type": type } }));
    assert.equal(answer.status, 400, `${type}${query === "" ? "" : " ?reason="}: ${answer.text.slice(0, 300)}`);
    assert.deepEqual(
      answer.body.error.problems.map((p: { path: string }) => p.path),
      ["reason"],
    );
    assert.match(answer.body.error.message, /reason: .*1,?024 characters/);
  }
});
