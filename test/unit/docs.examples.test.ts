// Every `$ fluxgate ...` example in README.md and docs/*.md runs, and prints exactly what the page shows.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { mock, test } from "node:test";
import { Writable } from "node:stream";
import { main } from "../../src/cli/main.ts";
import { shellWords } from "./shell-words.ts";

const ROOT = new URL("../../", import.meta.url);

interface Example {
  file: string;
  line: number;
  command: string;
  expected: string;
  /** The instant the example runs at (epoch ms), when the page says so with `<!-- example-time: RFC 3339 -->` right above its block. */
  now: number | null;
}

/** `<!-- example-time: 2026-12-23T09:00:00Z -->`: the examples of the next console block run with the clock at that instant. */
const EXAMPLE_TIME = /<!-- example-time: (\S+) -->\s*$/;

function examples(file: string): Example[] {
  const text = readFileSync(new URL(file, ROOT), "utf8");
  const out: Example[] = [];
  const blocks = text.matchAll(/^```console\n([\s\S]*?)^```$/gm);
  for (const block of blocks) {
    const startLine = text.slice(0, block.index).split("\n").length + 1;
    const time = EXAMPLE_TIME.exec(text.slice(0, block.index));
    const now = time === null ? null : Date.parse(time[1] as string);
    const lines = (block[1] as string).split("\n");
    lines.pop();
    let current: Example | null = null;
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i] as string;
      if (l.startsWith("$ ")) {
        if (current) out.push(current);
        let command = l.slice(2);
        while (command.endsWith("\\") && i + 1 < lines.length) command += `\n${lines[++i]}`;
        current = { file, line: startLine + i, command, expected: "", now };
      } else if (current) {
        current.expected += `${l}\n`;
      }
    }
    if (current) out.push(current);
  }
  return out;
}

const files = [
  "README.md",
  ...readdirSync(new URL("docs/", ROOT))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
// curl examples call a running Config Service: test/integration/server/docs.curl.test.ts runs them.
// Shell variable lines (`EVENT='...'`) set what those curl examples use.
const all = files.flatMap(examples).filter((ex) => !ex.command.startsWith("curl ") && !/^[A-Z_][A-Z0-9_]*=/.test(ex.command));

test("the documentation has examples to check", () => {
  assert.ok(all.length >= 5, `found ${all.length} examples`);
});

for (const ex of all) {
  test(`${ex.file}:${ex.line}: ${ex.command.split("\n")[0]}`, async () => {
    const words = shellWords(ex.command);
    assert.equal(words[0], "fluxgate", "examples run the fluxgate command");
    let output = "";
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        output += chunk.toString();
        done();
      },
    });
    // Only Date is set: timers, child processes and the file system run as ever.
    if (ex.now !== null) mock.timers.enable({ apis: ["Date"], now: ex.now });
    try {
      await main(words.slice(1), sink, sink);
    } finally {
      if (ex.now !== null) mock.timers.reset();
    }
    assert.equal(output, ex.expected);
  });
}
