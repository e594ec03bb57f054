// In-process route tests of the read side of the API: clusters, windows, timelines, health, metrics, OpenAPI and the dashboard.
/* eslint-disable @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- answers are untyped JSON, checked field by field */

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { DEFAULT_TIME_ZONE } from "../../../src/api/window.ts";
import { expandClusterTimeline } from "../../../src/server/views/timeline-format.ts";
import { fixture, type Fixture } from "../../support/server.ts";

let f: Fixture;
before(async () => {
  f = await fixture();
});
after(async () => {
  await f.cleanup();
});

test("GET /clusters lists the clusters of fluxgate.yaml with their paths, zones and labels", async () => {
  const r = await f.call("GET", "/api/v1/clusters", { token: f.tokens.viewer });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, {
    clusters: [
      { name: "edge-berlin", path: "clusters/edge-berlin", timeZone: "Europe/Berlin", labels: {} },
      { name: "edge-newyork", path: "clusters/edge-newyork", timeZone: "America/New_York", labels: {} },
      { name: "edge-tokyo", path: "clusters/edge-tokyo", timeZone: "Asia/Tokyo", labels: {} },
    ],
    total: 3,
    continue: null,
  });
});

test("GET /clusters/{cluster}/windows gives each window's spec, state now and next transition", async () => {
  const r = await f.call("GET", "/api/v1/clusters/edge-berlin/windows", { token: f.tokens.viewer });
  assert.equal(r.status, 200);
  assert.deepEqual(
    r.body.windows.map((w: any) => w.name),
    ["apps-rw", "nightly"],
  );
  const rw = r.body.windows[0];
  // Monday 11:00 in Berlin: open since 08:00 (07:00Z), closes Thursday 17:00 (16:00Z).
  assert.equal(rw.state, "open");
  assert.equal(rw.since, "2026-11-23T07:00:00Z");
  assert.deepEqual(rw.nextTransition, { at: "2026-11-26T16:00:00Z", state: "closed", overridden: false });
  assert.equal(rw.nextClose, "2026-11-26T16:00:00Z");
  assert.equal(rw.nextOpen, "2026-11-30T07:00:00Z");
  assert.equal(rw.reason, 'Open by schedule "0 8 * * MON → 0 17 * * THU" until Thu 2026-11-26 17:00 CET', "the sentence of the window's status.reason");
  assert.equal(rw.spec.timeZone, "Europe/Berlin");
  assert.equal(rw.valid, true);
  assert.match(rw.etag, /^[0-9a-f]{40}$/);
  const tokyo = await f.call("GET", "/api/v1/clusters/edge-tokyo/windows", { token: f.tokens.viewer });
  assert.equal(tokyo.body.windows[0].state, "closed");
  assert.equal(tokyo.body.windows[0].nextOpen, "2026-11-23T17:00:00Z", "Tuesday 02:00 in Tokyo");
});

test("GET /clusters/{cluster}/windows/{name} gives one window with an ETag; unknown names are 404", async () => {
  const r = await f.call("GET", "/api/v1/clusters/edge-berlin/windows/apps-rw", { token: f.tokens.viewer });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("etag"), `"${r.body.etag}"`);
  assert.equal(r.body.manifest.kind, "ReconciliationWindow");
  assert.equal(r.body.commit, await f.repository.head());

  const missing = await f.call("GET", "/api/v1/clusters/edge-berlin/windows/nope", { token: f.tokens.viewer });
  assert.equal(missing.status, 404);
  assert.match(missing.body.error.message, /has no window "nope" \(windows: apps-rw, nightly\)/);
  const cluster = await f.call("GET", "/api/v1/clusters/mars/windows", { token: f.tokens.viewer });
  assert.equal(cluster.status, 404);
  assert.match(cluster.body.error.message, /cluster "mars" is not in fluxgate.yaml \(clusters: edge-berlin, edge-newyork, edge-tokyo\)/);
});

test("window names that could leave the cluster's directory are refused", async () => {
  for (const name of ["..%2F..%2Ffluxgate", "%2E%2E", "Apps", "a_b", "-x"]) {
    const r = await f.call("GET", `/api/v1/clusters/edge-berlin/windows/${name}`, { token: f.tokens.viewer });
    assert.ok(r.status === 400 || r.status === 404, `${name}: ${r.status}`);
    if (r.status === 400) assert.match(r.body.error.message, /is not a valid Kubernetes name/);
  }
  const traversal = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/..%2F..%2Fevil", { body: { spec: {}, reason: "x" } });
  assert.equal(traversal.status, 400);
});

test("GET /clusters/{cluster}/timeline gives allow, freeze and effective open intervals per window", async () => {
  const r = await f.call("GET", "/api/v1/clusters/edge-berlin/timeline?from=2026-11-23T00:00:00Z&to=2026-11-30T00:00:00Z", { token: f.tokens.viewer });
  assert.equal(r.status, 200);
  assert.equal(r.body.timeZone, "Europe/Berlin");
  const rw = r.body.windows.find((w: any) => w.name === "apps-rw");
  assert.deepEqual(rw.allow, [{ start: "2026-11-23T07:00:00Z", end: "2026-11-26T16:00:00Z" }]);
  assert.deepEqual(rw.freezes, [{ start: "2026-11-26T23:00:00Z", end: "2026-11-27T23:00:00Z", label: "0 0 * * FRI → +24h", reason: "No deploys on Fridays" }]);
  assert.deepEqual(rw.open, rw.allow);
  assert.deepEqual(
    rw.segments.map((s: any) => s.state),
    ["closed", "open", "closed", "frozen", "closed"],
  );
});

test("GET /timeline covers the fleet; a bad or too long range is 400", async () => {
  const r = await f.call("GET", "/api/v1/timeline", { token: f.tokens.viewer });
  assert.equal(r.status, 200);
  assert.equal(r.body.from, "2026-11-23T10:00:00Z");
  assert.equal(r.body.to, "2026-11-30T10:00:00Z");
  assert.deepEqual(
    r.body.clusters.map((c: any) => c.cluster),
    ["edge-berlin", "edge-newyork", "edge-tokyo"],
  );
  const holiday = await f.call("GET", "/api/v1/timeline?from=2026-12-19T00:00:00Z&to=2026-12-26T00:00:00Z", { token: f.tokens.viewer });
  for (const c of holiday.body.clusters) {
    for (const w of expandClusterTimeline(c, Date.parse(holiday.body.from), Date.parse(holiday.body.to)).windows)
      assert.ok(
        w.freezes.some((z) => z.reason === "Holiday freeze"),
        `${c.cluster}/${w.name}`,
      );
  }

  for (const [query, message] of [
    ["from=yesterday", /from=yesterday: give an RFC 3339 time/],
    ["from=2026-11-23T00:00:00Z&to=2026-11-22T00:00:00Z", /must be after from/],
    ["from=2026-01-01T00:00:00Z&to=2026-12-01T00:00:00Z", /longer than 93 days/],
  ] as const) {
    const bad = await f.call("GET", `/api/v1/timeline?${query}`, { token: f.tokens.viewer });
    assert.equal(bad.status, 400, query);
    assert.match(bad.body.error.message, message);
  }
});

test("?names= picks clusters by name for the fleet reads: in fluxgate.yaml's order, on one page; an unknown name is 400", async () => {
  const status = await f.call("GET", "/api/v1/fleet/clusters?names=edge-tokyo,edge-berlin", { token: f.tokens.viewer });
  assert.equal(status.status, 200);
  assert.deepEqual(
    status.body.clusters.map((k: any) => k.name),
    ["edge-berlin", "edge-tokyo"],
  );
  assert.equal(status.body.total, 2);
  assert.equal(status.body.continue, null);
  assert.ok(status.body.clusters[0].windows.length > 0, "each with its windows' state");
  const timeline = await f.call("GET", "/api/v1/timeline?names=edge-newyork&from=2026-11-23T00:00:00Z&to=2026-11-24T00:00:00Z", { token: f.tokens.viewer });
  assert.deepEqual(
    timeline.body.clusters.map((k: any) => k.cluster),
    ["edge-newyork"],
  );
  const list = await f.call("GET", "/api/v1/clusters?names=edge-tokyo,edge-berlin&limit=1", { token: f.tokens.viewer });
  assert.deepEqual(
    list.body.clusters.map((k: any) => k.name),
    ["edge-berlin"],
    "limit still pages",
  );
  assert.equal(typeof list.body.continue, "string");
  for (const [query, message] of [
    ["names=edge-berlin,edge-paris", /^names: "edge-paris" is not in fluxgate.yaml$/],
    ["names=", /^names: give 1 to 500 cluster names/],
    [`names=${Array.from({ length: 501 }, (_, i) => `c${i}`).join(",")}`, /^names: give 1 to 500 cluster names/],
  ] as const) {
    const bad = await f.call("GET", `/api/v1/fleet/clusters?${query}`, { token: f.tokens.viewer });
    assert.equal(bad.status, 400, query.slice(0, 40));
    assert.match(bad.body.error.message, message);
    assert.equal(bad.body.error.problems[0].path, "names");
  }
});

test("GET /me and /repository say who calls and what is served", async () => {
  const me = await f.call("GET", "/api/v1/me", { token: f.tokens.breakglass });
  assert.deepEqual(me.body, { name: "bree oncall", role: "breakglass", anonymous: false, permissions: ["read", "write-overrides", "deliver-directly"] });
  const repo = await f.call("GET", "/api/v1/repository", { token: f.tokens.viewer });
  assert.equal(repo.body.commit, await f.repository.head());
  assert.equal(repo.body.branch, "main");
  assert.equal(repo.body.remote, false);
  assert.deepEqual(repo.body.types, [
    { name: "rt", window: false },
    { name: "rw", window: true },
  ]);
});

test("?pretty indents JSON answers", async () => {
  const r = await f.call("GET", "/api/v1/me?pretty", { token: f.tokens.viewer });
  assert.match(r.text, /^\{\n {2}"name": "vera viewer",/);
});

test("/healthz and /readyz answer without a token; /metrics needs one that may read", async () => {
  const health = await f.app.request("/healthz");
  assert.equal(await health.text(), "ok\n");
  const ready = await f.app.request("/readyz");
  assert.equal(ready.status, 200);
  assert.equal((await ready.json()).ready, true);
  await f.call("GET", "/api/v1/clusters", { token: f.tokens.viewer });
  const anonymous = await f.app.request("/metrics");
  assert.equal(anonymous.status, 401, "the metrics name the clusters: no token, no metrics");
  assert.ok(!(await anonymous.text()).includes("edge-berlin"));
  const metrics = await (await f.app.request("/metrics", { headers: { authorization: `Bearer ${f.tokens.viewer}` } })).text();
  assert.match(metrics, /^fluxgate_serve_http_requests_total\{method="GET",route="\/api\/v1\/clusters",status="200"\} [1-9]/m);
  assert.match(metrics, /^fluxgate_serve_windows\{cluster="edge-berlin",state="open"\} 1$/m);
  assert.match(metrics, /^fluxgate_serve_write_queue_length 0$/m);
  assert.match(metrics, /^# TYPE fluxgate_serve_http_request_duration_seconds histogram$/m);
  // The process and Node.js series carry the service's prefix once.
  assert.match(metrics, /^fluxgate_serve_process_cpu_user_seconds_total \d/m);
  assert.match(metrics, /^fluxgate_serve_process_resident_memory_bytes \d/m);
  assert.match(metrics, /^fluxgate_serve_nodejs_heap_size_used_bytes \d/m);
  assert.doesNotMatch(metrics, /process_process_|process_nodejs_|nodejs_active_handles_total/);
});

test("/openapi.json describes every route with schemas from the window schema", async () => {
  const r = await f.app.request("/openapi.json");
  const doc = await r.json();
  assert.equal(doc.openapi, "3.1.0");
  for (const path of [
    "/api/v1/clusters",
    "/api/v1/clusters/{cluster}/windows/{name}",
    "/api/v1/clusters/{cluster}/overrides",
    "/api/v1/timeline",
    "/api/v1/clusters/{cluster}/calendar.ics",
    "/api/v1/clusters/{cluster}/status",
    "/api/v1/preview",
  ]) {
    assert.ok(doc.paths[path], path);
  }
  assert.deepEqual(Object.keys(doc.paths["/api/v1/clusters/{cluster}/windows/{name}"]).sort(), ["delete", "get", "patch", "put"]);
  const spec = doc.components.schemas.ReconciliationWindowSpec;
  assert.deepEqual(spec.required, ["targets"]);
  assert.ok(spec.properties.schedules.items.properties.start);
  assert.equal(doc.components.schemas.PutWindowRequest.properties.spec.$ref, "#/components/schemas/ReconciliationWindowSpec");
});

test("the dashboard, the API docs and their modules are served from this process", async () => {
  for (const [path, entry] of [
    ["/", "main"],
    ["/docs", "docs"],
  ] as const) {
    const page = await f.app.request(path);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, new RegExp(`<script type="module" src="/assets/app/${entry}.js">`));
    assert.doesNotMatch(html, /https?:\/\//, "nothing is loaded from elsewhere");
    assert.match(page.headers.get("content-security-policy") ?? "", /script-src 'self' 'sha256-/);
  }
  for (const module of ["main", "lazy", "rows", "api", "timeline", "editor", "draft", "recurrence", "cluster", "time", "docs", "kinds", "defaults"]) {
    const js = await f.app.request(`/assets/app/${module}.js`);
    assert.equal(js.status, 200, module);
    const code = await js.text();
    assert.doesNotMatch(code, /from "\.[^"]*\.ts"/, `${module}: relative imports point at .js`);
    assert.doesNotMatch(code, /import\("\.[^"]*\.ts"\)/, `${module}: modules loaded later point at .js`);
    assert.doesNotMatch(code, /: (string|number|VNode)\b[,)=]/, `${module}: no type annotations left`);
  }
  // The other pages are loaded as they are opened (client/lazy.ts), at their .js.
  assert.match(await (await f.app.request("/assets/app/main.js")).text(), /import\("\.\/editor\.js"\)/);
  // The fleet timeline's expansion, loaded by the browser from src/ as the service documents it: no import left to resolve.
  const format = await f.app.request("/assets/src/server/views/timeline-format.js");
  assert.equal(format.status, 200);
  const formatCode = await format.text();
  assert.match(formatCode, /export function expandClusterTimeline\(/);
  assert.doesNotMatch(formatCode, /^import /m);
  assert.match(await (await f.app.request("/assets/app/timeline-format.js")).text(), /from "\/assets\/src\/server\/views\/timeline-format\.js"/);
  // The editor says a recurrence rule in words with the engine's own parser: the modules it imports, and theirs, are served.
  for (const module of ["schedule/rrule-words", "schedule/rrule", "schedule/calendar", "schedule/errors", "errors"]) {
    const js = await f.app.request(`/assets/src/${module}.js`);
    assert.equal(js.status, 200, module);
    for (const [, imported] of (await js.text()).matchAll(/from "(\.[^"]+)"/g)) {
      const url = new URL(imported as string, `http://x/assets/src/${module}.js`).pathname;
      assert.equal((await f.app.request(url)).status, 200, `${module} imports ${url}`);
    }
  }
  // The values the browser takes from src/api, served as they are there.
  assert.equal(await (await f.app.request("/assets/app/defaults.js")).text(), `export const DEFAULT_TIME_ZONE = ${JSON.stringify(DEFAULT_TIME_ZONE)};\n`);
  for (const vendor of ["preact.mjs", "preact-hooks.mjs", "htm.mjs", "htm-preact.mjs"]) {
    const js = await f.app.request(`/assets/vendor/${vendor}`);
    assert.equal(js.status, 200, vendor);
  }
  assert.equal((await f.app.request("/assets/app/styles.css")).headers.get("content-type"), "text/css; charset=utf-8");
  assert.equal((await f.app.request("/assets/app/..%2Fapp.js")).status, 404);
  assert.equal((await f.app.request("/assets/vendor/zod.mjs")).status, 404);
  const unknown = await f.app.request("/nowhere");
  assert.equal(unknown.status, 404);
  assert.match((await unknown.json()).error.message, /no such resource: GET \/nowhere/);
});
