// `fluxgate schedule preview` keeps V8's young generation at its first size, unless the user sizes it.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { promisify } from "node:util";

test("previewHeapFlags keeps the young generation small through many short-lived objects; a size the user gives is kept", async () => {
  const module = new URL("../../../src/cli/heap.ts", import.meta.url).href;
  const script = `
    import { getHeapSpaceStatistics } from "node:v8";
    const { previewHeapFlags } = await import(${JSON.stringify(module)});
    const set = previewHeapFlags(process.execArgv, process.env.NODE_OPTIONS);
    // Intervals made and written as a preview does: objects that live a moment, a window of them at a time.
    const window = [];
    for (let i = 0; i < 2e6; i++) { window.push({ start: i, end: i + 1, text: "x" + i }); if (window.length > 2e5) window.splice(0, 1e5); }
    const young = getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size;
    console.log(JSON.stringify({ set, youngMiB: young / 1048576 }));`;
  const child = async (nodeArgs: string[], nodeOptions = ""): Promise<{ set: string[]; youngMiB: number }> => {
    const { stdout } = await promisify(execFile)(process.execPath, [...nodeArgs, "--input-type=module", "-e", script], {
      env: { ...process.env, NODE_OPTIONS: nodeOptions },
    });
    return JSON.parse(stdout) as { set: string[]; youngMiB: number };
  };
  const byDefault = await child([]);
  assert.deepEqual(byDefault.set, ["--semi-space-growth-factor=1"]);
  // Kept at its first size: 2 MiB here (once 5.75 under load); V8 grows it to 64-128 MiB without the flag.
  assert.ok(byDefault.youngMiB <= 16, `the young generation stays small: ${byDefault.youngMiB} MiB`);
  const sized = await child([], "--max-semi-space-size=32");
  assert.deepEqual(sized.set, [], "the user's size is kept");
  assert.ok(sized.youngMiB > 16, `the user's young generation grows: ${sized.youngMiB} MiB`);
});

test("`fluxgate schedule preview -o json` keeps the young generation small; the table lets it grow (it keeps its rows to line them up)", async () => {
  const cli = new URL("../../../src/cli/main.ts", import.meta.url).pathname;
  // The young generation's size as the process exits, on stderr.
  const hook = `data:text/javascript,${encodeURIComponent(
    `import { getHeapSpaceStatistics } from "node:v8"; process.on("exit", () => process.stderr.write("young " + getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size / 1048576 + "\\n"));`,
  )}`;
  const youngMiB = async (args: string[]): Promise<number> => {
    const { stderr } = await promisify(execFile)(process.execPath, ["--import", hook, cli, "schedule", "preview", ...args], {
      env: { ...process.env, NODE_OPTIONS: "" },
      maxBuffer: 64 * 1024 * 1024,
    });
    return Number(/young ([\d.]+)/.exec(stderr)?.[1]);
  };
  const year = ["--from", "2026-01-01T00:00:00Z", "--to", "2027-01-01T00:00:00Z"];
  const json = await youngMiB(["--start", "*/2 * * * *", "--duration", "1m", ...year, "-o", "json"]);
  const table = await youngMiB(["--start", "*/2 * * * *", "--duration", "1m", ...year]);
  assert.ok(json <= 16, `a year's JSON: the young generation stays small (${json} MiB)`);
  assert.ok(table > json, `a year's table: the young generation grows (${table} MiB against ${json})`);
});
