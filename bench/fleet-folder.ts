// A fleet freeze of the canary ring (a quarter of the fleet) as one commit, in the fleet folder and in the per-cluster layout: the files and lines it changes,
// the time to plan and write it, and the time git takes to commit it.

import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { fleetFreeze } from "../src/cli/fleet-freeze.ts";
import { writeGeneratedFleet } from "../src/devenv/generated-fleet.ts";
import { ensureTool } from "../src/devenv/tools.ts";
import type { BenchLine } from "./schedule.ts";

const run = promisify(execFile);
const seconds = (start: bigint): number => Math.round((Number(process.hrtime.bigint() - start) / 1e9) * 100) / 100;

async function git(dir: string, ...args: string[]): Promise<string> {
  const { stdout } = await run("git", ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "-c", "gc.auto=0", ...args], {
    cwd: dir,
    maxBuffer: 256 * 1024 * 1024,
  });
  return stdout;
}

/**
 * One line per layout and fleet size: `files` and `lines` of the commit (git diff --numstat),
 * `planSeconds` (the command: plan and write), `commitSeconds` (git add and commit), and the load.
 */
export async function fleetFolderBenches(sizes: readonly number[], perClusterSizes: readonly number[]): Promise<BenchLine[]> {
  const kustomize = (await ensureTool("kustomize", () => undefined)).path;
  const out: BenchLine[] = [];
  const cases = [...sizes.map((n) => ({ n, layout: "folder" as const })), ...perClusterSizes.map((n) => ({ n, layout: "fleet" as const }))];
  for (const { n, layout } of cases) {
    const dir = await mkdtemp(join(tmpdir(), "fluxgate-bench-fleet-folder-"));
    try {
      await writeGeneratedFleet(dir, n, { windows: layout });
      const now = Date.UTC(2026, 11, 23, 9);
      let start = process.hrtime.bigint();
      await fleetFreeze({
        repo: dir,
        selector: "ring=canary",
        for: "48h",
        reason: "canary incident",
        name: "canary-incident",
        windows: [],
        dryRun: false,
        kustomize,
        env: process.env,
        now,
      });
      const planSeconds = seconds(start);
      start = process.hrtime.bigint();
      await git(dir, "add", "--all");
      await git(dir, "commit", "--quiet", "-m", "freeze the canary ring");
      const commitSeconds = seconds(start);
      const rows = (await git(dir, "diff", "--numstat", "HEAD~1", "HEAD")).trim().split("\n");
      const lines = rows.reduce((sum, r) => sum + Number(r.split("\t")[0]) + Number(r.split("\t")[1]), 0);
      out.push({
        bench: `fleet.freeze.${layout === "folder" ? "folder" : "per-cluster"}`,
        clusters: n,
        frozen: Math.ceil(n / 4),
        files: rows.length,
        lines,
        planSeconds,
        commitSeconds,
        load1: Math.round((loadavg()[0] ?? 0) * 10) / 10,
      });
    } finally {
      await rm(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  }
  return out;
}
