// A generated fleet with fleet windows (src/devenv/generated-fleet.ts) committed in a real Git repository, and a kustomize runner on the tool the harness builds.

import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { generatedFleetFiles } from "../../src/devenv/generated-fleet.ts";
import { ensureTool } from "../../src/devenv/tools.ts";
import { KustomizeRunner } from "../../src/gitops/kustomize.ts";
import { git } from "./server.ts";

/** Writes a generated fleet of `clusters` clusters into `dir` and commits it (fixed dates: the same commit at every run). */
export async function writeGeneratedFleet(dir: string, clusters: number): Promise<void> {
  for (const [path, text] of generatedFleetFiles(clusters, { windows: "fleet" })) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  await git(dir, "init", "--quiet", "--initial-branch=main");
  await git(dir, "add", "--all");
  await git(dir, "commit", "--quiet", "-m", "Generated fleet");
}

/** A runner of the real kustomize (built by npm run tools when missing), and its path. */
export async function kustomizeRunner(): Promise<{ runner: KustomizeRunner; path: string }> {
  const path = (await ensureTool("kustomize")).path;
  return { runner: new KustomizeRunner({ file: path, args: ["build"], label: "kustomize", origin: "test" }), path };
}
