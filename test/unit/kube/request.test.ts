// The controller's REST client on node:http: the server's URL as a kubeconfig may give it (an IPv6 address, a proxy's path prefix), bodies and answers byte for byte.
// Against a local HTTP server standing in for an API server; the same client against the real kube-apiserver is tested in test/integration/kube/connection.test.ts.

import assert from "node:assert/strict";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { gzipSync } from "node:zlib";
import { ApiException, KubeConfig } from "@kubernetes/client-node";
import { Rest } from "../../../src/kube/transport.ts";
import { startTunnellingProxy } from "../../support/proxy.ts";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A server on `host` that records each request and answers with `answer`. */
async function serve(host: string, answer: (seen: Seen) => { code: number; body: Buffer | string; headers?: Record<string, string> }) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const s = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      seen.push(s);
      const a = answer(s);
      res.writeHead(a.code, { "content-type": "application/json", ...a.headers }).end(a.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return { seen, port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function restFor(server: string): Rest {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server, skipTLSVerify: true }],
    users: [{ name: "u", token: "the-token" }],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x",
  });
  return new Rest(kc, { attempts: 1 });
}

test("a server at an IPv6 address behind a path prefix: the request reaches it under the prefix, with the token, the query and the body intact", async () => {
  const s = await serve("::1", () => ({ code: 200, body: JSON.stringify({ ok: "ümlaut ✓" }) }));
  const rest = restFor(`http://[::1]:${s.port}/k8s/clusters/c-1/`);
  try {
    const body = { metadata: { name: "w", annotations: { note: "ümlaut ✓ — multibyte" } } };
    const got = await rest.json<{ ok: string }>("PATCH", "/apis/fluxgate.io/v1/namespaces/ns/reconciliationwindows/w", {
      query: { fieldManager: "fluxgate", force: true, labelSelector: "a in (x, y)" },
      body,
      contentType: "application/apply-patch+yaml",
    });
    assert.equal(got.ok, "ümlaut ✓");
    assert.equal(s.seen.length, 1);
    const [req] = s.seen as [Seen];
    assert.equal(req.method, "PATCH");
    const url = new URL(req.url, "http://x");
    assert.equal(url.pathname, "/k8s/clusters/c-1/apis/fluxgate.io/v1/namespaces/ns/reconciliationwindows/w");
    assert.deepEqual(Object.fromEntries(url.searchParams), { fieldManager: "fluxgate", force: "true", labelSelector: "a in (x, y)" });
    assert.equal(req.headers.authorization, "Bearer the-token");
    assert.equal(req.headers["content-type"], "application/apply-patch+yaml");
    assert.deepEqual(JSON.parse(req.body), body, "the body arrived whole (Content-Length counts bytes, not characters)");
  } finally {
    rest.close();
    await s.close();
  }
});

test("a gzipped answer is read whole; an error's Status comes back as ApiException with its code and body", async () => {
  const items = Array.from({ length: 2_000 }, (_, i) => ({ metadata: { name: `item-${i}` } }));
  const s = await serve("127.0.0.1", (seen) =>
    seen.url.startsWith("/list")
      ? { code: 200, body: gzipSync(JSON.stringify({ items })), headers: { "content-encoding": "gzip" } }
      : { code: 404, body: JSON.stringify({ kind: "Status", reason: "NotFound", message: 'windows "w" not found', details: { name: "w" } }) },
  );
  const rest = restFor(`http://127.0.0.1:${s.port}`);
  try {
    const list = await rest.json<{ items: unknown[] }>("GET", "/list");
    assert.deepEqual(list.items, items);
    assert.equal(s.seen[0]?.headers["accept-encoding"], "gzip", "asks for compressed answers, as client-go does");
    assert.equal(s.seen[0]?.headers["user-agent"], "fluxgate", "names itself in the API server's audit log");
    await assert.rejects(rest.json("GET", "/missing"), (e: unknown) => {
      assert.ok(e instanceof ApiException, String(e));
      assert.equal(e.code, 404);
      assert.deepEqual((e.body as { reason: string }).reason, "NotFound");
      return true;
    });
  } finally {
    rest.close();
    await s.close();
  }
});

test("an empty answer that says gzip is empty, not an error; a refused connection names the request and keeps its code", async () => {
  const s = await serve("127.0.0.1", () => ({ code: 200, body: "", headers: { "content-encoding": "GZIP" } }));
  const rest = restFor(`http://127.0.0.1:${s.port}/prefix`);
  try {
    assert.equal(await rest.json("DELETE", "/gone"), undefined);
  } finally {
    rest.close();
    await s.close();
  }
  // The server is closed now: its port refuses.
  const refused = restFor(`http://127.0.0.1:${s.port}/prefix`);
  try {
    await assert.rejects(refused.json("GET", "/api", { query: { limit: 1 } }), (e: unknown) => {
      assert.ok(e instanceof Error);
      assert.equal(e.message, `GET http://127.0.0.1:${s.port}/prefix/api: connect ECONNREFUSED 127.0.0.1:${s.port}`);
      assert.equal((e as { code?: unknown }).code, "ECONNREFUSED");
      return true;
    });
  } finally {
    refused.close();
  }
});

test("a kubeconfig's proxy-url: the request is tunnelled through the proxy (CONNECT) to the API server's address", async () => {
  const api = await serve("127.0.0.1", () => ({ code: 200, body: JSON.stringify({ via: "proxy" }) }));
  // A tunnelling proxy: it records what it was asked to reach and sends it to the local server.
  const proxy = await startTunnellingProxy({ host: "127.0.0.1", port: api.port });
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server: "http://api.cluster.internal:6443", skipTLSVerify: true, proxyUrl: proxy.url }],
    users: [{ name: "u", token: "the-token" }],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x",
  });
  const rest = new Rest(kc, { attempts: 1 });
  try {
    assert.deepEqual(await rest.json("GET", "/api/v1/namespaces/ns"), { via: "proxy" });
    assert.deepEqual(proxy.asked, ["api.cluster.internal:6443"], "the proxy was asked for the API server's address");
    assert.equal(api.seen[0]?.url, "/api/v1/namespaces/ns");
    assert.equal(api.seen[0]?.headers.authorization, "Bearer the-token");
  } finally {
    rest.close();
    await proxy.close();
    await api.close();
  }
});
