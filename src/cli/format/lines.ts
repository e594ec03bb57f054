// Long output written as it is made: lines gathered into chunks, each written when the stream takes more.

import { once } from "node:events";

const CHUNK = 64 * 1024;

/** Writes each line and a newline to `out`, in chunks of about 64 KiB, waiting whenever the stream asks to. */
export async function writeLines(out: NodeJS.WritableStream, lines: Iterable<string>): Promise<void> {
  let chunk = "";
  for (const line of lines) {
    chunk += `${line}\n`;
    if (chunk.length < CHUNK) continue;
    if (!out.write(chunk)) await once(out, "drain");
    chunk = "";
  }
  if (chunk !== "" && !out.write(chunk)) await once(out, "drain");
}
