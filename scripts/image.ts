// `npm run image:measure`: builds the Dockerfile with buildah on a local stand-in for its base, runs the image, and prints its size layer by layer.
//   npm run image:measure [-- --dockerfile FILE] [--tag NAME]

import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { HarnessError } from "../src/devenv/errors.ts";
import { BASE_IMAGE, ensureStandInBase, requireImageTools } from "../src/devenv/image-base.ts";
import { buildImage, checkImage, measureImage, type ImageLayer } from "../src/devenv/image.ts";
import { repoRoot } from "../src/devenv/paths.ts";

const mb = (bytes: number): string => (bytes / 1e6).toFixed(1);

/** A layer's step, short enough for a table row. */
function step(layer: ImageLayer): string {
  const text = layer.createdBy.replace(/\b(file|dir):[0-9a-f]{64} /g, "").replace(/\s+/g, " ");
  return `${layer.fromBase ? "base: " : ""}${text.length > 90 ? `${text.slice(0, 87)}...` : text}`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { dockerfile: { type: "string", default: "Dockerfile" }, tag: { type: "string", default: "localhost/fluxgate:measure" } },
  });
  const dockerfile = resolve(repoRoot, values.dockerfile);
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  await requireImageTools(false);
  const base = await ensureStandInBase(log);
  const v = base.kind === "stand-in" ? base.versions : undefined;
  process.stdout.write(
    v === undefined || base.kind !== "stand-in"
      ? `base: ${BASE_IMAGE} as found in buildah's local storage (not a stand-in)\n`
      : `base: ${BASE_IMAGE} is a local stand-in (no container registry is reached): Debian ${v.debian} minbase, slimmed as debian:${v.debian}-slim, ` +
          `with Node.js ${v.node}, npm ${v.npm}, corepack ${v.corepack} and yarn ${v.yarn} from the npm registry` +
          `${base.assembled ? ", assembled now" : ""}; cached as ${base.archive}\n`,
  );
  log(`building ${values.dockerfile} as ${values.tag}`);
  const seconds = await buildImage(dockerfile, values.tag);
  process.stdout.write(`built ${values.tag} from ${values.dockerfile} in ${seconds.toFixed(1)} s\n`);
  const checks = await checkImage(values.tag);
  process.stdout.write(
    `ran: \`version\` printed "${checks.version}"; \`controller --help\` ${checks.controllerHelp ? "printed the controller's usage" : "did NOT print the controller's usage"}; ` +
      `runs as ${checks.user}; ${checks.found.length === 0 ? "no shell, no npm, no package manager" : `has ${checks.found.join(", ")}`}\n`,
  );
  const size = await measureImage(values.tag);
  const rows = size.layers.map((l) => `| ${step(l).replaceAll("|", "\\|")} | ${mb(l.bytes)} | ${mb(l.gzipBytes)} |`);
  const own = size.layers.filter((l) => !l.fromBase);
  process.stdout.write(
    [
      "",
      "| layer | MB | MB gzip |",
      "|---|--:|--:|",
      ...rows,
      `| **the Dockerfile's own layers** | **${mb(own.reduce((a, l) => a + l.bytes, 0))}** | **${mb(own.reduce((a, l) => a + l.gzipBytes, 0))}** |`,
      `| **total** | **${mb(size.bytes)}** | **${mb(size.gzipBytes)}** |`,
      "",
    ].join("\n"),
  );
  process.stdout.write(
    `${JSON.stringify({ bench: "image.size", dockerfile: values.dockerfile, base: `${BASE_IMAGE}${v === undefined ? "" : " (stand-in)"}`, node: v?.node, layers: size.layers.length, bytes: size.bytes, gzipBytes: size.gzipBytes, buildSeconds: Number(seconds.toFixed(1)) })}\n`,
  );
  if (!checks.controllerHelp || !/^fluxgate \S+ \(node v/.test(checks.version)) {
    throw new HarnessError("ImageCheckFailed", "the image did not run as the fluxgate command (see above)");
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
