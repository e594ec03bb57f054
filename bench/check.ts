// `fluxgate check` over a generated fleet: N clusters, each running 10 applications split into a real-time and a window type.

import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { check } from "../src/cli/check.ts";
import { ensureTool } from "../src/devenv/tools.ts";
import type { BenchLine } from "./schedule.ts";

const ZONES = ["Europe/Berlin", "Europe/Paris", "America/New_York", "Asia/Tokyo", "UTC"];

/** The files of a fleet repository laid out as fluxgate init and split make it. */
export function fleetFiles(clusters: number, apps: number): Map<string, string> {
  const files = new Map<string, string>();
  files.set(
    "fluxgate.yaml",
    `apiVersion: fluxgate.io/v1alpha1\nkind: Repository\ntypes:\n  - {name: rt, window: false}\n  - {name: rw, window: true}\nclusters:\n${Array.from({ length: clusters }, (_, c) => `  - {name: edge-${c}, path: clusters/edge-${c}, timeZone: ${ZONES[c % ZONES.length]}}`).join("\n")}\n`,
  );
  for (let a = 0; a < apps; a++) {
    files.set(`apps/app-${a}-rt/kustomization.yaml`, "resources:\n  - config.yaml\n");
    files.set(
      `apps/app-${a}-rt/config.yaml`,
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-${a}-config\n  namespace: app-${a}\ndata:\n  level: info\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: app-${a}-token\n  namespace: app-${a}\nstringData:\n  token: t\n`,
    );
    files.set(`apps/app-${a}-rw/kustomization.yaml`, "resources:\n  - namespace.yaml\n  - workload.yaml\n");
    files.set(`apps/app-${a}-rw/namespace.yaml`, `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app-${a}\n`);
    files.set(
      `apps/app-${a}-rw/workload.yaml`,
      `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-${a}\n  namespace: app-${a}\nspec:\n  selector: {matchLabels: {app: app-${a}}}\n  template:\n    metadata: {labels: {app: app-${a}}}\n    spec:\n      containers:\n        - name: app\n          image: ghcr.io/example/app-${a}:1.0.0\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: app-${a}\n  namespace: app-${a}\nspec:\n  selector: {app: app-${a}}\n  ports: [{port: 80}]\n`,
    );
  }
  for (let c = 0; c < clusters; c++) {
    const name = `edge-${c}`;
    const base = `clusters/${name}`;
    files.set(
      `${base}/flux-system/gotk-sync.yaml`,
      `apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: flux-system, namespace: flux-system}\nspec: {interval: 1m, url: "ssh://git@example.com/fleet", ref: {branch: main}}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: flux-system, namespace: flux-system}\nspec: {interval: 10m, path: ./${base}, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}\n`,
    );
    files.set(`${base}/flux-system/kustomization.yaml`, "resources: [gotk-sync.yaml]\n");
    for (const type of ["rt", "rw"]) {
      files.set(
        `${base}/apps-${type}.yaml`,
        `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps-${type}\n  namespace: flux-system\n  labels: {fluxgate.io/type: ${type}}\nspec:\n  interval: 10m\n  path: ./deploy/${name}/${type}\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n${type === "rw" ? "  dependsOn: [{name: apps-rt}]\n" : ""}`,
      );
      const patch =
        type === "rt"
          ? `patches:\n  - target: {kind: ConfigMap, name: app-0-config}\n    patch: |-\n      - op: add\n        path: /data/cluster\n        value: ${name}\n`
          : `patches:\n  - target: {kind: Deployment, name: app-0}\n    patch: |-\n      - op: add\n        path: /spec/replicas\n        value: ${1 + (c % 3)}\n`;
      files.set(
        `deploy/${name}/${type}/kustomization.yaml`,
        `resources:\n${Array.from({ length: apps }, (_, a) => `  - ../../../apps/app-${a}-${type}`).join("\n")}\n${patch}`,
      );
    }
    files.set(`${base}/windows/kustomization.yaml`, "resources:\n  - apps-rw.yaml\n");
    files.set(
      `${base}/windows/apps-rw.yaml`,
      `apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata: {name: apps-rw, namespace: flux-system}\nspec:\n  timeZone: ${ZONES[c % ZONES.length]}\n  schedules:\n    - {start: "0 8 * * MON-THU", end: "0 17 * * MON-THU"}\n  freezes:\n    - {start: "0 0 * * FRI", duration: 24h, reason: No deploys on Fridays}\n  targets:\n    - {kind: Kustomization, name: apps-rw}\n`,
    );
  }
  return files;
}

/** Checks a generated fleet of `clusters` × 10 apps with the real kustomize; wall-clock seconds. */
export async function checkBench(clusters: number): Promise<BenchLine> {
  const apps = 10;
  const kustomize = (await ensureTool("kustomize", () => undefined)).path;
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-bench-fleet-"));
  try {
    for (const [path, text] of fleetFiles(clusters, apps)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    const start = process.hrtime.bigint();
    const result = await check({
      repo: dir,
      clusters: [],
      kustomizations: [],
      output: "json",
      strict: false,
      kustomize,
      env: process.env,
      now: Date.UTC(2026, 10, 22),
    });
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    if (result.stats.kustomizations !== clusters * 3)
      throw new Error(`benchmark rendered ${result.stats.kustomizations} Kustomizations, expected ${clusters * 3}`);
    if (result.findings.length > 0) throw new Error(`benchmark fleet has findings: ${result.findings[0]?.message ?? ""}`);
    return {
      bench: "check.fleet",
      clusters,
      apps,
      kustomizations: result.stats.kustomizations,
      builds: result.stats.builds,
      cacheHits: result.stats.cacheHits,
      cpus: availableParallelism(),
      seconds: Math.round(seconds * 100) / 100,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
