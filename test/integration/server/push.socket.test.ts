// The event receiver over a real socket: posts served straight from Node's request answer exactly as the app's route does, and share its rate limit and
// metrics.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { nodeEventsOf } from "../../../src/server/app.ts";
import { addClusterKey, signatureOf } from "../../../src/server/status/keys.ts";
import { serveEvent } from "../../../src/server/http/node-receiver.ts";
import { startService, type RunningService } from "../../../src/server/server.ts";
import { anonymousServiceOptions, NOW, tempDir, writeFleet } from "../../support/server.ts";

let service: RunningService;
let limited: RunningService;
let off: RunningService;
let key: string;
let cleanup: () => Promise<void>;

before(async () => {
  const temp = await tempDir("push-socket");
  cleanup = temp.cleanup;
  const repo = join(temp.dir, "fleet");
  await mkdir(repo);
  await writeFleet(repo);
  const keysFile = join(temp.dir, "cluster-keys.yaml");
  key = await addClusterKey(keysFile, { cluster: "edge-berlin", now: NOW });
  const start = (push: Parameters<typeof startService>[0]["push"]): Promise<RunningService> => startService(anonymousServiceOptions(repo, { push }));
  service = await start({ keysFile, store: join(temp.dir, "status.db"), staleAfterMs: 15 * 60_000 });
  limited = await start({ keysFile, store: join(temp.dir, "limited.db"), staleAfterMs: 15 * 60_000, rate: { burst: 4, perSecond: 0.01 } });
  off = await start(null);
});

after(async () => {
  await service?.close();
  await limited?.close();
  await off?.close();
  await cleanup?.();
});

function fluxEvent(fields: { name?: string; at?: string; reportingController?: string; window?: string } = {}): string {
  return JSON.stringify({
    involvedObject: { kind: "Kustomization", namespace: "flux-system", name: fields.name ?? "apps" },
    severity: "info",
    timestamp: fields.at ?? "2026-11-23T09:59:00Z",
    message: "Suspended by window apps-rw",
    reason: "WindowClosed",
    metadata: { window: fields.window ?? "apps-rw", state: "closed" },
    reportingController: fields.reportingController ?? "fluxgate",
  });
}

interface Answer {
  status: number;
  type: string | null;
  retryAfter: string | null;
  body: unknown;
}

/**
 * Posts `body` to `cluster` on `on`: `path: "node"` as notification-controller does (served from Node's
 * request), `"app"` with a query, which the app's route serves. A stream body is sent chunked, without
 * a Content-Length.
 */
async function post(
  on: RunningService,
  path: "node" | "app",
  cluster: string,
  body: string,
  options: { signWith?: string | null; chunked?: boolean } = {},
): Promise<Answer> {
  const signWith = options.signWith === undefined ? key : options.signWith;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (signWith !== null) headers["x-signature"] = signatureOf(signWith, body);
  const bytes = new TextEncoder().encode(body);
  const sent: RequestInit & { duplex?: "half" } =
    options.chunked === true
      ? {
          method: "POST",
          headers,
          duplex: "half",
          body: new ReadableStream({
            start: (c) => {
              for (let i = 0; i < bytes.length; i += 8192) c.enqueue(bytes.subarray(i, i + 8192));
              c.close();
            },
          }),
        }
      : { method: "POST", headers, body };
  const r = await fetch(`${on.url}/api/v1/clusters/${cluster}/events${path === "app" ? "?pretty" : ""}`, sent);
  return { status: r.status, type: r.headers.get("content-type"), retryAfter: r.headers.get("retry-after"), body: JSON.parse(await r.text()) as unknown };
}

async function metric(on: RunningService, line: RegExp): Promise<number> {
  const text = await (await fetch(`${on.url}/metrics`)).text();
  return Number(line.exec(text)?.[1] ?? 0);
}

test("each answer of the receiver is the same served from Node's request as from the app's route: stored, older, heard, 401, 404, 400, 413", async () => {
  const big = fluxEvent({ window: "x".repeat(70_000) });
  const cases: Array<{ what: string; cluster: string; body: string; signWith?: string | null; chunked?: boolean; status: number }> = [
    { what: "a signed event", cluster: "edge-berlin", body: fluxEvent({ name: "apps", at: "2026-11-23T09:59:00Z" }), status: 202 },
    { what: "an older event of the same target", cluster: "edge-berlin", body: fluxEvent({ name: "apps", at: "2026-11-23T09:00:00Z" }), status: 202 },
    { what: "an event of Flux's own controllers", cluster: "edge-berlin", body: fluxEvent({ reportingController: "kustomize-controller" }), status: 202 },
    { what: "a wrong signature", cluster: "edge-berlin", body: fluxEvent({ name: "wrong" }), signWith: "fgk_not-the-key", status: 401 },
    { what: "no signature", cluster: "edge-berlin", body: fluxEvent({ name: "unsigned" }), signWith: null, status: 401 },
    { what: "a cluster without a key", cluster: "edge-tokyo", body: fluxEvent({ name: "tokyo" }), status: 401 },
    { what: "a cluster not in fluxgate.yaml", cluster: "edge-nowhere", body: fluxEvent(), status: 404 },
    { what: "a body that is not JSON", cluster: "edge-berlin", body: "{not json", status: 400 },
    { what: "JSON that is not a Flux event", cluster: "edge-berlin", body: JSON.stringify({ involvedObject: {} }), status: 400 },
    { what: "an event from the future", cluster: "edge-berlin", body: fluxEvent({ at: "2026-11-24T10:00:00Z" }), status: 400 },
    { what: "a body past the limit (Content-Length)", cluster: "edge-berlin", body: big, status: 413 },
    { what: "a body past the limit (chunked)", cluster: "edge-berlin", body: big, chunked: true, status: 413 },
    { what: "a signed event, chunked", cluster: "edge-berlin", body: fluxEvent({ name: "chunked" }), chunked: true, status: 202 },
  ];
  for (const c of cases) {
    const options = { ...(c.signWith === undefined ? {} : { signWith: c.signWith }), ...(c.chunked === undefined ? {} : { chunked: c.chunked }) };
    const node = await post(service, "node", c.cluster, c.body, options);
    const app = await post(service, "app", c.cluster, c.body, options);
    assert.equal(node.status, c.status, `${c.what}: ${JSON.stringify(node.body)}`);
    assert.deepEqual(node, app, `${c.what}: the same answer from Node's request and from the app`);
    assert.match(node.type ?? "", /^application\/json/, c.what);
  }
  assert.deepEqual((await post(service, "node", "edge-berlin", fluxEvent({ name: "apps", at: "2026-11-23T09:00:00Z" }))).body, {
    cluster: "edge-berlin",
    outcome: "older",
  });

  // What was stored: the newest event of apps, the chunked one; nothing of the refused posts.
  const status = (await (await fetch(`${service.url}/api/v1/clusters/edge-berlin/status`)).json()) as {
    pushed: { targets: Array<{ name: string; lastEventAt: string }> };
  };
  assert.deepEqual(
    status.pushed.targets.map((t) => [t.name, t.lastEventAt]),
    [
      ["apps", "2026-11-23T09:59:00.000Z"],
      ["chunked", "2026-11-23T09:59:00.000Z"],
    ],
  );
  const tokyo = (await (await fetch(`${service.url}/api/v1/clusters/edge-tokyo/status`)).json()) as { pushed: { lastHeard: string | null } };
  assert.equal(tokyo.pushed.lastHeard, null, "an unsigned cluster's post stored nothing");
});

test("posts served from Node's request are counted in the metrics as the app counts them, a refused signature once", async () => {
  const route = 'route="/api/v1/clusters/:cluster/events"';
  const accepted = new RegExp(`^fluxgate_serve_http_requests_total\\{method="POST",${route},status="202"\\} (\\d+)`, "m");
  const refused = /^fluxgate_serve_auth_failures_total\{status="401"\} (\d+)/m;
  const [accepted0, refused0] = [await metric(service, accepted), await metric(service, refused)];
  assert.equal((await post(service, "node", "edge-berlin", fluxEvent({ name: "counted" }))).status, 202);
  assert.equal((await post(service, "node", "edge-berlin", fluxEvent({ name: "refused" }), { signWith: null })).status, 401);
  assert.equal((await post(service, "app", "edge-berlin", fluxEvent({ name: "refused" }), { signWith: null })).status, 401);
  assert.equal(await metric(service, accepted), accepted0 + 1);
  assert.equal(await metric(service, refused), refused0 + 2, "each refused post counted once, whichever way it was served");
});

test("a cluster's rate is one budget whichever way its posts are served: the fifth of a burst of four is 429 with Retry-After", async () => {
  const answers: Answer[] = [];
  for (let i = 0; i < 4; i++) answers.push(await post(limited, i % 2 === 0 ? "node" : "app", "edge-berlin", fluxEvent({ name: `burst-${i}` })));
  assert.deepEqual(
    answers.map((a) => a.status),
    [202, 202, 202, 202],
  );
  for (const path of ["node", "app"] as const) {
    const refused = await post(limited, path, "edge-berlin", fluxEvent({ name: `over-${path}` }));
    assert.equal(refused.status, 429, path);
    assert.match(refused.retryAfter ?? "", /^\d+$/, path);
    assert.match(JSON.stringify(refused.body), /cluster edge-berlin sent too many events/, path);
  }
  // An unsigned post is refused before the rate is counted, served either way.
  assert.equal((await post(limited, "node", "edge-berlin", fluxEvent(), { signWith: null })).status, 401);
});

test("with the receiver off, a post is the app's 404 saying how to turn it on", async () => {
  const r = await post(off, "node", "edge-berlin", fluxEvent());
  assert.equal(r.status, 404);
  assert.match(JSON.stringify(r.body), /the event receiver is off/);
});

test("the plain post is served from Node's request without the app; with a query or an encoded name it is left to the app", async (t) => {
  const events = nodeEventsOf(service.app);
  assert.ok(events !== null, "the app has a receiver");
  // A server with the receiver's listener alone: what it leaves, it answers 599.
  const bare = createServer((req, res) => {
    if (serveEvent(events, req, res)) return;
    res.writeHead(599).end();
  });
  await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => bare.close(() => resolve())));
  const url = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/api/v1/clusters`;
  const body = fluxEvent({ name: "bare" });
  const headers = { "content-type": "application/json", "x-signature": signatureOf(key, body) };
  const served = await fetch(`${url}/edge-berlin/events`, { method: "POST", headers, body });
  assert.equal(served.status, 202, await served.text());
  for (const path of ["/edge-berlin/events?pretty", "/edge%2Dberlin/events", "/edge-berlin/events/"]) {
    const left = await fetch(`${url}${path}`, { method: "POST", headers, body });
    await left.body?.cancel();
    assert.equal(left.status, 599, path);
  }
  const get = await fetch(`${url}/edge-berlin/events`);
  await get.body?.cancel();
  assert.equal(get.status, 599, "only POST");
});
