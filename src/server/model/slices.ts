// Long loops of the event loop's thread (reading a commit of thousands of files) cut into short turns, so requests are answered between them.

import { inTurn } from "../engine/workers.ts";

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

/** Arrays longer than this are written a slice of items at a time by jsonInSlices, each item in one piece. */
const LARGE_ARRAY = 256;

interface JsonState {
  /** When the current turn began. */
  since: number;
  /** The objects and arrays being written, outermost first: one met again is a cycle. */
  open: Set<object>;
}

/**
 * JSON.stringify(value) (no replacer, no indentation), written in turns of the event loop of about
 * SLICE_MS each: the items of each long array (the 7,500 clusters of a fleet window) a slice at a
 * time, and the rest member by member, giving the loop a turn when one has lasted SLICE_MS.
 * A toJSON is called with its member's key or item's index, and a cycle is a TypeError, as
 * JSON.stringify does; a value that writes nothing (undefined) is written "null".
 *
 * @example await jsonInSlices({ commit, windows }) === JSON.stringify({ commit, windows })
 */
export async function jsonInSlices(value: unknown): Promise<string> {
  return (await jsonOf(value, "", { since: performance.now(), open: new Set() })) ?? "null";
}

/** The JSON of `value` as JSON.stringify writes a member `key` of its holder (undefined: left out). */
async function jsonOf(value: unknown, key: string, state: JsonState): Promise<string | undefined> {
  if ((typeof value === "object" && value !== null) || typeof value === "bigint") {
    const toJSON: unknown = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") value = (toJSON as (key: string) => unknown).call(value, key);
  }
  // Primitives, and boxed ones, are JSON.stringify's own (undefined, a function or a symbol: undefined).
  if (value === null || typeof value !== "object" || value instanceof String || value instanceof Number || value instanceof Boolean)
    return JSON.stringify(value);
  if (state.open.has(value)) throw new TypeError("Converting circular structure to JSON");
  if (performance.now() - state.since > SLICE_MS) {
    await inTurn(() => undefined);
    state.since = performance.now();
  }
  state.open.add(value);
  try {
    if (Array.isArray(value)) {
      const items: unknown[] = value;
      if (items.length > LARGE_ARRAY) {
        const written = await inSlices(items, (item, i) => itemJson(item, i) ?? "null");
        state.since = performance.now();
        return `[${written.join(",")}]`;
      }
      const written: string[] = [];
      // By index, not for-of or map: a hole is written as null, as JSON.stringify writes it.
      for (let i = 0; i < items.length; i++) written.push((await jsonOf(items[i], String(i), state)) ?? "null");
      return `[${written.join(",")}]`;
    }
    const parts: string[] = [];
    for (const [name, member] of Object.entries(value)) {
      const text = await jsonOf(member, name, state);
      if (text !== undefined) parts.push(`${JSON.stringify(name)}:${text}`);
    }
    return `{${parts.join(",")}}`;
  } finally {
    state.open.delete(value);
  }
}

/** JSON.stringify of the item at `index` of an array in one piece, its toJSON called with the index as JSON.stringify calls it. */
function itemJson(item: unknown, index: number): string | undefined {
  const key = String(index);
  const text = JSON.stringify({ [key]: item });
  // `{"<index>":<item>}`, or `{}` when the item writes nothing.
  return text === "{}" ? undefined : text.slice(key.length + 4, -1);
}
