// A generated fleet repository of any size, for the dashboard's browser tests and benchmarks: labelled clusters in four zones, three windows each.

import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Zones and the region label that goes with each; Berlin and New York change their clocks, Tokyo and UTC do not. */
const SITES = [
  { zone: "Europe/Berlin", region: "eu" },
  { zone: "America/New_York", region: "us" },
  { zone: "Asia/Tokyo", region: "ap" },
  { zone: "UTC", region: "eu" },
] as const;

/** The name, zone and labels of cluster `i`: every tenth is ring canary, the others ring prod. */
export function generatedCluster(i: number): { name: string; zone: string; labels: { region: string; ring: string } } {
  const site = SITES[i % SITES.length] as (typeof SITES)[number];
  return { name: `edge-${site.region}-${i}`, zone: site.zone, labels: { region: site.region, ring: i % 10 === 0 ? "canary" : "prod" } };
}

function kustomization(name: string, type: string, path: string): string {
  return `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\n  labels: {fluxgate.io/type: ${type}}\nspec:\n  interval: 10m\n  path: ./${path}\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n`;
}

/**
 * The files of a fleet of `clusters` clusters. Each has two Flux Kustomizations (apps-rt, apps-rw)
 * and three windows: weekdays 08:00-17:00 with a Friday freeze and the holiday freeze (apps-rw),
 * nightly 22:00 for 2 hours (apps-rw), Sunday maintenance 02:00 for 4 hours (apps-rt).
 */
export function generatedFleetFiles(clusters: number): Map<string, string> {
  const files = new Map<string, string>();
  const entries = Array.from({ length: clusters }, (_, i) => {
    const k = generatedCluster(i);
    return `  - {name: ${k.name}, path: clusters/${k.name}, timeZone: ${k.zone}, labels: {region: ${k.labels.region}, ring: ${k.labels.ring}}}`;
  });
  files.set("fluxgate.yaml", `apiVersion: fluxgate.io/v1alpha1\nkind: Repository\ntypes:\n  - {name: rt, window: false}\n  - {name: rw, window: true}\nclusters:\n${entries.join("\n")}\n`);
  for (let i = 0; i < clusters; i++) {
    const k = generatedCluster(i);
    const dir = `clusters/${k.name}`;
    files.set(`${dir}/apps-rt.yaml`, kustomization("apps-rt", "rt", `deploy/${k.name}/rt`));
    files.set(`${dir}/apps-rw.yaml`, kustomization("apps-rw", "rw", `deploy/${k.name}/rw`));
    files.set(`${dir}/windows/kustomization.yaml`, "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - apps-rw.yaml\n  - nightly.yaml\n  - maintenance.yaml\n");
    const window = (name: string, spec: string): string => `apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  timeZone: ${k.zone}\n${spec}`;
    files.set(
      `${dir}/windows/apps-rw.yaml`,
      window(
        "apps-rw",
        `  schedules:\n    - {start: "0 8 * * MON-FRI", end: "0 17 * * MON-FRI"}\n  freezes:\n    - {start: "0 0 * * FRI", duration: 24h, reason: No deploys on Fridays}\n    - {from: "2026-12-20T00:00", to: "2027-01-05T00:00", reason: Holiday freeze}\n  targets:\n    - {kind: Kustomization, name: apps-rw}\n`,
      ),
    );
    files.set(`${dir}/windows/nightly.yaml`, window("nightly", `  schedules:\n    - {start: "0 22 * * *", duration: 2h}\n  targets:\n    - {kind: Kustomization, name: apps-rw}\n`));
    files.set(`${dir}/windows/maintenance.yaml`, window("maintenance", `  schedules:\n    - {start: "0 2 * * SUN", duration: 4h}\n  targets:\n    - {kind: Kustomization, name: apps-rt}\n`));
  }
  return files;
}

/** Writes the fleet into `dir` (created) as one commit on branch main. */
export async function writeGeneratedFleet(dir: string, clusters: number): Promise<void> {
  for (const [path, text] of generatedFleetFiles(clusters)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  const git = (...args: string[]): Promise<unknown> => run("git", ["-c", "user.name=fluxgate", "-c", "user.email=fluxgate@example.invalid", ...args], { cwd: dir });
  await git("init", "--quiet", "--initial-branch=main");
  await git("add", "--all");
  await git("commit", "--quiet", "-m", `A generated fleet of ${clusters} clusters`);
}
