// Work in turns of the event loop: inSlices keeps the order and results of a plain loop, and jsonInSlices writes what JSON.stringify writes.

import assert from "node:assert/strict";
import { test } from "node:test";
import { inSlices, jsonInSlices } from "../../../src/server/model/slices.ts";

test("inSlices gives fn's results in order, with each item's index, and lets timers run between turns", async () => {
  const items = Array.from({ length: 3000 }, (_, i) => i);
  let timers = 0;
  const timer = setInterval(() => timers++, 1);
  try {
    const out = await inSlices(items, (n, i) => {
      // About 40 ms of work in all, so that a 1 ms timer must have run between turns if the loop yields.
      const until = performance.now() + 0.0133;
      while (performance.now() < until);
      return n * 2 + i;
    });
    assert.deepEqual(
      out,
      items.map((n) => n * 3),
    );
    assert.ok(timers > 0, "a timer ran while the loop ran");
  } finally {
    clearInterval(timer);
  }
  assert.deepEqual(await inSlices([], () => 1), []);
});

test("jsonInSlices writes exactly what JSON.stringify writes, long arrays included", async () => {
  const clusters = Array.from({ length: 1000 }, (_, i) => ({
    name: `edge-${i}`,
    patched: i % 3 === 0,
    labels: { ring: i % 2 === 0 ? "prod" : "canary" },
    note: i % 7 === 0 ? undefined : 'é\u2028"q"',
  }));
  const values: unknown[] = [
    { commit: "abc", windows: [{ name: "prod-changes", selector: null, clusters, missing: [] }] },
    [clusters, [1, undefined, () => 1, null], { nested: [[clusters.slice(0, 300)]] }],
    { date: new Date(0), empty: {}, list: [], n: -0, big: 1e21, nan: Number.NaN, s: "\u0000" },
    "text",
    42,
    null,
    Array.from({ length: 600 }, (_, i) => (i % 2 === 0 ? undefined : i)),
    // eslint-disable-next-line no-sparse-arrays -- a hole, as JSON.stringify meets it
    [, 1, new String("ab"), new Number(2), new Boolean(false)],
    new Array<number>(300).concat([1]),
  ];
  for (const value of values) assert.equal(await jsonInSlices(value), JSON.stringify(value));
  assert.equal(await jsonInSlices(undefined), "null");
});

test("jsonInSlices calls toJSON with the member's key or the item's index, in short and long arrays, as JSON.stringify does", async () => {
  const keyed = { toJSON: (key: string) => `key ${key}` };
  const listed = Object.assign([1, 2], { toJSON: () => "the list's own" });
  const values: unknown[] = [
    { a: keyed, b: [keyed, keyed] },
    Array.from({ length: 300 }, () => keyed),
    {
      list: listed,
      long: Object.assign(
        Array.from({ length: 300 }, (_, i) => i),
        { toJSON: () => ({ replaced: true }) },
      ),
    },
    keyed,
    { nothing: { toJSON: () => undefined }, items: [{ toJSON: () => undefined }], many: Array.from({ length: 300 }, () => ({ toJSON: () => undefined })) },
  ];
  for (const value of values) assert.equal(await jsonInSlices(value), JSON.stringify(value));
});

test("jsonInSlices refuses a cycle with the TypeError JSON.stringify gives, in short and in long arrays", async () => {
  const short: unknown[] = [1];
  short.push({ back: short });
  const long: unknown[] = Array.from({ length: 300 }, (_, i) => i);
  long.push({ back: long });
  const object: Record<string, unknown> = { a: 1 };
  object.self = { again: object };
  for (const value of [short, long, object]) {
    assert.throws(() => JSON.stringify(value), TypeError);
    await assert.rejects(jsonInSlices(value), (e: unknown) => e instanceof TypeError && /circular/.test(e.message));
  }
  // The same object twice, side by side, is not a cycle.
  const shared = { n: 1 };
  assert.equal(await jsonInSlices({ a: shared, b: [shared, shared] }), JSON.stringify({ a: shared, b: [shared, shared] }));
});

test("jsonInSlices gives the event loop turns while writing many short arrays (no long one among them)", async () => {
  // 40 groups of 250 entries: no array is long enough to be written in slices, yet the whole is.
  const groups = Array.from({ length: 40 }, (_, g) => ({
    name: `freeze-${g}`,
    overrides: Array.from({ length: 250 }, (_, i) => ({
      cluster: `edge-${i}`,
      window: "nightly",
      labels: { ring: "canary", region: ["eu", "us"][i % 2] },
      until: "2026-12-24T00:00:00Z",
    })),
  }));
  // 10,000 entries take far longer than one turn (SLICE_MS) to write, so a timer must run meanwhile.
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  try {
    const text = await jsonInSlices({ groups });
    assert.equal(text, JSON.stringify({ groups }));
    assert.ok(ticks > 0, "a 1 ms timer ran while the groups were written");
  } finally {
    clearInterval(timer);
  }
});
