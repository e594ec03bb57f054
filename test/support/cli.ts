// The in-process CLI runner: `fluxgate ARGS` run by the same entry as the binary, its output captured.

import { Writable } from "node:stream";
import { main } from "../../src/cli/main.ts";

/** What a run of `fluxgate` did: its exit code and everything it wrote. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A stream that keeps what is written to it. */
export function sink(): { stream: Writable; text: () => string } {
  let text = "";
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

/**
 * Runs `fluxgate ARGS` in this process, as the binary would, and returns its exit code and output.
 *
 * @example const r = await fluxgate("schedule", "preview", "--start", "0 8 * * MON", "--duration", "2h"); assert.equal(r.code, 0);
 */
export async function fluxgate(...args: string[]): Promise<Run> {
  const out = sink();
  const err = sink();
  const code = await main(args, out.stream, err.stream);
  return { code, stdout: out.text(), stderr: err.text() };
}
