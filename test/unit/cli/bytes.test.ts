// ByteChunks: times written byte by byte as rfc3339Exact writes them, text in UTF-8, chunks handed on as they fill.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { ascii, ByteChunks, writeChunks } from "../../../src/cli/format/bytes.ts";
import { rfc3339Exact } from "../../../src/schedule/format.ts";
import { slowSink } from "../../support/streams.ts";

const EDGE = 8.64e15;

test("a time's bytes are rfc3339Exact's: any millisecond of a Date's range, before 1970, the edges, a fraction of one", () => {
  const instants = fc.oneof(
    fc.integer({ min: -EDGE, max: EDGE }),
    fc.integer({ min: Date.parse("2020-01-01T00:00:00Z"), max: Date.parse("2030-01-01T00:00:00Z") }),
    fc.constantFrom(-EDGE, EDGE, -1, 0, 1, -86_400_000, 253_402_300_799_999, 253_402_300_800_000, 1.5, -0.25),
  );
  fc.assert(
    fc.property(fc.array(instants, { minLength: 1, maxLength: 20 }), (ts) => {
      const out = new ByteChunks();
      for (const t of ts) {
        out.time(t);
        out.text(" ");
      }
      assert.equal(out.take().toString("latin1"), ts.map((t) => `${rfc3339Exact(t)} `).join(""));
    }),
    { seed: 20261201, numRuns: 2000 },
  );
});

test("chunks are handed on as they fill, text longer than a chunk included, and arrive byte for byte with the stream's back-pressure", async () => {
  const out = new ByteChunks();
  const parts: Uint8Array[] = [];
  const expected: string[] = [];
  const line = ascii(`"\n    end: "`);
  for (let i = 0; i < 50_000; i++) {
    const t = Date.parse("2026-03-29T00:00:00Z") + i * 60_500;
    out.bytes(line);
    out.time(t);
    out.text(i % 1000 === 0 ? "→ 日本 😀\n" : "\n");
    expected.push(`"\n    end: "${rfc3339Exact(t)}${i % 1000 === 0 ? "→ 日本 😀\n" : "\n"}`);
    if (out.full) parts.push(out.take());
  }
  const long = "x".repeat(200_000);
  out.text(long);
  expected.push(long);
  parts.push(out.take());
  assert.ok(parts.length > 20, `${parts.length} chunks`);
  assert.ok(
    parts.slice(0, -1).every((p) => p.length <= 64 * 1024),
    "each chunk but the one holding the long text stays within 64 KiB",
  );

  const { stream: slow, chunks: received } = slowSink();
  await writeChunks(slow, parts);
  assert.equal(Buffer.concat(received).toString("utf8"), expected.join(""));
  // Nothing, and an empty chunk, write nothing.
  received.length = 0;
  await writeChunks(slow, [new Uint8Array(0)]);
  assert.equal(received.length, 0);
});
