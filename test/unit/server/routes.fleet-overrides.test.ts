// In-process route tests of fleet overrides with direct delivery: created at once in each selected cluster the service has a context for, from Git elsewhere; a
// page of clusters' live status in one call.
/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are untyped JSON, checked field by field */

import assert from "node:assert/strict";
import { test } from "node:test";
import { brotliDecompressSync } from "node:zlib";
import { assertUntouched, fixture, NOW } from "../../support/server.ts";
import { MemoryLive } from "../../support/live.ts";

test("a fleet freeze with delivery direct is one commit, created directly where a context is configured and from Git elsewhere", async (t) => {
  const live = new MemoryLive(new Map([["edge-berlin", "berlin"]]));
  const f = await fixture({ live });
  t.after(f.cleanup);
  const head = await f.repository.head();
  // The example fleet has no labels: "!ring" (no ring label) selects every cluster.
  const body = { selector: "!ring", duration: "2h", reason: "incident", name: "all-stop", delivery: "direct" };
  const editor = await f.call("POST", "/api/v1/fleet/overrides", { body });
  assert.equal(editor.status, 403, "direct delivery needs the breakglass role");
  await assertUntouched(f, head);
  const r = await f.call("POST", "/api/v1/fleet/overrides", { token: f.tokens.breakglass, body });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const direct = r.body.overrides.filter((o: any) => o.delivery === "direct").map((o: any) => `${o.cluster}/${o.name}`);
  assert.deepEqual(direct, ["edge-berlin/all-stop-apps-rw", "edge-berlin/all-stop-nightly"]);
  assert.ok(r.body.overrides.filter((o: any) => o.cluster !== "edge-berlin").every((o: any) => o.delivery === "git"));
  assert.deepEqual(
    live.created.map((o) => o.metadata?.labels?.["fluxgate.io/fleet-override"]),
    ["all-stop", "all-stop"],
    "the manifests delivered are those committed",
  );
  assert.equal(await f.repository.head(), r.body.commit);
  const page = await f.call("GET", "/api/v1/fleet/clusters?limit=2", { token: f.tokens.viewer });
  assert.equal(page.status, 200);
  assert.equal(page.body.clusters[0].live.live, true, "edge-berlin's live status is in the page");
  assert.deepEqual(
    page.body.clusters[0].live.overrides.map((o: any) => o.name),
    ["all-stop-apps-rw", "all-stop-nightly"],
  );
  assert.equal(page.body.clusters[1].live, null, "no context, no live status");
  assert.ok(page.body.clusters.every((k: any) => k.activeOverrides >= 1));
});

test("the fleet listings are kept per commit and query: an ETag, 304 for it, compressed on request, and made again when an override's stage changes", async (t) => {
  let now = NOW;
  const f = await fixture({ now: () => now });
  t.after(f.cleanup);
  const r = await f.call("POST", "/api/v1/fleet/overrides", { body: { selector: "!ring", duration: "1h", reason: "incident", name: "all-stop" } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const first = await f.call("GET", "/api/v1/fleet/overrides", { token: f.tokens.viewer });
  assert.equal(first.status, 200);
  assert.deepEqual(
    first.body.overrides.map((o: any) => [o.name, o.stage]),
    [["all-stop", "active"]],
  );
  assert.equal(first.body.commit, r.body.commit);
  const etag = first.headers.get("etag");
  assert.match(etag ?? "", /^"[A-Za-z0-9_-]{27}"$/);
  const again = await f.call("GET", "/api/v1/fleet/overrides", { token: f.tokens.viewer, headers: { "if-none-match": etag ?? "" } });
  assert.equal(again.status, 304);
  assert.equal(again.text, "");
  const br = await f.app.request("/api/v1/fleet/overrides", { headers: { authorization: `Bearer ${f.tokens.viewer}`, "accept-encoding": "br" } });
  assert.equal(br.headers.get("content-encoding"), "br");
  assert.equal(brotliDecompressSync(Buffer.from(await br.arrayBuffer())).toString("utf8"), first.text, "the same answer, compressed");
  const pretty = await f.call("GET", "/api/v1/fleet/overrides?pretty", { token: f.tokens.viewer, headers: { "if-none-match": etag ?? "" } });
  assert.equal(pretty.status, 200, "?pretty is other bytes than the ETag names");
  assert.equal(pretty.headers.get("etag"), null);
  assert.deepEqual(JSON.parse(pretty.text), first.body);
  assert.match(pretty.text, /^\{\n {2}"commit": /);
  // ?selector= (empty) selects every cluster, yet its answer is not the one without a selector: it says its selector.
  const empty = await f.call("GET", "/api/v1/fleet/overrides?selector=", { token: f.tokens.viewer });
  assert.equal(empty.status, 200);
  assert.equal(empty.body.selector, "");
  assert.equal(first.body.selector, undefined);
  const selected = await f.call("GET", `/api/v1/fleet/overrides?selector=${encodeURIComponent("!ring")}&names=edge-berlin`, { token: f.tokens.viewer });
  assert.equal(selected.status, 200);
  assert.deepEqual(
    selected.body.overrides[0].overrides.map((o: any) => o.cluster),
    ["edge-berlin", "edge-berlin"],
  );
  assert.notEqual(selected.headers.get("etag"), etag);
  const windows = await f.call("GET", "/api/v1/fleet/windows", { token: f.tokens.viewer });
  assert.equal(windows.status, 200);
  assert.equal(
    (await f.call("GET", "/api/v1/fleet/windows", { token: f.tokens.viewer, headers: { "if-none-match": windows.headers.get("etag") ?? "" } })).status,
    304,
  );
  // Two hours on, the override has ended: the same commit, another answer.
  now += 2 * 3_600_000;
  const later = await f.call("GET", "/api/v1/fleet/overrides", { token: f.tokens.viewer, headers: { "if-none-match": etag ?? "" } });
  assert.equal(later.status, 200);
  assert.deepEqual(
    later.body.overrides.map((o: any) => [o.name, o.stage]),
    [["all-stop", "expired"]],
  );
  assert.notEqual(later.headers.get("etag"), etag);
});
