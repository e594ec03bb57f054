// Every write route of the Config Service holds a reason to the one rule of src/api/reason.ts: a reason of 1,025 characters is refused at `reason` and commits
// nothing.
/* eslint-disable @typescript-eslint/no-unsafe-call -- answers are untyped JSON, checked field by field */

import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_REASON_LENGTH, REASON_TOO_LONG } from "../../../src/api/index.ts";
import { berlinSpec, fixture, git } from "../../support/server.ts";

const LONG = "r".repeat(MAX_REASON_LENGTH + 1);
const Q = `reason=${LONG}`;
const MERGE = { "content-type": "application/merge-patch+json" };
const JSON_PATCH = { "content-type": "application/json-patch+json" };

/** Each write route with a reason one character too long, where its reason goes (body, query, patch). */
const WRITES: Array<[string, string, { body?: unknown; headers?: Record<string, string> }]> = [
  ["PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", { body: { spec: berlinSpec(), reason: LONG } }],
  ["PATCH", "/api/v1/clusters/edge-berlin/windows/apps-rw", { body: { spec: { closeGracePeriod: "5m" }, reason: LONG }, headers: MERGE }],
  [
    "PATCH",
    `/api/v1/clusters/edge-berlin/windows/apps-rw?${Q}`,
    { body: [{ op: "replace", path: "/spec/closeGracePeriod", value: "5m" }], headers: JSON_PATCH },
  ],
  ["DELETE", `/api/v1/clusters/edge-berlin/windows/apps-rw?${Q}`, {}],
  ["DELETE", "/api/v1/clusters/edge-berlin/windows/apps-rw", { body: { reason: LONG } }],
  ["POST", "/api/v1/clusters/edge-berlin/overrides", { body: { window: "apps-rw", action: "Freeze", duration: "1h", reason: LONG } }],
  ["DELETE", `/api/v1/clusters/edge-berlin/overrides/some-override?${Q}`, {}],
  ["DELETE", `/api/v1/clusters/edge-berlin/overrides?expired=true&${Q}`, {}],
  ["POST", "/api/v1/fleet/windows", { body: { name: "night", selector: "ring=prod", spec: berlinSpec(), reason: LONG } }],
  ["PUT", "/api/v1/fleet/windows/night", { body: { spec: berlinSpec(), reason: LONG } }],
  ["PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw/patch", { body: { timeZone: "UTC", reason: LONG } }],
  ["DELETE", `/api/v1/clusters/edge-berlin/windows/apps-rw/patch?${Q}`, {}],
  ["POST", "/api/v1/fleet/overrides", { body: { selector: "ring=prod", duration: "1h", reason: LONG } }],
  ["DELETE", `/api/v1/fleet/overrides/all-stop?${Q}`, {}],
];

test("every write route refuses a reason of 1,025 characters with 400 at reason, and commits nothing", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const head = await f.repository.head();
  for (const [method, path, options] of WRITES) {
    const what = `${method} ${path.replace(LONG, "R…")}`;
    const answer = await f.call(method, path, options);
    assert.equal(answer.status, 400, `${what}: ${answer.text.slice(0, 300)}`);
    assert.deepEqual(
      answer.body.error.problems.map((p: { path: string }) => p.path),
      ["reason"],
      what,
    );
    assert.ok(answer.body.error.problems[0].message.includes(REASON_TOO_LONG), `${what}: ${answer.text.slice(0, 300)}`);
  }
  assert.equal(await f.repository.head(), head, "no commit");
  assert.equal(await git(f.dir, "status", "--porcelain", "--untracked-files=all"), "", "no changed file");
});

test("a reason of exactly 1,024 characters is taken", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const reason = "r".repeat(MAX_REASON_LENGTH);
  const r = await f.call("PATCH", "/api/v1/clusters/edge-berlin/windows/apps-rw", { body: { spec: { closeGracePeriod: "5m" }, reason }, headers: MERGE });
  assert.equal(r.status, 200, r.text.slice(0, 300));
  assert.match(await git(f.dir, "log", "-1", "--format=%B"), new RegExp(reason));
});
