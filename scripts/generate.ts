// `npm run generate`: writes the CRDs in config/crd and charts/fluxgate/crds from the zod schemas in src/api; `--check` only reports files that differ.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { CHART_CRD_DIR, CRD_DIR, renderChartCrdFiles, renderCrdFiles } from "../src/api/crd.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

async function current(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { check: { type: "boolean" } } });
  const stale: string[] = [];
  const outputs: [string, Map<string, string>][] = [
    [CRD_DIR, renderCrdFiles()],
    [CHART_CRD_DIR, renderChartCrdFiles()],
  ];
  for (const [dir, name, content] of outputs.flatMap(([d, files]) => [...files].map(([n, c]) => [d, n, c] as const))) {
    const path = join(root, dir, name);
    if ((await current(path)) === content) continue;
    stale.push(join(dir, name));
    if (values.check === true) continue;
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  }
  if (values.check === true && stale.length > 0) {
    process.stderr.write(`out of date: ${stale.join(", ")}; run \`npm run generate\`\n`);
    process.exit(1);
  }
  process.stdout.write(stale.length === 0 ? "config/crd and charts/fluxgate/crds are up to date\n" : `wrote ${stale.join(", ")}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
