// The work queue: de-duplication, one worker per key, re-run after a change in flight, backoff on errors, delayed adds.

import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { WorkQueue, type Outcome } from "../../../src/kube/queue.ts";

test("keys added several times before processing run once", async () => {
  const q = new WorkQueue({ concurrency: 2 });
  for (const k of ["a", "b", "a", "a", "b"]) q.add(k);
  const seen: string[] = [];
  q.start((k) => {
    seen.push(k);
    return Promise.resolve({ kind: "done" });
  });
  await q.idle();
  assert.deepEqual(seen.sort(), ["a", "b"]);
});

test("a key is never processed twice at once, and a change during processing runs it again", async () => {
  const q = new WorkQueue({ concurrency: 4 });
  let active = 0;
  let maxActive = 0;
  let runs = 0;
  q.start(async () => {
    active++;
    maxActive = Math.max(maxActive, active);
    runs++;
    if (runs === 1) {
      q.add("k");
      q.add("k");
    }
    await sleep(20);
    active--;
    return { kind: "done" };
  });
  q.add("k");
  await sleep(10);
  await q.idle();
  assert.equal(maxActive, 1);
  assert.equal(runs, 2);
});

test("errors retry with growing delays; success resets them", async () => {
  const q = new WorkQueue({ concurrency: 1, baseDelayMs: 20, maxDelayMs: 1000 });
  const times: number[] = [];
  q.start((): Promise<Outcome> => {
    times.push(Date.now());
    return Promise.resolve(times.length < 4 ? { kind: "retry", error: new Error("boom") } : { kind: "done" });
  });
  q.add("k");
  while (times.length < 4) await sleep(10);
  const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
  assert.ok((gaps[0] as number) >= 15 && (gaps[1] as number) >= 30 && (gaps[2] as number) >= 60, `gaps ${gaps.join(",")}`);
  q.stop();
});

test("addAfter keeps the earliest time; requeueAfter schedules the key again", async () => {
  const q = new WorkQueue({ concurrency: 1 });
  const seen: number[] = [];
  q.start((): Promise<Outcome> => {
    seen.push(Date.now());
    return Promise.resolve(seen.length === 1 ? { kind: "requeueAfter", ms: 30 } : { kind: "done" });
  });
  const start = Date.now();
  q.addAfter("k", 200);
  q.addAfter("k", 20);
  q.addAfter("k", 500);
  while (seen.length < 2) await sleep(5);
  assert.ok((seen[0] as number) - start < 150, "the earliest delay wins");
  assert.ok((seen[1] as number) - (seen[0] as number) >= 25);
  await sleep(600);
  assert.equal(seen.length, 2, "later adds were folded into the earlier one");
  q.stop();
});

test("keys whose processing needs no I/O leave the event loop free between them (probes are answered during a long pass)", async () => {
  const q = new WorkQueue({ concurrency: 16 });
  let processed = 0;
  q.start(() => {
    // A millisecond of CPU, no request: a target already in place.
    const until = performance.now() + 1;
    while (performance.now() < until);
    processed++;
    return Promise.resolve({ kind: "done" as const });
  });
  for (let i = 0; i < 500; i++) q.add(`k${i}`);
  const seen = await new Promise<number>((resolve) => setTimeout(() => resolve(processed), 0));
  assert.ok(seen < 100, `a timer due at once ran after ${seen} of 500 keys`);
  await q.idle();
  assert.equal(processed, 500);
  q.stop();
});

test("retryFailedNow runs at once the keys waiting out a failure's backoff, and leaves keys waiting for a requested time", async () => {
  const q = new WorkQueue({ concurrency: 2, baseDelayMs: 60_000 });
  const runs: string[] = [];
  let failing = true;
  q.start((k) => {
    runs.push(k);
    if (k === "later") return Promise.resolve<Outcome>({ kind: "requeueAfter", ms: 60_000 });
    return Promise.resolve<Outcome>(failing ? { kind: "retry", error: new Error("connection refused") } : { kind: "done" });
  });
  q.add("failed");
  q.add("later");
  await q.idle();
  assert.deepEqual(runs.sort(), ["failed", "later"]);
  failing = false;
  assert.equal(q.retryFailedNow(), 1, "one key was in backoff");
  await q.idle();
  assert.deepEqual(runs.sort(), ["failed", "failed", "later"], "the failed key ran again at once, the other waits for its time");
  assert.equal(q.retryFailedNow(), 0, "its failures are forgotten");
  q.stop();
});

test("keys of the first lane are taken before every other waiting key, in their own order; the others keep theirs", async () => {
  const q = new WorkQueue({ concurrency: 1, first: (k) => k.startsWith("T") });
  for (const k of ["W1", "T1", "W2", "T2", "W3"]) q.add(k);
  const seen: string[] = [];
  q.start((k) => {
    seen.push(k);
    // A first-lane key added while others wait goes ahead of them.
    if (k === "T1") q.add("T3");
    return Promise.resolve({ kind: "done" });
  });
  await q.idle();
  assert.deepEqual(seen, ["T1", "T2", "T3", "W1", "W2", "W3"]);
});

test("a started queue takes a key at the worker's turn: first-lane keys added in the same turn go before second-lane keys added before them", async () => {
  const q = new WorkQueue({ concurrency: 2, first: (k) => k.startsWith("T") });
  const seen: string[] = [];
  q.start(async (k) => {
    seen.push(k);
    await sleep(5);
    return { kind: "done" };
  });
  // As at a transition: the windows' timers fire, then their targets', in one turn of the loop.
  for (const k of ["W1", "W2", "T1", "T2", "T3"]) q.add(k);
  await q.idle();
  assert.deepEqual(seen, ["T1", "T2", "T3", "W1", "W2"]);
});

test("each key has a turn of the event loop of its own: a probe waits for one key, not for a batch of workers", async () => {
  const q = new WorkQueue({ concurrency: 16 });
  const order: string[] = [];
  q.start((k) => {
    // Five milliseconds of CPU, no request: a window's first summary at a cold start.
    const until = performance.now() + 5;
    while (performance.now() < until);
    order.push(k);
    return Promise.resolve({ kind: "done" as const });
  });
  for (let i = 0; i < 32; i++) q.add(`k${i}`);
  // A probe's answer waits for the loop's next turn, as a timer due at once does.
  await new Promise<void>((resolve) => setImmediate(resolve));
  await new Promise<void>((resolve) => setTimeout(resolve, 0));
  order.push("probe");
  await q.idle();
  assert.ok(order.indexOf("probe") <= 2, `the probe waited for ${order.indexOf("probe")} keys (the workers' batch is 16)`);
  assert.equal(order.length, 33);
  q.stop();
});

test("firstLaneIdle resolves once no key of the first lane waits or runs; other keys do not hold it", async () => {
  const q = new WorkQueue({ concurrency: 2, first: (k) => k.startsWith("T") });
  await q.firstLaneIdle(); // nothing queued: at once
  const release = new Map<string, () => void>();
  q.start((k) => new Promise((resolve) => release.set(k, () => resolve({ kind: "done" }))));
  q.add("W1");
  q.add("T1");
  q.add("T2");
  await new Promise<void>((resolve) => setTimeout(resolve, 20));
  let idle = false;
  void q.firstLaneIdle().then(() => (idle = true));
  release.get("T1")?.();
  await new Promise<void>((resolve) => setTimeout(resolve, 20));
  assert.equal(idle, false, "T2 still runs");
  release.get("T2")?.();
  await new Promise<void>((resolve) => setTimeout(resolve, 20));
  assert.equal(idle, true, "no target left, though W1 waits");
  release.get("W1")?.();
  await q.idle();
  q.stop();
});

test("afterFirstLane gives the worker back and runs the key again once the first lane is empty (at once when it is)", async () => {
  const q = new WorkQueue({ concurrency: 2, first: (k) => k.startsWith("T") });
  const release = new Map<string, () => void>();
  const runs: string[] = [];
  q.start((k) => {
    runs.push(k);
    if (k === "W1") return Promise.resolve<Outcome>(q.firstLaneBusy() ? { kind: "afterFirstLane", maxMs: 300 } : { kind: "done" });
    return new Promise((resolve) => release.set(k, () => resolve({ kind: "done" })));
  });
  q.add("T1");
  q.add("W1"); // the second worker's: nothing else waits
  await new Promise<void>((resolve) => setTimeout(resolve, 20));
  q.add("T2");
  q.add("T3");
  await new Promise<void>((resolve) => setTimeout(resolve, 20));
  // W1 found T1 under way and gave its worker back: two targets run, not one beside a waiting W1.
  assert.deepEqual(runs, ["T1", "W1", "T2"]);
  assert.equal(q.firstLaneBusy(), true);
  release.get("T1")?.();
  release.get("T2")?.();
  await new Promise<void>((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(runs, ["T1", "W1", "T2", "T3"], "W1 waits while T3 runs");
  release.get("T3")?.();
  await q.idle();
  assert.deepEqual(runs, ["T1", "W1", "T2", "T3", "W1"], "then W1 again, once");
  assert.equal(q.firstLaneBusy(), false);
  await sleep(400);
  assert.deepEqual(runs, ["T1", "W1", "T2", "T3", "W1"], "its bound's timer went with its wait: not run again at 300 ms");
  q.stop();
});

/** Resolves once `cond` holds; fails past `limitMs` rather than hanging. */
async function until(cond: () => boolean, limitMs = 5_000): Promise<void> {
  const limit = performance.now() + limitMs;
  while (!cond()) {
    if (performance.now() > limit) assert.fail(`not so after ${limitMs} ms`);
    await sleep(5);
  }
}

/**
 * A queue with a first-lane key T held in flight until `release()`, and a key W whose handler is
 * `window` (told whether its wait ran out); each of W's runs is recorded with its time and that flag.
 */
function busyLane(window: (waitedOut: boolean, run: number) => Outcome | Promise<Outcome>) {
  const q = new WorkQueue({ concurrency: 2, first: (k) => k.startsWith("T") });
  let release = (): void => undefined;
  const runs: { at: number; waitedOut: boolean }[] = [];
  const start = performance.now();
  q.start((k) => {
    if (k === "T") return new Promise((resolve) => (release = () => resolve({ kind: "done" })));
    const waitedOut = q.waitedOut(k);
    runs.push({ at: performance.now() - start, waitedOut });
    return Promise.resolve(window(waitedOut, runs.length));
  });
  q.add("T");
  q.add("W");
  return { q, runs, release: () => release() };
}

test("afterFirstLane: a key comes back at its bound while the first lane stays busy, told so, and is not held again", async () => {
  const { q, runs, release } = busyLane((waitedOut) => (waitedOut ? { kind: "done" } : { kind: "afterFirstLane", maxMs: 150 }));
  await until(() => runs.length >= 2);
  assert.equal(q.firstLaneBusy(), true, "T still runs");
  assert.deepEqual(
    runs.map((r) => r.waitedOut),
    [false, true],
  );
  assert.ok((runs[1]?.at ?? 0) - (runs[0]?.at ?? 0) >= 140, `back after ${Math.round((runs[1]?.at ?? 0) - (runs[0]?.at ?? 0))} ms, not before its bound`);
  assert.equal(q.waitedOut("W"), false, "told only during that run");
  release();
  await q.idle();
  assert.equal(runs.length, 2, "the lane emptying does not run it again: it no longer waited");
  q.stop();
});

test("afterFirstLane: asking again while waiting keeps the deadline of the first ask", async () => {
  const { q, runs, release } = busyLane((waitedOut) => (waitedOut ? { kind: "done" } : { kind: "afterFirstLane", maxMs: 1_000 }));
  // Added meanwhile for other reasons (a target changed), the lane still busy: it asks again each time.
  await sleep(400);
  q.add("W");
  await sleep(400);
  q.add("W");
  await until(() => runs.length >= 4);
  assert.deepEqual(
    runs.map((r) => r.waitedOut),
    [false, false, false, true],
  );
  const back = (runs[3]?.at ?? 0) - (runs[0]?.at ?? 0);
  assert.ok(back >= 990 && back < 1_700, `back ${Math.round(back)} ms after the first ask (1,000 asked; from the last ask it would be 1,800)`);
  release();
  await q.idle();
  q.stop();
});

test("afterFirstLane: a bound reached while the key's run is under way is told to the run that follows, at once", async () => {
  let unblock = (): void => undefined;
  const { q, runs, release } = busyLane((waitedOut, run) => {
    if (waitedOut) return { kind: "done" };
    // The second run (added again meanwhile) is still under way when the bound passes, then asks again.
    // Its ask then names a long bound: a second wait would take 2 s.
    if (run === 2) return new Promise<Outcome>((resolve) => (unblock = () => resolve({ kind: "afterFirstLane", maxMs: 2_000 })));
    return { kind: "afterFirstLane", maxMs: 100 };
  });
  await sleep(30);
  q.add("W");
  await sleep(200);
  assert.equal(runs.length, 2);
  const unblocked = performance.now();
  unblock();
  await until(() => runs.length >= 3);
  assert.equal(runs[2]?.waitedOut, true, "not a second wait of its full bound");
  assert.ok(performance.now() - unblocked < 1_000, "at once, not after a second wait");
  release();
  await q.idle();
  assert.equal(runs.length, 3);
  q.stop();
});

test("afterFirstLane: a key that stops waiting (its object deleted) leaves no timer behind", async () => {
  let gone = false;
  const { q, runs, release } = busyLane(() => (gone ? { kind: "done" } : { kind: "afterFirstLane", maxMs: 150 }));
  await sleep(30);
  gone = true;
  q.add("W");
  await sleep(300);
  assert.equal(q.firstLaneBusy(), true, "T still runs past W's bound");
  assert.equal(runs.length, 2, "not run again at its bound: the wait and its timer went with its last outcome");
  assert.equal(q.waitedOut("W"), false);
  release();
  await q.idle();
  assert.equal(runs.length, 2, "nor once the lane empties");
  q.stop();
});
