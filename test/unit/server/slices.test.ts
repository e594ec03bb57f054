// Work in turns of the event loop: inSlices keeps the order and results of a plain loop, and jsonInSlices writes what JSON.stringify writes.

import assert from "node:assert/strict";
import { test } from "node:test";
import { inSlices, jsonInSlices } from "../../../src/server/slices.ts";

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
    assert.deepEqual(out, items.map((n) => n * 3));
    assert.ok(timers > 0, "a timer ran while the loop ran");
  } finally {
    clearInterval(timer);
  }
  assert.deepEqual(await inSlices([], () => 1), []);
});

test("jsonInSlices writes exactly what JSON.stringify writes, long arrays included", async () => {
  const clusters = Array.from({ length: 1000 }, (_, i) => ({ name: `edge-${i}`, patched: i % 3 === 0, labels: { ring: i % 2 === 0 ? "prod" : "canary" }, note: i % 7 === 0 ? undefined : "é\u2028\"q\"" }));
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
