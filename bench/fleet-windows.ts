// Fleet windows over a generated fleet with the real kustomize: adding one, rendering every cluster's effective windows, planning a fleet freeze.

import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fleetWindowAdd } from "../src/cli/fleet-windows.ts";
import { ensureTool } from "../src/devenv/tools.ts";
import { FleetWindows } from "../src/gitops/fleet/effective.ts";
import { planFleetOverrideOn } from "../src/gitops/fleet/plan.ts";
import type { BenchLine } from "./schedule.ts";

const ZONES = ["Europe/Berlin", "Europe/Paris", "America/New_York", "Asia/Tokyo"];
const RINGS = ["canary", "prod", "prod", "prod"];

/**
 * N clusters labelled by ring and region, each with a window of its own (no two alike, so no
 * cluster's windows folder is answered from another's build: the worst case for the cache); three
 * quarters include the fleet window `prod-changes`, a quarter patch it (their zone).
 */
function files(clusters: number): Map<string, string> {
  const out = new Map<string, string>();
  const entries = Array.from(
    { length: clusters },
    (_, c) => `  - {name: edge-${c}, path: clusters/edge-${c}, timeZone: UTC, labels: {ring: ${RINGS[c % 4]}, region: r${c % 10}}}`,
  );
  out.set("fluxgate.yaml", `apiVersion: fluxgate.io/v1alpha1\nkind: Repository\ntypes:\n  - {name: rw, window: true}\nclusters:\n${entries.join("\n")}\n`);
  out.set("fleet/windows/prod-changes/kustomization.yaml", "resources: [prod-changes.yaml]\n");
  out.set(
    "fleet/windows/prod-changes/prod-changes.yaml",
    `apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata:\n  name: prod-changes\n  namespace: flux-system\n  labels: {fluxgate.io/fleet-window: prod-changes}\n  annotations: {fluxgate.io/fleet-selector: ring=prod}\nspec:\n  timeZone: Europe/Berlin\n  schedules: [{start: "0 8 * * MON-THU", end: "0 17 * * MON-THU"}]\n  targets: [{kind: Kustomization, name: apps-rw}]\n`,
  );
  for (let c = 0; c < clusters; c++) {
    const dir = `clusters/edge-${c}/windows`;
    const prod = RINGS[c % 4] === "prod";
    const patch =
      prod && c % 4 === 1
        ? `patches:\n  - target: {kind: ReconciliationWindow, name: prod-changes}\n    patch: |\n      - {op: add, path: /spec/timeZone, value: ${ZONES[c % ZONES.length]}}\n`
        : "";
    out.set(`${dir}/kustomization.yaml`, `resources:\n  - apps-rt.yaml\n${prod ? "  - ../../../fleet/windows/prod-changes\n" : ""}${patch}`);
    out.set(
      `${dir}/apps-rt.yaml`,
      `apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata: {name: apps-rt, namespace: flux-system, annotations: {example.com/site: edge-${c}}}\nspec:\n  schedules: [{start: "0 * * * *", duration: 30m}]\n  targets: [{kind: Kustomization, name: apps-rt}]\n`,
    );
  }
  return out;
}

const seconds = (start: bigint): number => Math.round((Number(process.hrtime.bigint() - start) / 1e9) * 100) / 100;

/** One line per fleet size: seconds to add a fleet window, to render every cluster's windows, to plan a fleet freeze of a tenth of the fleet. */
export async function fleetWindowBenches(sizes: readonly number[]): Promise<BenchLine[]> {
  const kustomize = (await ensureTool("kustomize", () => undefined)).path;
  const out: BenchLine[] = [];
  for (const clusters of sizes) {
    const dir = await mkdtemp(join(tmpdir(), "fluxgate-bench-fleet-windows-"));
    try {
      for (const [path, text] of files(clusters)) {
        await mkdir(dirname(join(dir, path)), { recursive: true });
        await writeFile(join(dir, path), text);
      }
      const now = Date.UTC(2026, 10, 24);
      let start = process.hrtime.bigint();
      await fleetWindowAdd({
        repo: dir,
        name: "eu-nightly",
        selector: "region in (r0,r1)",
        start: "0 22 * * *",
        duration: "2h",
        targets: ["Kustomization/apps-rw"],
        dryRun: false,
        now,
      });
      const add = seconds(start);
      const fleet = await FleetWindows.open(dir, { kustomize, env: process.env });
      try {
        start = process.hrtime.bigint();
        const rendered = await Promise.all((fleet.repository?.clusters ?? []).map((c) => fleet.of(c, now)));
        const render = seconds(start);
        const windows = rendered.reduce((n, r) => n + r.windows.length, 0);
        if (rendered.some((r) => r.error !== null)) throw new Error(`benchmark fleet does not build: ${rendered.find((r) => r.error !== null)?.error ?? ""}`);
        start = process.hrtime.bigint();
        const plan = await planFleetOverrideOn(fleet, "region=r3", { name: "stop", action: "Freeze", until: now + 3_600_000, reason: "bench", now });
        const freeze = seconds(start);
        out.push({
          bench: "fleet.windows",
          clusters,
          windows,
          addSeconds: add,
          renderSeconds: render,
          builds: fleet.runner.builds,
          cacheHits: fleet.cacheHits,
          freezePlanSeconds: freeze,
          freezeOverrides: plan.overrides.length,
          cpus: availableParallelism(),
        });
      } finally {
        await fleet.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return out;
}
