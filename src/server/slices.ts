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
 * JSON.stringify(value) (no replacer, no indentation), written in turns of the event loop: the
 * items of a long array (the 7,500 clusters of a fleet window) a slice at a time, so a large
 * answer is never made in one piece.
 *
 * @example await jsonInSlices({ commit, windows }) === JSON.stringify({ commit, windows })
 */
export async function jsonInSlices(value: unknown): Promise<string> {
  return (await jsonOf(value)) ?? "null";
}

async function jsonOf(value: unknown): Promise<string | undefined> {
  if (Array.isArray(value)) {
    const items: unknown[] = value;
    const parts = items.length > LARGE_ARRAY ? await inSlices(items, (v) => JSON.stringify(v) ?? "null") : await Promise.all(items.map(async (v) => (await jsonOf(v)) ?? "null"));
    return `[${parts.join(",")}]`;
  }
  if (value !== null && typeof value === "object" && !("toJSON" in value)) {
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
