// Requests built to cost the service: bodies over the limit (with or without a Content-Length, or a false one) are 413 before anything is parsed or written,
// and a preview that would flip state every minute for 93 days is refused instead of rendered.

import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_MAX_BODY_BYTES } from "../../../src/server/app.ts";
import { MAX_PREVIEW_CHANGES } from "../../../src/server/engine/preview.ts";
import { assertUntouched, berlinSpec, fixture } from "../../support/server.ts";

/** A JSON body of `bytes` bytes that would be valid but for its size. */
function bigBody(bytes: number): string {
  const shell = JSON.stringify({ spec: berlinSpec(), reason: "" });
  return JSON.stringify({ spec: berlinSpec(), reason: "r".repeat(bytes - shell.length) });
}

test(`the default limit is ${DEFAULT_MAX_BODY_BYTES} bytes on every route that takes a body: 413, and nothing is written`, async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const head = await f.repository.head();
  const body = bigBody(DEFAULT_MAX_BODY_BYTES + 1);
  for (const [method, path] of [
    ["PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw"],
    ["DELETE", "/api/v1/clusters/edge-berlin/windows/apps-rw"],
    ["POST", "/api/v1/clusters/edge-berlin/overrides"],
    ["POST", "/api/v1/preview"],
  ] as const) {
    const r = await f.call(method, path, { body });
    assert.equal(r.status, 413, `${method} ${path}: ${r.text.slice(0, 200)}`);
    assert.equal(r.body.error.message, `the request body is larger than ${DEFAULT_MAX_BODY_BYTES} bytes`);
  }
  const atLimit = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", { body: bigBody(DEFAULT_MAX_BODY_BYTES) });
  assert.equal(atLimit.status, 400, "a body of exactly the limit is read, and judged on what it says");
  assert.match(atLimit.body.error.message, /reason: is longer than 1,024 characters/);
  await assertUntouched(f, head);
});

test("a body streamed without a Content-Length, or with a false one, is cut at the limit too", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const head = await f.repository.head();
  const chunk = new TextEncoder().encode(" ".repeat(16 * 1024));
  let sent = 0;
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      // Never-ending whitespace: valid JSON so far, so only the limit can stop it.
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
  const streamed = await f.app.request("/api/v1/clusters/edge-berlin/windows/apps-rw", {
    method: "PUT",
    headers: { authorization: `Bearer ${f.tokens.editor}`, "content-type": "application/json" },
    body: endless,
    duplex: "half",
  } as RequestInit);
  assert.equal(streamed.status, 413);
  assert.ok(sent < 10 * DEFAULT_MAX_BODY_BYTES, `read ${sent} bytes of an endless body`);
  const lying = await f.app.request("/api/v1/clusters/edge-berlin/windows/apps-rw", {
    method: "PUT",
    headers: { authorization: `Bearer ${f.tokens.editor}`, "content-type": "application/json", "content-length": "10" },
    body: bigBody(DEFAULT_MAX_BODY_BYTES * 2),
  });
  assert.ok(lying.status === 413 || lying.status === 400, `a false Content-Length: ${lying.status}`);
  await assertUntouched(f, head);
});

test(`a preview with more than ${MAX_PREVIEW_CHANGES} changes of state is refused (400); a shorter range of the same spec is previewed`, async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  // Open every minute, frozen every other minute: a change of state every minute.
  const spec = { schedules: [{ start: "* * * * *", duration: "1m" }], freezes: [{ start: "*/2 * * * *", duration: "1m" }] };
  const long = await f.call("POST", "/api/v1/preview", { token: f.tokens.viewer, body: { spec, from: "2026-11-23T00:00:00Z", to: "2027-02-23T00:00:00Z" } });
  assert.equal(long.status, 400, long.text.slice(0, 200));
  assert.match(long.body.error.message, /changes state more than 20000 times between from and to; preview a shorter range/);
  const week = await f.call("POST", "/api/v1/preview", { token: f.tokens.viewer, body: { spec, from: "2026-11-23T00:00:00Z", to: "2026-11-30T00:00:00Z" } });
  assert.equal(week.status, 200);
  assert.equal(week.body.timeline.segments.length, 7 * 1440);
});
