// Long output written as it is made: lines gathered into chunks, each written when the stream takes more.

import { once } from "node:events";

const CHUNK = 64 * 1024;

/**
 * Writes each line and a newline to `out`, in chunks of about 64 KiB, waiting whenever the stream
 * asks to. A chunk is a Buffer each line is encoded into as it comes, not a string the lines are
 * joined onto: a joined string keeps every line it was made of alive until it is written, and a year
 * of a preview (23 MB) had the garbage collector copy them over and over (40 % of the command's time).
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
  for (const line of lines) {
    // At most 3 bytes a UTF-16 unit in UTF-8, and the newline.
    const most = line.length * 3 + 1;
    if (used + most > chunk.length) {
      if (used > 0) await flush();
      if (most > chunk.length) chunk = Buffer.allocUnsafe(most);
    }
    used += chunk.write(line, used, "utf8");
    chunk[used++] = 0x0a;
  }
  if (used > 0) await flush();
}
