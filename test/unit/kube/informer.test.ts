// Informer against a scripted API server: the first list whole, later ones in pages, bookmarks, a relist on 410 (event or answer), cuts, the transform, and stop.

import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { Informer } from "../../../src/kube/informer.ts";
import type { KubernetesObject } from "../../../src/kube/types.ts";
import { WINDOWS } from "../../../src/kube/resources.ts";

type Obj = KubernetesObject & { spec?: Record<string, unknown> };

/** A watch request as the server saw it, and its answer to script. */
interface WatchCall {
  query: URLSearchParams;
  res: ServerResponse;
  req: IncomingMessage;
}

/** An API server for one collection: lists answer `items` in pages of `limit`; each watch waits for the test to answer it. */
class FakeApi {
  items: Obj[] = [];
  version = "100";
  lists: URLSearchParams[] = [];
  watches: WatchCall[] = [];
  /** Answers the next watch with this code instead of waiting for the test. */
  refuseNextWatch: number | undefined;
  /** Answers every list with 404 while true, as an API server without the resource's CRD. */
  notServed = false;
  private waiting: ((w: WatchCall) => void)[] = [];
  private readonly server: Server;

  constructor() {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      if (url.searchParams.get("watch") === "true") {
        if (this.refuseNextWatch !== undefined) {
          const code = this.refuseNextWatch;
          this.refuseNextWatch = undefined;
          res
            .writeHead(code, { "content-type": "application/json" })
            .end(JSON.stringify({ kind: "Status", code, reason: "Expired", message: "too old resource version" }));
          this.watches.push({ query: url.searchParams, res, req });
          return;
        }
        res.writeHead(200, { "content-type": "application/json" });
        res.flushHeaders();
        const call = { query: url.searchParams, res, req };
        this.watches.push(call);
        this.waiting.shift()?.(call);
        return;
      }
      this.lists.push(url.searchParams);
      if (this.notServed) {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ kind: "Status", code: 404, reason: "NotFound" }));
        return;
      }
      const limit = Number(url.searchParams.get("limit") ?? "0");
      const from = Number(url.searchParams.get("continue") ?? "0");
      const page = limit > 0 ? this.items.slice(from, from + limit) : this.items;
      const next = limit > 0 && from + limit < this.items.length ? String(from + limit) : undefined;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ kind: "List", metadata: { resourceVersion: this.version, ...(next !== undefined ? { continue: next } : {}) }, items: page }));
    });
  }

  async listen(): Promise<KubeConfig> {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: "c", server: `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`, skipTLSVerify: true }],
      users: [{ name: "u", token: "t" }],
      contexts: [{ name: "x", cluster: "c", user: "u" }],
      currentContext: "x",
    });
    return kc;
  }

  /** The next watch request (one already made and not yet taken, or the next to come). */
  nextWatch(taken: number): Promise<WatchCall> {
    const made = this.watches[taken];
    if (made !== undefined) return Promise.resolve(made);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

function obj(name: string, rv: string, extra: Record<string, unknown> = {}): Obj {
  return {
    apiVersion: "fluxgate.io/v1alpha1",
    kind: "ReconciliationWindow",
    metadata: { name, namespace: "ns", resourceVersion: rv },
    spec: { big: "x".repeat(100), ...extra },
  };
}

function send(w: WatchCall, type: string, object: unknown): void {
  w.res.write(`${JSON.stringify({ type, object })}\n`);
}

async function until(ok: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function recorder(): { events: string[]; handler: (o: Obj, kind: string) => void } {
  const events: string[] = [];
  return { events, handler: (o, kind) => events.push(`${kind} ${o.metadata?.name ?? ""}@${o.metadata?.resourceVersion ?? ""}`) };
}

test("the first list is one request for the latest version; the cache keeps what the transform returns; it watches from the list's version with bookmarks", async () => {
  const api = new FakeApi();
  api.items = Array.from({ length: 5 }, (_, i) => obj(`w${i}`, String(10 + i)));
  const kc = await api.listen();
  const { events, handler } = recorder();
  const informer = new Informer<Obj>(kc, WINDOWS, handler, { pageSize: 2, transform: (o) => ({ ...o, spec: { kept: true } }) });
  try {
    await informer.start();
    // Whole and as fresh as etcd (no limit, no resourceVersion): kube-apiserver answers it from its watch cache once that has caught up.
    assert.deepEqual(
      api.lists.map((q) => [q.get("limit"), q.get("continue"), q.get("resourceVersion")]),
      [[null, null, null]],
      "one list, not pages of two, and not at any version",
    );
    assert.equal(informer.list().length, 5);
    assert.deepEqual(informer.get("w0", "ns")?.spec, { kept: true }, "the cache holds the transformed object");
    const first = await api.nextWatch(0);
    assert.equal(first.query.get("resourceVersion"), "100", "the watch starts at the list's version");
    assert.equal(first.query.get("allowWatchBookmarks"), "true");

    // changeCount moves with each change of the cache, and with nothing else; a new informer never repeats an old one's.
    const counts: number[] = [informer.changeCount];
    const other = new Informer<Obj>(kc, WINDOWS, () => undefined);
    assert.ok(other.changeCount > informer.changeCount, "a new informer's count is not one an older informer had");
    send(first, "ADDED", obj("w9", "101"));
    await until(() => events.length === 6, "the add");
    counts.push(informer.changeCount);
    send(first, "MODIFIED", obj("w0", "102"));
    await until(() => events.length === 7, "the update");
    counts.push(informer.changeCount);
    // The same version again and the deletion of an object it never had change nothing: only the delete after them counts.
    send(first, "MODIFIED", obj("w0", "102"));
    send(first, "DELETED", obj("never", "102"));
    send(first, "DELETED", obj("w1", "103"));
    await until(() => events.length === 8, "the delete");
    counts.push(informer.changeCount);
    assert.ok((counts[1] as number) > (counts[0] as number) && (counts[2] as number) > (counts[1] as number), `a change moves it: ${counts.join(", ")}`);
    assert.equal(counts[3], (counts[2] as number) + 1, `only the delete moved it: ${counts.join(", ")}`);
    send(first, "BOOKMARK", { kind: "ReconciliationWindow", metadata: { resourceVersion: "150" } });
    assert.deepEqual(events.slice(5), ["add w9@101", "update w0@102", "delete w1@103"]);
    assert.deepEqual(informer.get("w9", "ns")?.spec, { kept: true }, "watched objects are transformed too");
    assert.equal(informer.get("w1", "ns"), undefined);

    // The API server ends the watch (its timeout): a new one continues from the bookmark, without a list.
    first.res.end();
    const second = await api.nextWatch(1);
    assert.equal(second.query.get("resourceVersion"), "150", "the next watch starts at the bookmark's version");
    assert.equal(api.lists.length, 1, "no new list");
  } finally {
    await informer.stop();
    await api.close();
  }
});

test("an expired version (a 410 event or answer) lists again and reports what changed meanwhile, deletions included", async () => {
  const api = new FakeApi();
  api.items = [obj("a", "1"), obj("b", "2"), obj("c", "3")];
  const kc = await api.listen();
  const { events, handler } = recorder();
  const errors: unknown[] = [];
  const informer = new Informer<Obj>(kc, WINDOWS, handler, { onError: (e) => errors.push(e), pageSize: 2 });
  try {
    await informer.start();
    const first = await api.nextWatch(0);
    // Meanwhile on the server: b deleted, c changed, d created.
    api.items = [obj("a", "1"), obj("c", "7"), obj("d", "8")];
    api.version = "200";
    send(first, "ERROR", { kind: "Status", apiVersion: "v1", status: "Failure", code: 410, reason: "Expired", message: "too old resource version: 100 (150)" });
    const second = await api.nextWatch(1);
    // After the first, a list comes in pages (of two here); each for the latest version.
    assert.deepEqual(
      api.lists.map((q) => [q.get("limit"), q.get("continue"), q.get("resourceVersion")]),
      [
        [null, null, null],
        ["2", null, null],
        ["2", "2", null],
      ],
      "listed again at once, in pages",
    );
    assert.equal(second.query.get("resourceVersion"), "200");
    assert.deepEqual(events.slice(3), ["delete b@2", "update c@7", "add d@8"], "a (same version) is not reported again");
    assert.deepEqual(errors, [], "an expired version is no error");

    // The same as an HTTP answer to the watch request.
    api.items = [obj("a", "1")];
    api.version = "300";
    api.refuseNextWatch = 410;
    send(second, "BOOKMARK", { kind: "ReconciliationWindow", metadata: { resourceVersion: "250" } });
    second.res.end();
    const fourth = await api.nextWatch(3);
    assert.equal(api.watches[2]?.query.get("resourceVersion"), "250", "the refused watch asked for the bookmark's version");
    assert.equal(api.lists.length, 4);
    assert.equal(fourth.query.get("resourceVersion"), "300");
    assert.deepEqual(events.slice(6).sort(), ["delete c@7", "delete d@8"]);
    assert.deepEqual(
      informer.list().map((o) => o.metadata?.name),
      ["a"],
    );
  } finally {
    await informer.stop();
    await api.close();
  }
});

test("a cut watch is an error and is watched again from the last version after a backoff; a watch ended at once is no hot loop either", async () => {
  const api = new FakeApi();
  api.items = [obj("a", "1")];
  const kc = await api.listen();
  const errors: unknown[] = [];
  const informer = new Informer<Obj>(kc, WINDOWS, () => undefined, { onError: (e) => errors.push(e) });
  try {
    await informer.start();
    const first = await api.nextWatch(0);
    send(first, "MODIFIED", obj("a", "120"));
    await until(() => informer.get("a", "ns")?.metadata?.resourceVersion === "120", "the change");
    first.req.socket.destroy();
    const cutAt = Date.now();
    const second = await api.nextWatch(1);
    assert.equal(errors.length, 1, "the cut is reported");
    assert.ok(Date.now() - cutAt >= 400, "after a backoff");
    assert.equal(second.query.get("resourceVersion"), "120");
    assert.equal(api.lists.length, 1, "no list: the version is still good");

    // Ended at once, without an event: an error too, watched again after a backoff.
    second.res.end();
    const endedAt = Date.now();
    await api.nextWatch(2);
    assert.ok(Date.now() - endedAt >= 400, `a watch ended at once waits a backoff (${Date.now() - endedAt} ms)`);
    assert.equal(errors.length, 2);
  } finally {
    await informer.stop();
    await api.close();
  }
});

test("stop ends an open watch and a start still listing", async () => {
  const api = new FakeApi();
  api.items = [obj("a", "1")];
  const kc = await api.listen();
  const informer = new Informer<Obj>(kc, WINDOWS, () => undefined);
  await informer.start();
  const w = await api.nextWatch(0);
  const closed = new Promise((r) => w.res.once("close", r));
  await informer.stop();
  await closed;

  // A server that never answers the list: start() returns once stopped.
  const silent = createServer(() => undefined);
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
  const kc2 = new KubeConfig();
  kc2.loadFromOptions({
    clusters: [{ name: "c", server: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, skipTLSVerify: true }],
    users: [{ name: "u" }],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x",
  });
  const hanging = new Informer<Obj>(kc2, WINDOWS, () => undefined);
  const started = hanging.start();
  await new Promise((r) => setTimeout(r, 100));
  await hanging.stop();
  await started;
  silent.closeAllConnections();
  await new Promise((r) => silent.close(r));
  await api.close();
});

test("an optional resource the API server does not serve: the first list is the question, start resolves false and the informer stops", async () => {
  const api = new FakeApi();
  const kc = await api.listen();
  try {
    api.notServed = true;
    const optional = new Informer<Obj>(kc, WINDOWS, () => undefined, { optional: true });
    assert.equal(await optional.start(), false);
    assert.equal(api.lists.length, 1, "one list, no request before it and none after");
    assert.equal(api.watches.length, 0);

    // Without `optional`, a 404 is an error like any other: retried until the resource is served.
    const errors: unknown[] = [];
    const required = new Informer<Obj>(kc, WINDOWS, () => undefined, { onError: (e) => errors.push(e) });
    const started = required.start();
    await until(() => errors.length > 0, "the 404 reported as an error");
    api.notServed = false;
    api.items = [obj("a", "1")];
    assert.equal(await started, true);
    assert.equal(required.list().length, 1);
    await required.stop();

    const served = new Informer<Obj>(kc, WINDOWS, () => undefined, { optional: true });
    assert.equal(await served.start(), true, "a served optional resource starts as any other");
    await served.stop();
  } finally {
    await api.close();
  }
});
