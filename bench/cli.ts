// CLI start-up benchmarks: how long `fluxgate __complete` (run by the shell on every TAB) and `fluxgate --help` take, and how many modules they load.

import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const CLI = new URL("../src/cli/main.ts", import.meta.url).pathname;

/** Records the modules a process loads (import and require), written out at exit. */
const RECORDER = `
import { registerHooks } from "node:module";
import { writeFileSync } from "node:fs";
const seen = [];
registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } });
process.on("exit", () => writeFileSync(process.env.LOADED_OUT, seen.join("\\n")));
`;

const CASES: Record<string, string[]> = {
  "cli.complete.command": ["__complete", "--", "st"],
  "cli.complete.output": ["__complete", "--", "status", "-o", ""],
  "cli.help": ["--help"],
  "cli.help.command": ["status", "--help"],
};

/** For each case: the median and range of `runs` wall-clock start-to-exit times, and the modules loaded (dependencies among them). */
export async function cliBenches(runs: number): Promise<object[]> {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-bench-cli-"));
  const out: object[] = [];
  try {
    const hook = join(dir, "record.mjs");
    await writeFile(hook, RECORDER);
    for (const [name, args] of Object.entries(CASES)) {
      const ms: number[] = [];
      for (let i = 0; i < runs; i++) {
        const started = performance.now();
        await run(process.execPath, [CLI, ...args]);
        ms.push(performance.now() - started);
      }
      const loaded = join(dir, "loaded.txt");
      await run(process.execPath, ["--import", hook, CLI, ...args], { env: { ...process.env, LOADED_OUT: loaded } });
      const modules = (await readFile(loaded, "utf8")).split("\n").filter((l) => l !== "");
      ms.sort((a, b) => a - b);
      out.push({
        name,
        runs,
        medianMs: Math.round(ms[Math.floor(ms.length / 2)] ?? 0),
        minMs: Math.round(ms[0] ?? 0),
        maxMs: Math.round(ms[ms.length - 1] ?? 0),
        modules: modules.length,
        dependencyModules: modules.filter((m) => m.includes("/node_modules/")).length,
      });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return out;
}
