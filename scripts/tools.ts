// `npm run tools`: builds every upstream tool the tests and `fluxgate demo` need that is not cached yet, and prints what is used.
import { parseArgs } from "node:util";
import { HarnessError } from "../src/devenv/errors.ts";
import { cacheRoot } from "../src/devenv/paths.ts";
import { ensurePythonHolidays, PYTHON_HOLIDAYS_VERSION } from "../src/devenv/python-holidays.ts";
import { allTools, ensureFluxCrds, ensureImageAutomationCrd, ensureTools } from "../src/devenv/tools.ts";
import { ensureZoneData, runtimeZoneDataRelease } from "../src/devenv/zone-data.ts";
import type { ToolName } from "../src/devenv/tools.ts";

async function main(): Promise<void> {
  const { positionals } = parseArgs({ allowPositionals: true });
  const unknown = positionals.filter((p) => !(allTools as readonly string[]).includes(p));
  if (unknown.length > 0) {
    throw new HarnessError("UsageError", `unknown tool(s) ${unknown.join(", ")}; known: ${allTools.join(", ")}`);
  }
  const names = positionals.length > 0 ? (positionals as ToolName[]) : allTools;
  const started = Date.now();
  const tools = await ensureTools(names);
  const crds = await ensureFluxCrds();
  // Generated with controller-gen, so only when it is asked for (every tool, by default).
  const imageAutomationCrd = names.includes("controller-gen") ? await ensureImageAutomationCrd() : undefined;
  // The holiday freezes' oracle (a pip package, not a Go module): with every tool, by default.
  const pythonHolidays = positionals.length === 0 ? await ensurePythonHolidays() : undefined;
  // The zone data of this Node.js for the cron and RFC 5545 oracles (a pip package too).
  const zoneData = positionals.length === 0 ? await ensureZoneData() : undefined;
  process.stdout.write(`tools cache: ${cacheRoot()}\n`);
  for (const tool of Object.values(tools)) process.stdout.write(`  ${tool.name.padEnd(24)} ${tool.version.padEnd(9)} ${tool.path}\n`);
  process.stdout.write(`  Flux CRDs: ${crds.length} files in ${crds[0] === undefined ? "-" : crds[0].replace(/\/[^/]*$/, "")}\n`);
  if (imageAutomationCrd !== undefined) process.stdout.write(`  ImageUpdateAutomation CRD (generated): ${imageAutomationCrd}\n`);
  if (pythonHolidays !== undefined) process.stdout.write(`  ${"python holidays".padEnd(24)} ${PYTHON_HOLIDAYS_VERSION.padEnd(9)} ${pythonHolidays}\n`);
  if (zoneData !== undefined) process.stdout.write(`  ${"zone data".padEnd(24)} ${runtimeZoneDataRelease().padEnd(9)} ${zoneData}\n`);
  process.stdout.write(`done in ${((Date.now() - started) / 1000).toFixed(1)}s\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
