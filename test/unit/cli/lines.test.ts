// writeLines: long output in chunks, byte for byte what the lines say, with the stream's back-pressure.

import assert from "node:assert/strict";
import { test } from "node:test";
import { writeLines } from "../../../src/cli/format/lines.ts";
import { slowSink } from "../../support/streams.ts";

test("every line and its newline arrive in order, byte for byte, multi-byte characters and lines longer than a chunk included", async () => {
  const lines = [
    ...Array.from({ length: 20_000 }, (_, i) => `line ${i} → Mon 2026-11-23 08:00 CET ✓ 日本`),
    "x".repeat(200_000),
    "",
    "😀".repeat(40_000),
    "end",
  ];
  const { stream, chunks } = slowSink();
  await writeLines(stream, lines);
  const written = Buffer.concat(chunks);
  assert.equal(written.toString("utf8"), lines.map((l) => `${l}\n`).join(""));
  assert.ok(chunks.length > 10, `written in ${chunks.length} chunks, not at once`);
  // Each chunk but those holding a line longer than a chunk stays near 64 KiB.
  assert.ok(chunks.filter((c) => c.length > 64 * 1024).length <= 2, "only the long lines make a chunk over 64 KiB");
});

test("nothing to write writes nothing", async () => {
  const { stream, chunks } = slowSink();
  await writeLines(stream, []);
  assert.equal(chunks.length, 0);
});
