// Once-only events: a name derived from the transition, recorded and forwarded once however often it is announced.

import { ApiException, type CoreV1Event } from "@kubernetes/client-node";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { EVENT_TRIES, EventRecorder, onceEventName } from "../../../src/controller/events.ts";
import type { KubeClient } from "../../../src/kube/client.ts";

const target = { apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", metadata: { name: "apps-rw", namespace: "flux-system", uid: "u-1" } };
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

test("the name is stable per object, reason and interval, differs otherwise, and is a valid name for any object name", () => {
  const name = onceEventName(target, "WindowOpened", "open@2026-11-23T07:00:00Z");
  assert.equal(onceEventName(target, "WindowOpened", "open@2026-11-23T07:00:00Z"), name);
  assert.match(name, /^apps-rw\.[0-9a-f]{16}$/);
  assert.notEqual(onceEventName(target, "WindowClosed", "open@2026-11-23T07:00:00Z"), name);
  assert.notEqual(onceEventName(target, "WindowOpened", "open@2026-11-30T07:00:00Z"), name);
  assert.notEqual(onceEventName({ ...target, metadata: { ...target.metadata, uid: "u-2" } }, "WindowOpened", "open@2026-11-23T07:00:00Z"), name);
  const long = onceEventName({ ...target, metadata: { ...target.metadata, name: `${"a".repeat(199)}.b` } }, "WindowOpened", "k");
  assert.ok(long.length <= 253 && SUBDOMAIN.test(long), long);
});

/** A fake of the API's event creation (the real one is in the fault tests), with a notification receiver. */
async function recorder(
  answer: (event: CoreV1Event) => ApiException<string> | Error | undefined,
  wait: { after?: () => Promise<void>; busy?: () => boolean; waitMaxMs?: number; retryMs?: number } = {},
): Promise<{ events: EventRecorder; created: CoreV1Event[]; forwarded: string[]; errors: string[]; close: () => void }> {
  const created: CoreV1Event[] = [];
  const forwarded: string[] = [];
  const errors: string[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (c: string) => (body += c));
    req.on("end", () => {
      forwarded.push((JSON.parse(body) as { reason: string }).reason);
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const client = {
    createEvent: (_namespace: string, event: CoreV1Event): Promise<void> => {
      const err = answer(event);
      if (err !== undefined) return Promise.reject(err);
      created.push(event);
      return Promise.resolve();
    },
  } as unknown as KubeClient;
  const silent = { debug: () => undefined, info: () => undefined, error: () => undefined };
  const events = new EventRecorder(client, silent, {
    eventsAddress: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    now: () => Date.now(),
    onError: (op) => errors.push(op),
    ...wait,
  });
  return { events, created, forwarded, errors, close: () => server.close() };
}

/**
 * Forwarding is fire-and-forget: waits (up to 10 s, a busy machine) until `n` posts arrived, then a
 * little longer, so that a post that should not have been made has arrived too.
 */
async function forwardedAtLeast(forwarded: readonly string[], n: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (forwarded.length < n && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  await new Promise((resolve) => setTimeout(resolve, 200));
}

const status = (code: number, reason: string): ApiException<string> => new ApiException(code, reason, JSON.stringify({ kind: "Status", code, reason }), {});

/** Targets' writes under way until `done()`: the recorder's wait for them, as a transition's emitted events meet it. */
function targetsWriting(): { wait: { after: () => Promise<void>; busy: () => boolean; waitMaxMs: number }; done: () => void } {
  let resolve: () => void = () => undefined;
  let writing = true;
  const targets = new Promise<void>((r) => (resolve = r));
  return {
    wait: { after: () => targets, busy: () => writing, waitMaxMs: 60_000 },
    done: () => {
      writing = false;
      resolve();
    },
  };
}

test("announced again by a restarted controller (AlreadyExists): not an error, not forwarded again", async () => {
  const names = new Set<string>();
  const r = await recorder((e) => (names.has(e.metadata?.name ?? "") ? status(409, "AlreadyExists") : void names.add(e.metadata?.name ?? "")));
  try {
    await r.events.record(target, "Normal", "WindowOpened", "Resumed by window w", { forward: true, once: "open@1" });
    // A second recorder: what a controller that restarted after a crash has (no memory of the first).
    const again = new EventRecorder(
      { createEvent: () => Promise.reject(status(409, "AlreadyExists")) } as unknown as KubeClient,
      { debug: () => undefined, info: () => undefined, error: () => undefined },
      {
        eventsAddress: undefined,
        now: () => Date.now(),
        onError: (op) => r.errors.push(op),
      },
    );
    await again.record(target, "Normal", "WindowOpened", "Resumed by window w", { forward: true, once: "open@1" });
    await forwardedAtLeast(r.forwarded, 1);
    assert.equal(r.created.length, 1);
    assert.equal(r.created[0]?.metadata?.name, onceEventName(target, "WindowOpened", "open@1"));
    assert.deepEqual(r.forwarded, ["WindowOpened"], "forwarded once, after it was recorded");
    assert.deepEqual(r.errors, []);
  } finally {
    r.close();
  }
});

test("a 409 Conflict or a 500 is a failure: counted, not forwarded, and tried again on the next announcement", async () => {
  let fail: ApiException<string> | undefined = status(409, "Conflict");
  const r = await recorder(() => fail);
  try {
    await r.events.record(target, "Normal", "WindowClosed", "Suspended by window w", { forward: true, once: "closed@1" });
    fail = status(500, "InternalError");
    await r.events.record(target, "Normal", "WindowClosed", "Suspended by window w", { forward: true, once: "closed@1" });
    fail = undefined;
    await r.events.record(target, "Normal", "WindowClosed", "Suspended by window w", { forward: true, once: "closed@1" });
    await forwardedAtLeast(r.forwarded, 1);
    assert.deepEqual(r.errors, ["event", "event"]);
    assert.equal(r.created.length, 1);
    assert.deepEqual(r.forwarded, ["WindowClosed"]);
  } finally {
    r.close();
  }
});

test("an emitted event waits for the writes it follows, and for no longer than its cap when they never end", async () => {
  const writes = targetsWriting();
  const r = await recorder(() => undefined, writes.wait);
  try {
    r.events.emit(target, "Normal", "WindowOpened", "Resumed by window w");
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(r.created.length, 0, "not sent while the targets' writes go on");
    writes.done();
    await r.events.drained();
    assert.equal(r.created.length, 1, "sent once they are done");
  } finally {
    r.close();
  }
  // A target lane that is never idle (targets that keep changing): the event goes out after the cap.
  const busy = await recorder(() => undefined, { after: () => new Promise<void>(() => undefined), busy: () => true, waitMaxMs: 300 });
  try {
    const started = performance.now();
    busy.events.emit(target, "Normal", "WindowOpened", "Resumed by window w");
    await busy.events.drained();
    const waited = performance.now() - started;
    assert.equal(busy.created.length, 1);
    assert.ok(waited >= 290, `sent after ${Math.round(waited)} ms, before the cap`);
  } finally {
    busy.close();
  }
});

/** A recorder whose first four creates hang until released (the lane's four places), with the targets' lane as `writing` says. */
function laneRecorder(state: { targets: Promise<void>; writing: boolean }): {
  events: EventRecorder;
  created: string[];
  inFlight: () => number;
  release: () => void;
} {
  const hanging: Array<() => void> = [];
  const created: string[] = [];
  let inFlight = 0;
  let most = 0;
  const events = new EventRecorder(
    {
      createEvent: async (_namespace: string, event: CoreV1Event): Promise<void> => {
        created.push(event.reason ?? "");
        inFlight++;
        most = Math.max(most, inFlight);
        if (created.length <= 4) await new Promise<void>((resolve) => hanging.push(resolve));
        inFlight--;
      },
    } as unknown as KubeClient,
    { debug: () => undefined, info: () => undefined, error: () => undefined },
    { eventsAddress: undefined, now: () => Date.now(), onError: () => undefined, after: () => state.targets, busy: () => state.writing, waitMaxMs: 60_000 },
  );
  return { events, created, inFlight: () => most, release: () => hanging.splice(0).forEach((r) => r()) };
}

test("an emitted event already waiting for its turn lets the targets of a transition that began meanwhile go first", async () => {
  const state = { targets: Promise.resolve(), writing: false };
  const lane = laneRecorder(state);
  for (const reason of ["A", "B", "C", "D", "E"]) lane.events.emit(target, "Normal", reason, `event ${reason}`);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(lane.created, ["A", "B", "C", "D"], "four in the lane, the fifth waits for a place");
  // A transition begins: its targets' writes are not done yet when the fifth event's turn comes.
  let targetsDone: () => void = () => undefined;
  state.targets = new Promise<void>((resolve) => (targetsDone = resolve));
  state.writing = true;
  lane.release();
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(lane.created, ["A", "B", "C", "D"], "the fifth waits for the targets that began after it was made");
  state.writing = false;
  targetsDone();
  await lane.events.drained();
  assert.deepEqual(lane.created, ["A", "B", "C", "D", "E"]);
  assert.equal(lane.inFlight(), 4, "never more than four at once");
});

test("an event a reconcile waits for (record) takes the first free place, ahead of those emitted, and does not wait for the targets", async () => {
  const state = { targets: new Promise<void>(() => undefined), writing: true };
  const lane = laneRecorder(state);
  state.writing = false;
  for (const reason of ["A", "B", "C", "D", "E"]) lane.events.emit(target, "Normal", reason, `event ${reason}`);
  await new Promise((resolve) => setTimeout(resolve, 50));
  state.writing = true; // targets are written again: E, emitted, waits for them; R does not
  const recorded = lane.events.record(target, "Normal", "R", "event R");
  lane.release();
  assert.equal(await recorded, true);
  assert.deepEqual(lane.created, ["A", "B", "C", "D", "R"], "R ahead of E, and sent while the targets are written");
  assert.equal(lane.inFlight(), 4, "never more than four at once");
});

test("an emitted once-only event with retry is tried again after a 500, a 409 Conflict or no answer, by its name: recorded and forwarded once", async () => {
  const answers: (ApiException<string> | Error | undefined)[] = [status(500, "InternalError"), status(409, "Conflict"), new Error("connect ECONNREFUSED")];
  const tried: string[] = [];
  const r = await recorder(
    (e) => {
      tried.push(e.metadata?.name ?? "");
      return answers.shift();
    },
    { retryMs: 20 },
  );
  try {
    r.events.emit(target, "Normal", "WindowClosed", "Suspended by window w", { forward: true, once: "closed@1", retry: true });
    await r.events.drained();
    assert.equal(tried.length, 4, "three failures, then the create that passed");
    assert.equal(new Set(tried).size, 1, "each try by the same name");
    assert.equal(r.created.length, 1);
    assert.deepEqual(r.errors, ["event", "event", "event"], "each failed try counted");
    await forwardedAtLeast(r.forwarded, 1);
    assert.deepEqual(r.forwarded, ["WindowClosed"], "forwarded once, after it was recorded");
  } finally {
    r.close();
  }
});

test("what is not tried again: a refusal that will not pass (403), an event without a name or without retry, and one past its last try", async () => {
  let tries = 0;
  const r = await recorder(
    (e) => {
      tries++;
      if (e.reason === "Forbidden") return status(403, "Forbidden");
      return status(500, "InternalError");
    },
    { retryMs: 5 },
  );
  try {
    r.events.emit(target, "Normal", "Forbidden", "no RBAC for events here", { once: "f@1", retry: true });
    await r.events.drained();
    assert.equal(tries, 1, "403: one try");
    r.events.emit(target, "Warning", "SuspendReverted", "set back by kubectl");
    await r.events.drained();
    assert.equal(tries, 2, "no name: one try, a second could double it");
    r.events.emit(target, "Warning", "AccessDenied", "may not list Kustomizations", { once: "denied/1" });
    await r.events.drained();
    assert.equal(tries, 3, "once-only without retry (a window's warning, which its reconcile makes again): one try");
    r.events.emit(target, "Normal", "WindowOpened", "Resumed by window w", { forward: true, once: "open@1", retry: true });
    await r.events.drained();
    assert.equal(tries, 3 + EVENT_TRIES, `a 500 every time: ${EVENT_TRIES} tries, then given up`);
    assert.equal(r.created.length, 0);
    assert.equal(r.errors.length, 3 + EVENT_TRIES);
    await forwardedAtLeast(r.forwarded, 0);
    assert.deepEqual(r.forwarded, [], "never forwarded: never recorded");
    // Given up, it is not remembered: a later announcement of the same transition tries it again.
    r.events.emit(target, "Normal", "WindowOpened", "Resumed by window w", { forward: true, once: "open@1", retry: true });
    await r.events.drained();
    assert.equal(tries, 3 + 2 * EVENT_TRIES);
  } finally {
    r.close();
  }
});

test("an event waiting to be tried again is given up when the recorder stops: no try after, drained at once", async () => {
  let tries = 0;
  const r = await recorder(
    () => {
      tries++;
      return status(503, "ServiceUnavailable");
    },
    { retryMs: 60_000 },
  );
  try {
    r.events.emit(target, "Normal", "WindowClosed", "Suspended by window w", { once: "closed@1", retry: true });
    while (tries === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    let drained = false;
    void r.events.drained().then(() => (drained = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(drained, false, "still to be tried again in a minute");
    r.events.stop();
    await r.events.drained();
    assert.equal(tries, 1);
    // Stopped: an event emitted now gets its one try and no more.
    r.events.emit(target, "Normal", "WindowOpened", "Resumed by window w", { once: "open@1", retry: true });
    await r.events.drained();
    assert.equal(tries, 2);
  } finally {
    r.close();
  }
});

test("a retried event that a later one of the object overtook is recorded but not forwarded: its alert would come after the later one's", async () => {
  let failClosed = 2;
  const r = await recorder((e) => (e.reason === "WindowClosed" && failClosed-- > 0 ? status(500, "InternalError") : undefined), { retryMs: 100 });
  try {
    r.events.emit(target, "Normal", "WindowClosed", "Suspended by window w", { forward: true, once: "closed@1", retry: true });
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The window opened again while the close's event waits to be tried again.
    r.events.emit(target, "Normal", "WindowOpened", "Resumed by window w", { forward: true, once: "open@2", retry: true });
    await r.events.drained();
    await forwardedAtLeast(r.forwarded, 1);
    assert.deepEqual(r.created.map((e) => e.reason).sort(), ["WindowClosed", "WindowOpened"], "both recorded");
    assert.deepEqual(r.forwarded, ["WindowOpened"], "the overtaken one not forwarded");
  } finally {
    r.close();
  }
});

test("found already recorded after a try that got no answer: that try created it, and it is forwarded now, once", async () => {
  const names = new Set<string>();
  let first = true;
  const r = await recorder(
    (e) => {
      const name = e.metadata?.name ?? "";
      if (names.has(name)) return status(409, "AlreadyExists");
      names.add(name);
      if (first) {
        first = false;
        // Created, but the answer was lost (a reset connection, a timeout).
        return new Error("socket hang up");
      }
      return undefined;
    },
    { retryMs: 20 },
  );
  try {
    r.events.emit(target, "Normal", "WindowClosed", "Suspended by window w", { forward: true, once: "closed@1", retry: true });
    await r.events.drained();
    await forwardedAtLeast(r.forwarded, 1);
    assert.deepEqual(r.forwarded, ["WindowClosed"]);
    assert.deepEqual(r.errors, ["event"]);
  } finally {
    r.close();
  }
});

test("a first try is forwarded though a later event of the object came meanwhile: the lane sends them in order", async () => {
  const writes = targetsWriting();
  const r = await recorder(() => undefined, writes.wait);
  try {
    r.events.emit(target, "Normal", "WindowClosed", "Suspended by window w", { forward: true, once: "closed@1", retry: true });
    r.events.emit(target, "Normal", "WindowOpensSoon", "Window w opens at 07:00", { forward: true, once: "w/Open@1", retry: true });
    writes.done();
    await r.events.drained();
    await forwardedAtLeast(r.forwarded, 2);
    assert.deepEqual(r.forwarded.sort(), ["WindowClosed", "WindowOpensSoon"]);
  } finally {
    r.close();
  }
});
