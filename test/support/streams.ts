// Streams for tests of output written in chunks.

import { Writable } from "node:stream";

/** A stream that takes each chunk slowly: its buffer fills, write() returns false and the writer must wait for 'drain'. */
export function slowSink(): { stream: Writable; chunks: Buffer[] } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      setImmediate(done);
    },
  });
  return { stream, chunks };
}
