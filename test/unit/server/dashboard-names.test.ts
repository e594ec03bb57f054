// The fleet page's order of cluster names: numbers as numbers, by keys where names are plain and by a collator where not, in the one order an English
// collator with numeric order gives (the oracle: Node's own ICU collator), ties by code unit.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { KEYS_PER_TASK, sortedByName, sortedByNameNow } from "../../../src/server/dashboard/client/names.ts";

const collator = new Intl.Collator("en", { numeric: true });
const byCode = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const oracle = (names: readonly string[]): string[] => [...names].sort((a, b) => collator.compare(a, b) || byCode(a, b));
const sorted = (names: readonly string[]): Promise<string[]> => sortedByName(names, (n) => n);

test("numbers sort as numbers, '-' before '.' before digits before letters, leading zeros tie by code unit", async () => {
  const names = [
    "edge-10",
    "edge-9",
    "edge-1",
    "edge-01",
    "edge-0",
    "edge-00",
    "edge.1",
    "edge1",
    "edgea",
    "edge",
    "edge-9.2",
    "edge-9.10",
    "a",
    "b-2",
    "b-10",
  ];
  const expected = [
    "a",
    "b-2",
    "b-10",
    "edge",
    "edge-0",
    "edge-00",
    "edge-01",
    "edge-1",
    "edge-9",
    "edge-9.2",
    "edge-9.10",
    "edge-10",
    "edge.1",
    "edge1",
    "edgea",
  ];
  assert.deepEqual(oracle(names), expected);
  assert.deepEqual(await sorted(names), oracle(names));
});

test("plain names (Kubernetes' letters) come out in the collator's order, in whatever order they came", async () => {
  const plain = fc.stringMatching(/^[a-z0-9.-]{0,12}$/);
  await fc.assert(
    fc.asyncProperty(fc.array(plain, { maxLength: 40 }), async (names) => {
      assert.deepEqual(await sorted(names), oracle(names));
    }),
    { numRuns: 2_000 },
  );
});

test("names that are not plain, or hold a run of digits too long for a key, are sorted by the collator", async () => {
  const names = ["Edge-2", "edge-10", "édge-1", "edge_3", "EDGE-1", "edge-2"];
  assert.deepEqual(await sorted(names), oracle(names));
  const long = [`n-${"9".repeat(60)}`, `n-${"1".repeat(61)}`, "n-2"];
  assert.deepEqual(await sorted(long), oracle(long));
  await fc.assert(
    fc.asyncProperty(fc.array(fc.string({ maxLength: 8 }), { maxLength: 30 }), async (names) => {
      assert.deepEqual(await sorted(names), oracle(names));
    }),
    { numRuns: 500 },
  );
});

test("a long list is keyed a task's worth at a time, paused between", async () => {
  const names = Array.from({ length: KEYS_PER_TASK * 3 + 5 }, (_, i) => `edge-${(i * 7919) % 10_007}`);
  let pauses = 0;
  const out = await sortedByName(
    names,
    (n) => n,
    () => {
      pauses++;
      return Promise.resolve();
    },
  );
  assert.equal(pauses, 3);
  assert.deepEqual(out, oracle(names));
});

test("a short list sorted in one go (a view's groups) comes out in the same order, plain or not", () => {
  const now = (names: readonly string[]): string[] => sortedByNameNow(names, (n) => n);
  assert.deepEqual(now(["prod-10", "prod-9", "canary", "prod-9.1"]), ["canary", "prod-9", "prod-9.1", "prod-10"]);
  assert.deepEqual(now(["EU", "us", "eu-2", "eu-10"]), oracle(["EU", "us", "eu-2", "eu-10"]));
  // Plain lists (ordered by keys, not by the collator the oracle is), then lists that mix in names that are not plain.
  fc.assert(
    fc.property(fc.array(fc.stringMatching(/^[a-z0-9.-]{0,12}$/), { maxLength: 40 }), (names) => {
      assert.deepEqual(now(names), oracle(names));
    }),
    { numRuns: 1_000 },
  );
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.stringMatching(/^[a-z0-9.-]{0,8}$/), fc.string({ maxLength: 6 })), { maxLength: 30 }), (names) => {
      assert.deepEqual(now(names), oracle(names));
    }),
    { numRuns: 300 },
  );
});
