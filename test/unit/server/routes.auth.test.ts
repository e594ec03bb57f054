// In-process route tests of who may do what: tokens, roles, anonymous reads, and the limits on size and rate.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { assertUntouched, berlinSpec, fixture } from "../../support/server.ts";

test("every /api call needs a token: none is 401 with WWW-Authenticate, a wrong one too", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const none = await f.call("GET", "/api/v1/clusters", { token: null });
  assert.equal(none.status, 401);
  assert.equal(none.headers.get("www-authenticate"), 'Bearer realm="fluxgate"');
  assert.match(none.body.error.message, /needs a bearer token/);
  const wrong = await f.call("GET", "/api/v1/clusters", { token: "fgt_not-a-token" });
  assert.equal(wrong.status, 401);
  assert.match(wrong.body.error.message, /the token is not valid/);
  const malformed = await f.call("GET", "/api/v1/clusters", { token: null, headers: { authorization: "Basic YWxpY2U6c2VjcmV0" } });
  assert.equal(malformed.status, 401);
  assert.match(malformed.body.error.message, /must be "Bearer TOKEN"/);
});

test("the tokens file keeps only hashes", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const text = await readFile(f.tokens.file, "utf8");
  for (const token of [f.tokens.viewer, f.tokens.editor, f.tokens.breakglass]) assert.ok(!text.includes(token));
  assert.match(text, /sha256: [0-9a-f]{64}/);
});

test("roles: a viewer reads but may not write; breakglass may override but not change windows", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const start = await f.repository.head();
  const put = { body: { spec: { ...berlinSpec(), closeGracePeriod: "5m" }, reason: "try" } };
  const viewer = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", { ...put, token: f.tokens.viewer });
  assert.equal(viewer.status, 403);
  assert.equal(viewer.body.error.message, 'token "vera viewer" (role viewer) may not change windows; that needs a token with role editor');
  const breakglass = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", { ...put, token: f.tokens.breakglass });
  assert.equal(breakglass.status, 403);
  const overrideByViewer = await f.call("POST", "/api/v1/clusters/edge-berlin/overrides", {
    token: f.tokens.viewer,
    body: { window: "apps-rw", action: "Open", duration: "1h", reason: "x" },
  });
  assert.equal(overrideByViewer.status, 403);
  assert.match(overrideByViewer.body.error.message, /may not create overrides; that needs a token with role editor or breakglass/);
  const direct = await f.call("POST", "/api/v1/clusters/edge-berlin/overrides", {
    token: f.tokens.editor,
    body: { window: "apps-rw", action: "Open", duration: "1h", reason: "x", delivery: "direct" },
  });
  assert.equal(direct.status, 403);
  assert.match(direct.body.error.message, /may not deliver overrides directly to a cluster .* role breakglass/);
  const deleteByBreakglass = await f.call("DELETE", "/api/v1/clusters/edge-berlin/windows/nightly?reason=x", { token: f.tokens.breakglass });
  assert.equal(deleteByBreakglass.status, 403);
  await assertUntouched(f, start);
});

test("--anonymous-read lets callers without a token read and preview, never write", async (t) => {
  const f = await fixture({ anonymousRead: true });
  t.after(f.cleanup);
  const start = await f.repository.head();
  assert.equal((await f.call("GET", "/api/v1/clusters", { token: null })).status, 200);
  assert.equal((await f.call("GET", "/api/v1/me", { token: null })).body.anonymous, true);
  assert.equal((await f.app.request("/metrics")).status, 200, "the metrics are read as the API is");
  assert.equal((await f.call("POST", "/api/v1/preview", { token: null, body: { spec: { schedules: [{ start: "@daily", duration: "1h" }] } } })).status, 200);
  const put = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", {
    token: null,
    body: { spec: { ...berlinSpec(), closeGracePeriod: "5m" }, reason: "x" },
  });
  assert.equal(put.status, 401);
  const del = await f.call("DELETE", "/api/v1/clusters/edge-berlin/windows/apps-rw?reason=x", { token: null });
  assert.equal(del.status, 401);
  const override = await f.call("POST", "/api/v1/clusters/edge-berlin/overrides", {
    token: null,
    body: { window: "apps-rw", action: "Open", duration: "1h", reason: "x" },
  });
  assert.equal(override.status, 401);
  await assertUntouched(f, start);
  // A token that is given must still be valid.
  assert.equal((await f.call("GET", "/api/v1/clusters", { token: "fgt_wrong" })).status, 401);
});

test("the calendar feed takes the token as ?access_token=, since calendar apps cannot send headers", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const ok = await f.app.request(`/api/v1/clusters/edge-berlin/calendar.ics?access_token=${f.tokens.viewer}`);
  assert.equal(ok.status, 200);
  const elsewhere = await f.app.request(`/api/v1/clusters?access_token=${f.tokens.viewer}`);
  assert.equal(elsewhere.status, 401, "only the feed takes a token in the URL");
});

test("request bodies are limited in size (413) and must be JSON (415, 400)", async (t) => {
  const f = await fixture({ maxBodyBytes: 2048 });
  t.after(f.cleanup);
  const start = await f.repository.head();
  const big = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", { body: { spec: berlinSpec(), reason: "x".repeat(4096) } });
  assert.equal(big.status, 413);
  assert.match(big.body.error.message, /larger than 2048 bytes/);
  const form = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", {
    body: "spec=1",
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  assert.equal(form.status, 415);
  const broken = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", { body: "{not json" });
  assert.equal(broken.status, 400);
  assert.match(broken.body.error.message, /not valid JSON/);
  const array = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", { body: "[1]" });
  assert.equal(array.status, 400);
  assert.match(array.body.error.message, /must be a JSON object/);
  await assertUntouched(f, start);
});

test("callers are rate limited with 429 and Retry-After", async (t) => {
  const f = await fixture({ rateLimit: { burst: 3, perSecond: 0.5 } });
  t.after(f.cleanup);
  const statuses: number[] = [];
  let last;
  for (let i = 0; i < 5; i++) {
    last = await f.call("GET", "/api/v1/clusters", { token: f.tokens.viewer });
    statuses.push(last.status);
  }
  assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
  assert.equal(last?.headers.get("retry-after"), "2");
  assert.match(last?.body.error.message, /too many requests/);
  // Another caller has a bucket of its own.
  assert.equal((await f.call("GET", "/api/v1/clusters", { token: f.tokens.editor })).status, 200);
});
