// Long output written as it is made: lines gathered into chunks, each written when the stream takes more.

import { once } from "node:events";

const CHUNK = 64 * 1024;
/** UTF-16 units of lines joined before they are encoded into the chunk. */
const PENDING = 4 * 1024;

/**
 * Writes each line and a newline to `out`, in chunks of about 64 KiB, waiting whenever the stream
 * asks to. A chunk is a Buffer the lines are encoded into as they come, a few dozen at a time (up to
 * PENDING UTF-16 units joined, then encoded in one call: one call a line was a tenth of a year's table,
 * docs/performance-history.md); never the whole output as one string, which keeps every line it was
 * made of alive until it is written: a year of a preview (23 MB) had the garbage collector copy them
 * over and over (40 % of the command's time).
 */
export async function writeLines(out: NodeJS.WritableStream, lines: Iterable<string>): Promise<void> {
  let chunk = Buffer.allocUnsafe(CHUNK);
  let used = 0;
  const flush = async (): Promise<void> => {
    const full = chunk.subarray(0, used);
    // The stream keeps the chunk until it is written: the next lines go into a new one.
    chunk = Buffer.allocUnsafe(CHUNK);
    used = 0;
    if (!out.write(full)) await once(out, "drain");
  };
  let pending = "";
  const put = async (text: string): Promise<void> => {
    // At most 3 bytes a UTF-16 unit in UTF-8.
    const most = text.length * 3;
    if (used + most > chunk.length) {
      if (used > 0) await flush();
      if (most > chunk.length) chunk = Buffer.allocUnsafe(most);
    }
    used += chunk.write(text, used, "utf8");
  };
  for (const line of lines) {
    pending += `${line}\n`;
    if (pending.length >= PENDING) {
      await put(pending);
      pending = "";
    }
  }
  if (pending !== "") await put(pending);
  if (used > 0) await flush();
}
