// The connection layer against a real kube-apiserver behind a fault-injecting proxy: retries with backoff on 429 and 5xx, a time bound on each attempt, the
// metrics hook.

import assert from "node:assert/strict";
import { test } from "node:test";
import { KubeClient } from "../../../src/kube/client.ts";
import { Connection, RequestTimeoutError, type ConnectionOptions, type RequestRecord } from "../../../src/kube/connection.ts";
import { statusCodeOf } from "../../../src/kube/errors.ts";
import { startFaultProxy, type FaultProxy } from "../../harness/fault-proxy.ts";
import { WINDOWS } from "../../../src/kube/resources.ts";
import { Rest } from "../../../src/kube/transport.ts";
import { freshNamespace, installFluxgate, sharedControlPlane } from "../../harness/index.ts";

const plane = sharedControlPlane();

/** A connection through a new fault proxy, with every attempt recorded. */
async function throughProxy(
  options: ConnectionOptions = {},
): Promise<{ proxy: FaultProxy; connection: Connection; records: RequestRecord[]; namespace: string }> {
  const cp = plane();
  const namespace = await freshNamespace(cp);
  const proxy = await startFaultProxy(cp);
  const records: RequestRecord[] = [];
  const connection = new Connection(proxy.kubeConfigFor(cp.kubeConfig), { ...options, onRequest: (r) => records.push(r) });
  return { proxy, connection, records, namespace };
}

function seen(proxy: FaultProxy, method: string, path: string): number[] {
  return proxy.requests.filter((r) => r.method === method && r.path === path).map((r) => r.code);
}

test("a read answered 503 is tried again with backoff and succeeds once the API server answers", async () => {
  const { proxy, connection, records, namespace } = await throughProxy();
  try {
    proxy.inject({ code: 503, ms: 500, methods: ["GET"] });
    const started = Date.now();
    const got = await connection.core.readNamespace({ name: namespace });
    assert.equal(got.metadata?.name, namespace);
    const path = `/api/v1/namespaces/${namespace}`;
    const codes = seen(proxy, "GET", path);
    assert.ok(codes.length >= 2, `tried again: ${codes.join(", ")}`);
    assert.equal(codes.at(-1), 200);
    assert.ok(
      codes.slice(0, -1).every((c) => c === 503),
      `503s, then 200: ${codes.join(", ")}`,
    );
    // Backoff doubles from 200 ms: the 500 ms fault is outlasted within three waits, not hammered.
    assert.ok(codes.length <= 4, `at most 4 attempts for 500 ms of 503s: ${codes.join(", ")}`);
    assert.ok(Date.now() - started >= 500, "the answer came after the fault ended");
    const mine = records.filter((r) => r.path === path);
    assert.deepEqual(
      mine.map((r) => [r.code, r.retried]),
      codes.map((c, i) => [c, i < codes.length - 1]),
      "the metrics hook saw each attempt, the retried ones marked",
    );
    assert.deepEqual(
      mine.map((r) => r.attempt),
      codes.map((_c, i) => i + 1),
    );
  } finally {
    connection.close();
    await proxy.close();
  }
});

test("a create answered 429 is tried again; a create answered 500 is not (it may have been done)", async () => {
  const { proxy, connection, namespace } = await throughProxy();
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  try {
    proxy.inject({ code: 429, ms: 300, methods: ["POST"] });
    await connection.core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "after-429" } } });
    const codes = seen(proxy, "POST", path);
    assert.ok(codes.length >= 2 && codes[0] === 429 && codes.at(-1) === 201, `429s, then 201: ${codes.join(", ")}`);

    proxy.inject({ code: 500, ms: 5_000, methods: ["POST"] });
    const before = seen(proxy, "POST", path).length;
    await assert.rejects(
      connection.core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "during-500" } } }),
      (e: unknown) => statusCodeOf(e) === 500,
    );
    assert.equal(seen(proxy, "POST", path).length - before, 1, "one attempt only");
  } finally {
    connection.close();
    await proxy.close();
  }
});

test("retries end after the configured attempts: the last answer is the error", async () => {
  const { proxy, connection, namespace } = await throughProxy({ attempts: 3, backoffMs: 50 });
  try {
    proxy.inject({ code: 503, ms: 10_000, methods: ["GET"] });
    await assert.rejects(connection.core.readNamespace({ name: namespace }), (e: unknown) => statusCodeOf(e) === 503);
    assert.deepEqual(seen(proxy, "GET", `/api/v1/namespaces/${namespace}`), [503, 503, 503]);
  } finally {
    connection.close();
    await proxy.close();
  }
});

test("an API server that does not answer within the time bound fails the request with a timeout, not a hang", async () => {
  const { proxy, connection, records, namespace } = await throughProxy({ timeoutMs: 400 });
  try {
    proxy.inject({ delayMs: 3_000, ms: 10_000, methods: ["GET"] });
    const started = Date.now();
    await assert.rejects(connection.core.readNamespace({ name: namespace }), (e: unknown) => {
      assert.ok(e instanceof RequestTimeoutError, String(e));
      assert.match(e.message, /no answer from the API server within 0\.4s/);
      return true;
    });
    const took = Date.now() - started;
    assert.ok(took >= 400 && took < 2_500, `failed after ${took} ms`);
    const mine = records.filter((r) => r.path === `/api/v1/namespaces/${namespace}`);
    assert.deepEqual(
      mine.map((r) => r.code),
      [undefined],
      "the hook saw one attempt without an answer",
    );
    // Once the API server answers in time again, the same connection works.
    proxy.clear();
    assert.equal((await connection.core.readNamespace({ name: namespace })).metadata?.name, namespace);
  } finally {
    connection.close();
    await proxy.close();
  }
});

test("the controller's client (server errors left to its work queue): a 429 is tried again and seen once by the verb's observer, a 500 is not", async () => {
  const cp = plane();
  await installFluxgate(cp);
  const namespace = await freshNamespace(cp);
  const proxy = await startFaultProxy(cp);
  const records: RequestRecord[] = [];
  const observed: Array<[string, number | undefined]> = [];
  const client = new KubeClient(proxy.kubeConfigFor(cp.kubeConfig), (verb, _resource, code) => observed.push([verb, code]), {
    retryServerErrors: false,
    onRequest: (r) => records.push(r),
  });
  try {
    proxy.inject({ code: 429, ms: 300, methods: ["GET"] });
    assert.equal(await client.get(WINDOWS, namespace, "absent"), undefined);
    assert.ok(records.filter((r) => r.retried && r.code === 429).length >= 1, "tried again after the 429");
    assert.deepEqual(observed, [["get", 404]], "the verb's observer sees the request once, with its final answer");
    proxy.inject({ code: 500, ms: 5_000, methods: ["GET"] });
    const before = records.length;
    await assert.rejects(client.get(WINDOWS, namespace, "absent"), (e: unknown) => statusCodeOf(e) === 500);
    assert.equal(records.length - before, 1, "one attempt: the caller's backoff decides");
  } finally {
    client.close();
    await proxy.close();
  }
});

test("the controller's client reads an answer the API server compressed (over 128 KiB) whole, and sends a body of several KiB whole", async () => {
  const cp = plane();
  const namespace = await freshNamespace(cp);
  const proxy = await startFaultProxy(cp);
  const rest = new Rest(proxy.kubeConfigFor(cp.kubeConfig));
  try {
    // Not repetitive, so that it stays large once compressed too: many chunks on the wire.
    const data = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`k${i}`, Array.from({ length: 1200 }, (_, j) => ((i * 7919 + j * 104729) % 1_000_003).toString(36)).join("-")]),
    );
    const size = Object.values(data).reduce((n, v) => n + v.length, 0);
    assert.ok(size > 200_000, `the ConfigMap holds ${size} bytes`);
    await rest.json("POST", `/api/v1/namespaces/${namespace}/configmaps`, { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "large" }, data } });
    const got = await rest.json<{ data: Record<string, string> }>("GET", `/api/v1/namespaces/${namespace}/configmaps/large`);
    assert.deepEqual(got.data, data);
    const read = proxy.requests.filter((r) => r.method === "GET" && r.path === `/api/v1/namespaces/${namespace}/configmaps/large`);
    assert.deepEqual(
      read.map((r) => [r.code, r.encoding]),
      [[200, "gzip"]],
      "the API server compressed the answer",
    );
    // A small answer is not compressed, and a query is sent as given.
    const list = await rest.json<{ items: unknown[] }>("GET", `/api/v1/namespaces/${namespace}/configmaps`, {
      query: { limit: 1, labelSelector: "app in (a, b)" },
    });
    assert.equal(list.items.length, 0, "the label selector (spaces, parentheses) reached the API server intact");
  } finally {
    rest.close();
    await proxy.close();
  }
});

test("the controller's client: no answer within the time bound fails with a timeout; the caller's signal ends a request at once", async () => {
  const cp = plane();
  const namespace = await freshNamespace(cp);
  const proxy = await startFaultProxy(cp);
  const records: RequestRecord[] = [];
  const rest = new Rest(proxy.kubeConfigFor(cp.kubeConfig), { timeoutMs: 400, onRequest: (r) => records.push(r) });
  try {
    proxy.inject({ delayMs: 3_000, ms: 10_000, methods: ["GET"] });
    const path = `/api/v1/namespaces/${namespace}`;
    let started = Date.now();
    await assert.rejects(rest.json("GET", path), (e: unknown) => {
      assert.ok(e instanceof RequestTimeoutError, String(e));
      assert.match(e.message, new RegExp(`GET ${path}: no answer from the API server within 0\\.4s`));
      return true;
    });
    let took = Date.now() - started;
    assert.ok(took >= 400 && took < 2_500, `failed after ${took} ms`);
    assert.deepEqual(
      records.map((r) => [r.path, r.code]),
      [[path, undefined]],
      "one attempt without an answer",
    );
    const stop = new AbortController();
    started = Date.now();
    setTimeout(() => stop.abort(), 100);
    await assert.rejects(rest.json("GET", path, { signal: stop.signal }), (e: unknown) => e instanceof Error && e.name === "AbortError");
    took = Date.now() - started;
    assert.ok(took < 390, `ended ${took} ms after the start, by the signal, not by the time bound`);
    proxy.clear();
    assert.equal((await rest.json<{ metadata: { name: string } }>("GET", path)).metadata.name, namespace, "the same client works once the server answers");
  } finally {
    rest.close();
    await proxy.close();
  }
});
