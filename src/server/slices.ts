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
