// Long loops of the event loop's thread (reading a commit of thousands of files) cut into short turns, so requests are answered between them.

import { inTurn } from "./engine-workers.ts";

/** How long one turn of a loop may hold the event loop, in milliseconds. */
export const SLICE_MS = 8;

/**
 * Calls `fn` on each item in order, in event-loop turns of about SLICE_MS each (queued with inTurn,
 * behind the answers ready to be copied), and returns what it returned, in order.
 *
 * @example const models = await inSlices(clusters, (c) => buildCluster(c, files, now, cache));
 */
export async function inSlices<T, R>(items: readonly T[], fn: (item: T, index: number) => R): Promise<R[]> {
  const out: R[] = [];
  let i = 0;
  while (i < items.length) {
    await inTurn(() => {
      const started = performance.now();
      do {
        out.push(fn(items[i] as T, i));
        i++;
      } while (i < items.length && performance.now() - started < SLICE_MS);
    });
  }
  return out;
}

/** Arrays longer than this are written a slice of items at a time by jsonInSlices. */
const LARGE_ARRAY = 256;

/**
 * JSON.stringify(value) for an answer made of plain objects, arrays and primitives (no replacer,
 * no indentation, no cycles), written in turns of the event loop: the items of each long array
 * (the 7,500 clusters of a fleet window) a slice at a time.
 *
 * @example await jsonInSlices({ commit, windows }) === JSON.stringify({ commit, windows })
 */
export async function jsonInSlices(value: unknown): Promise<string> {
  return (await jsonOf(value)) ?? "null";
}

async function jsonOf(value: unknown): Promise<string | undefined> {
  if (Array.isArray(value)) {
    const items: unknown[] = value;
    // Array.from, not map: a hole is written as null, as JSON.stringify writes it.
    const parts = items.length > LARGE_ARRAY ? await inSlices(items, (v) => JSON.stringify(v) ?? "null") : await Promise.all(Array.from(items, async (v) => (await jsonOf(v)) ?? "null"));
    return `[${parts.join(",")}]`;
  }
  // Objects with a toJSON (dates) and boxed primitives are written as JSON.stringify writes them.
  if (value !== null && typeof value === "object" && !("toJSON" in value) && !(value instanceof String || value instanceof Number || value instanceof Boolean)) {
    const parts: string[] = [];
    for (const [key, member] of Object.entries(value)) {
      const text = await jsonOf(member);
      if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${parts.join(",")}}`;
  }
  // undefined, a function or a symbol: left out of an object, null in an array (as JSON.stringify does).
  return JSON.stringify(value);
}
