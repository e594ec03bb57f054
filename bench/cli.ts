// CLI benchmarks: how long `fluxgate __complete` (run by the shell on every TAB) and `fluxgate --help` take, and how many modules they load;
// and three long `fluxgate schedule preview`s, each as a user runs it: the installed package (dist/, compiled as `npm run build` does), output to
// /dev/null: wall time and peak memory.

import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, openSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";

import { buildCli } from "../scripts/bundle.ts";

const run = promisify(execFile);

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
  "cli.version": ["--version"],
};

/** Writes the process's peak resident memory (KiB) to PEAK_OUT at exit. */
const PEAK = `
import { writeFileSync } from "node:fs";
process.on("exit", () => writeFileSync(process.env.PEAK_OUT, String(process.resourceUsage().maxRSS)));
`;

/** A window open every minute of the day but the first ten of each hour (an hourly freeze). */
const MINUTES_WITH_HOURLY_FREEZE = `apiVersion: fluxgate.io/v1alpha1
kind: ReconciliationWindow
metadata: {name: minutes}
spec:
  timeZone: UTC
  schedules: [{start: "* * * * *", duration: 1m}]
  freezes: [{start: "0 * * * *", duration: 10m, reason: hourly freeze}]
  targets: [{kind: Kustomization, name: apps}]
`;

/** A window open for a minute every two minutes, in a zone with summer time: the table of a year has 262,800 rows of four times each. */
const EVERY_TWO_MINUTES_BERLIN = `apiVersion: fluxgate.io/v1alpha1
kind: ReconciliationWindow
metadata: {name: every-2-min}
spec:
  timeZone: Europe/Berlin
  schedules: [{start: "*/2 * * * *", duration: 1m}]
  targets: [{kind: Kustomization, name: apps}]
`;

const YEAR = ["--from", "2026-01-01T00:00:00Z", "--to", "2027-01-01T00:00:00Z"];
const HOUR_END = "2026-01-01T01:00:00Z";

/**
 * The previews: a year of 1-minute intervals every 2 minutes as JSON (262,800 intervals, 23 MB), the table of a year of a minute-level window with an
 * hourly freeze, and the table of a year of 1-minute intervals every 2 minutes in Berlin (262,800 rows, 26 MB).
 */
function previewCases(windowFile: string, everyTwoMinutesFile: string): Record<string, string[]> {
  return {
    "cli.preview.json.year-every-2-min": ["schedule", "preview", "--start", "*/2 * * * *", "--duration", "1m", ...YEAR, "-o", "json"],
    "cli.preview.table.year-minutes-hourly-freeze": ["schedule", "preview", "--file", windowFile, ...YEAR],
    "cli.preview.table.year-every-2-min-berlin": ["schedule", "preview", "--file", everyTwoMinutesFile, ...YEAR],
  };
}

/** Runs the CLI with stdout to /dev/null; its wall time and peak memory. */
async function timed(cli: string, args: string[], peakFile: string, hook: string): Promise<{ ms: number; rssMiB: number }> {
  const devNull = openSync("/dev/null", "w");
  try {
    const started = performance.now();
    const child = spawn(process.execPath, ["--import", hook, cli, ...args], {
      stdio: ["ignore", devNull, "inherit"],
      env: { ...process.env, PEAK_OUT: peakFile },
    });
    const [code] = (await once(child, "exit")) as [number | null];
    const ms = performance.now() - started;
    if (code !== 0) throw new Error(`fluxgate ${args.join(" ")}: exit ${code}`);
    return { ms, rssMiB: Number(await readFile(peakFile, "utf8")) / 1024 };
  } finally {
    closeSync(devNull);
  }
}

/**
 * For each preview: the median and range of `runs` wall times, the median net of start-up (the same
 * command over an hour), the highest peak memory, and the load average beside them (the machine may be shared).
 */
export async function cliPreviewBenches(runs: number): Promise<object[]> {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-bench-preview-"));
  const cli = await buildCli();
  const out: object[] = [];
  try {
    const hook = join(dir, "peak.mjs");
    const windowFile = join(dir, "minutes.yaml");
    const everyTwoMinutesFile = join(dir, "every-2-min.yaml");
    await writeFile(hook, PEAK);
    await writeFile(windowFile, MINUTES_WITH_HOURLY_FREEZE);
    await writeFile(everyTwoMinutesFile, EVERY_TWO_MINUTES_BERLIN);
    for (const [name, args] of Object.entries(previewCases(windowFile, everyTwoMinutesFile))) {
      // Start-up: the same command over an hour (the process, its modules, the window read and checked).
      const hour = args.map((a) => (a === YEAR[3] ? HOUR_END : a));
      const startup: number[] = [];
      for (let i = 0; i < runs; i++) startup.push((await timed(cli.main, hour, join(dir, "peak"), hook)).ms);
      startup.sort((a, b) => a - b);
      const startupMs = startup[Math.floor(startup.length / 2)] ?? 0;
      const ms: number[] = [];
      const rss: number[] = [];
      for (let i = 0; i < runs; i++) {
        const r = await timed(cli.main, args, join(dir, "peak"), hook);
        ms.push(r.ms);
        rss.push(r.rssMiB);
      }
      ms.sort((a, b) => a - b);
      rss.sort((a, b) => a - b);
      const medianMs = ms[Math.floor(ms.length / 2)] ?? 0;
      out.push({
        name,
        runs,
        medianMs: Math.round(medianMs),
        minMs: Math.round(ms[0] ?? 0),
        maxMs: Math.round(ms[ms.length - 1] ?? 0),
        netOfStartupMs: Math.round(medianMs - startupMs),
        startupMs: Math.round(startupMs),
        maxRssMiB: Math.round(rss[rss.length - 1] ?? 0),
        load: loadavg().map((l) => Math.round(l * 10) / 10),
      });
    }
  } finally {
    await cli.remove();
    await rm(dir, { recursive: true, force: true });
  }
  return out;
}

/** For each case: the median and range of `runs` wall-clock start-to-exit times, and the modules loaded (dependencies among them). */
export async function cliBenches(runs: number): Promise<object[]> {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-bench-cli-"));
  const cli = await buildCli();
  const builtUrl = pathToFileURL(dirname(dirname(cli.main))).href;
  const out: object[] = [];
  try {
    const hook = join(dir, "record.mjs");
    await writeFile(hook, RECORDER);
    for (const [name, args] of Object.entries(CASES)) {
      const ms: number[] = [];
      for (let i = 0; i < runs; i++) {
        const started = performance.now();
        await run(process.execPath, [cli.main, ...args]);
        ms.push(performance.now() - started);
      }
      const loaded = join(dir, "loaded.txt");
      await run(process.execPath, ["--import", hook, cli.main, ...args], { env: { ...process.env, LOADED_OUT: loaded } });
      const modules = (await readFile(loaded, "utf8")).split("\n").filter((l) => l !== "");
      ms.sort((a, b) => a - b);
      out.push({
        name,
        runs,
        medianMs: Math.round(ms[Math.floor(ms.length / 2)] ?? 0),
        minMs: Math.round(ms[0] ?? 0),
        maxMs: Math.round(ms[ms.length - 1] ?? 0),
        modules: modules.length,
        // The build itself sits under node_modules/.cache (buildCli): only what is outside it is a dependency.
        dependencyModules: modules.filter((m) => m.includes("/node_modules/") && !m.startsWith(builtUrl)).length,
      });
    }
  } finally {
    await cli.remove();
    await rm(dir, { recursive: true, force: true });
  }
  return out;
}
