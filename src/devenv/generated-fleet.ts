// Generated fleet repositories of any size, for tests and benchmarks: labelled clusters with three windows each, all their own, or one of them a fleet window
// that a quarter of the clusters patch.

import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** What a generated fleet is made of. */
export interface GeneratedFleetOptions {
  /**
   * `own` (the default): clusters `edge-<region>-<i>` in four zones, three windows of their own
   * each (the dashboard's tests and bench). `fleet`: clusters `edge-<i>` in UTC, two windows of
   * their own and the fleet window of their ring from fleet/windows/, which one cluster in four
   * patches (its zone) — the fleet API's tests and bench serve.fleet. `folder`: the same fleet in
   * the fleet folder's layout (fleet/kustomization.yaml; each cluster includes fleet/ once and its
   * identity; the fleet windows carry spec.clusterSelector), as `fluxgate fleet migrate` writes it.
   */
  windows?: "own" | "fleet" | "folder";
}

/** The files of a fleet of `clusters` clusters, by path. */
export function generatedFleetFiles(clusters: number, options: GeneratedFleetOptions = {}): Map<string, string> {
  const files = new Map<string, string>();
  const fleetWindows = options.windows === "fleet" || options.windows === "folder";
  const entries = Array.from({ length: clusters }, (_, i) => {
    const k = fleetWindows ? ringCluster(i) : generatedCluster(i);
    const labels = Object.entries(k.labels)
      .map(([key, value]) => `${key}: ${value}`)
      .join(", ");
    return `  - {name: ${k.name}, path: clusters/${k.name}, timeZone: ${k.zone}, labels: {${labels}}}`;
  });
  const types = fleetWindows ? ["  - {name: rw, window: true}"] : ["  - {name: rt, window: false}", "  - {name: rw, window: true}"];
  files.set("fluxgate.yaml", `apiVersion: fluxgate.io/v1alpha1\nkind: Repository\ntypes:\n${types.join("\n")}\nclusters:\n${entries.join("\n")}\n`);
  if (fleetWindows) addFleetWindowClusters(files, clusters);
  else addOwnWindowClusters(files, clusters);
  if (options.windows === "folder") toFleetFolder(files, clusters);
  return files;
}

/** The `fleet` layout rewritten as the fleet folder: what `fluxgate fleet migrate` does to it (test/integration/gitops/fleet.folder.test.ts proves it on a small one). */
function toFleetFolder(files: Map<string, string>, clusters: number): void {
  files.set(
    "fleet/kustomization.yaml",
    "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - windows/prod-changes\n  - windows/canary-changes\n",
  );
  for (const [name, ring, schedule] of FLEET_WINDOWS) {
    files.set(`fleet/windows/${name}/${name}.yaml`, fleetWindowManifest(name, { clusterSelector: `{matchLabels: {ring: ${ring}}}` }, schedule));
  }
  for (let i = 0; i < clusters; i++) {
    const dir = `clusters/edge-${i}/windows`;
    const k = ringCluster(i);
    files.set(
      `${dir}/kustomization.yaml`,
      (files.get(`${dir}/kustomization.yaml`) as string).replace(
        / {2}- \.\.\/\.\.\/\.\.\/fleet\/windows\/.*\n/,
        "  - ../../../fleet\n  - fluxgate-cluster.yaml\n",
      ),
    );
    files.set(
      `${dir}/fluxgate-cluster.yaml`,
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fluxgate-cluster\n  namespace: flux-system\n  labels:\n    app.kubernetes.io/managed-by: fluxgate\ndata:\n  cluster: ${k.name}\n  labels: |\n    ring: ${k.labels.ring}\n    region: ${k.labels.region}\n`,
    );
  }
}

/**
 * Writes the fleet into `dir` (created) as one commit on branch main.
 *
 * @example await writeGeneratedFleet("/tmp/fleet", 1000, { windows: "fleet" })
 */
export async function writeGeneratedFleet(dir: string, clusters: number, options: GeneratedFleetOptions = {}): Promise<void> {
  for (const [path, text] of generatedFleetFiles(clusters, options)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  const git = (...args: string[]): Promise<unknown> =>
    // No automatic gc after the first commit of thousands of objects: it would go on packing in the background.
    run("git", ["-c", "user.name=fluxgate", "-c", "user.email=fluxgate@example.invalid", "-c", "gc.auto=0", ...args], { cwd: dir });
  await git("init", "--quiet", "--initial-branch=main");
  await git("add", "--all");
  await git("commit", "--quiet", "-m", `A generated fleet of ${clusters} clusters`);
}

/** A cluster's windows/kustomization.yaml listing `resources`, then `rest` (its patches). */
function windowsKustomization(resources: readonly string[], rest = ""): string {
  return `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n${resources.map((r) => `  - ${r}\n`).join("")}${rest}`;
}

// ---- windows: "own" ----

/** Zones and the region label that goes with each; Berlin and New York change their clocks, Tokyo and UTC do not. */
const SITES = [
  { zone: "Europe/Berlin", region: "eu" },
  { zone: "America/New_York", region: "us" },
  { zone: "Asia/Tokyo", region: "ap" },
  { zone: "UTC", region: "eu" },
] as const;

/** The name, zone and labels of cluster `i` of an `own` fleet: every tenth is ring canary, the others ring prod. */
export function generatedCluster(i: number): { name: string; zone: string; labels: { region: string; ring: string } } {
  const site = SITES[i % SITES.length] as (typeof SITES)[number];
  return { name: `edge-${site.region}-${i}`, zone: site.zone, labels: { region: site.region, ring: i % 10 === 0 ? "canary" : "prod" } };
}

function fluxKustomization(name: string, type: string, path: string): string {
  return `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\n  labels: {fluxgate.io/type: ${type}}\nspec:\n  interval: 10m\n  path: ./${path}\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n`;
}

/**
 * Each cluster has two Flux Kustomizations (apps-rt, apps-rw) and three windows in its zone:
 * weekdays 08:00-17:00 with a Friday freeze and the holiday freeze (apps-rw), nightly 22:00 for
 * 2 hours (apps-rw), Sunday maintenance 02:00 for 4 hours (apps-rt).
 */
function addOwnWindowClusters(files: Map<string, string>, clusters: number): void {
  for (let i = 0; i < clusters; i++) {
    const k = generatedCluster(i);
    const dir = `clusters/${k.name}`;
    files.set(`${dir}/apps-rt.yaml`, fluxKustomization("apps-rt", "rt", `deploy/${k.name}/rt`));
    files.set(`${dir}/apps-rw.yaml`, fluxKustomization("apps-rw", "rw", `deploy/${k.name}/rw`));
    files.set(`${dir}/windows/kustomization.yaml`, windowsKustomization(["apps-rw.yaml", "nightly.yaml", "maintenance.yaml"]));
    const window = (name: string, spec: string): string =>
      `apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  timeZone: ${k.zone}\n${spec}`;
    files.set(
      `${dir}/windows/apps-rw.yaml`,
      window(
        "apps-rw",
        `  schedules:\n    - {start: "0 8 * * MON-FRI", end: "0 17 * * MON-FRI"}\n  freezes:\n    - {start: "0 0 * * FRI", duration: 24h, reason: No deploys on Fridays}\n    - {from: "2026-12-20T00:00", to: "2027-01-05T00:00", reason: Holiday freeze}\n  targets:\n    - {kind: Kustomization, name: apps-rw}\n`,
      ),
    );
    files.set(
      `${dir}/windows/nightly.yaml`,
      window("nightly", `  schedules:\n    - {start: "0 22 * * *", duration: 2h}\n  targets:\n    - {kind: Kustomization, name: apps-rw}\n`),
    );
    files.set(
      `${dir}/windows/maintenance.yaml`,
      window("maintenance", `  schedules:\n    - {start: "0 2 * * SUN", duration: 4h}\n  targets:\n    - {kind: Kustomization, name: apps-rt}\n`),
    );
  }
}

// ---- windows: "fleet" ----

const ZONES = ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "Europe/London"];

/** The ring of cluster `i` of a `fleet` fleet: a quarter canary, the rest prod. */
export function ringOf(i: number): "canary" | "prod" {
  return i % 4 === 0 ? "canary" : "prod";
}

/** The region of cluster `i` of a `fleet` fleet: eu, us or ap in turn. */
export function regionOf(i: number): "eu" | "us" | "ap" {
  return (["eu", "us", "ap"] as const)[i % 3] as "eu" | "us" | "ap";
}

/** True when cluster `i` of a `fleet` fleet patches its fleet window (its zone): one cluster in four. */
export function patchesFleetWindow(i: number): boolean {
  return i % 4 === 1;
}

/**
 * The zone a patching cluster `i` gives its fleet window: the sites in turn, two patching clusters
 * each (edge-1 and edge-5 New York, edge-9 and edge-13 Tokyo, then London, then Berlin, ...).
 */
export function patchedZone(i: number): string {
  return ZONES[(Math.floor(i / 8) + 1) % ZONES.length] as string;
}

/** The name, zone and labels of cluster `i` of a `fleet` fleet. */
function ringCluster(i: number): { name: string; zone: string; labels: { ring: string; region: string } } {
  return { name: `edge-${i}`, zone: "UTC", labels: { ring: ringOf(i), region: regionOf(i) } };
}

/** The fleet windows: one per ring, selecting its clusters. */
const FLEET_WINDOWS = [
  ["prod-changes", "prod", { start: "0 8 * * MON-THU", end: "0 17 * * MON-THU" }],
  ["canary-changes", "canary", { start: "0 6 * * *", end: "0 20 * * *" }],
] as const;

/**
 * The manifest of fleet window `name` (for fleet/windows/<name>/), targeting Kustomization `apps` in UTC: `select` is the fleet folder's
 * spec.clusterSelector (a YAML flow map) or, in the `fleet` layout, the value of the fleet-selector annotation (`ring=prod`).
 */
export function fleetWindowManifest(
  name: string,
  select: { clusterSelector: string } | { annotation: string },
  schedule: { start: string; end: string } | { start: string; duration: string },
): string {
  return [
    "apiVersion: fluxgate.io/v1alpha1",
    "kind: ReconciliationWindow",
    "metadata:",
    `  name: ${name}`,
    "  namespace: flux-system",
    `  labels: {fluxgate.io/fleet-window: ${name}}`,
    ...("annotation" in select ? [`  annotations: {fluxgate.io/fleet-selector: "${select.annotation}"}`] : []),
    "spec:",
    ...("clusterSelector" in select ? [`  clusterSelector: ${select.clusterSelector}`] : []),
    "  timeZone: UTC",
    "end" in schedule
      ? `  schedules: [{start: "${schedule.start}", end: "${schedule.end}"}]`
      : `  schedules: [{start: "${schedule.start}", duration: ${schedule.duration}}]`,
    "  targets: [{kind: Kustomization, name: apps}]",
    "",
  ].join("\n");
}

/**
 * The fleet windows `prod-changes` and `canary-changes` (fleet/windows/), and for each cluster
 * `apps-rt` and `nightly` of its own (an annotation naming the cluster, so no two files are
 * alike) and the fleet window of its ring, which one cluster in four patches (its zone, one of
 * four in turn). Each windows/kustomization.yaml opens with the comment `fluxgate init` writes,
 * naming its cluster.
 */
function addFleetWindowClusters(files: Map<string, string>, clusters: number): void {
  for (const [name, ring, schedule] of FLEET_WINDOWS) {
    files.set(`fleet/windows/${name}/kustomization.yaml`, `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ${name}.yaml\n`);
    files.set(`fleet/windows/${name}/${name}.yaml`, fleetWindowManifest(name, { annotation: `ring=${ring}` }, schedule));
  }
  for (let i = 0; i < clusters; i++) {
    const dir = `clusters/edge-${i}/windows`;
    const fleet = `${ringOf(i)}-changes`;
    const patch = patchesFleetWindow(i)
      ? `patches:\n  - target: {kind: ReconciliationWindow, name: ${fleet}}\n    patch: |\n      - {op: add, path: /spec/timeZone, value: ${patchedZone(i)}}\n`
      : "";
    // The comment `fluxgate init` writes, which names the cluster: as in a real fleet, no two files are alike.
    const comment = [
      `# The windows and overrides of edge-${i}, applied in real time by the cluster's root Kustomization.`,
      "# One ReconciliationWindow per <window>.yaml, one WindowOverride per overrides/<override>.yaml (docs/gitops.md).",
      "",
    ].join("\n");
    files.set(`${dir}/kustomization.yaml`, comment + windowsKustomization(["apps-rt.yaml", "nightly.yaml", `../../../fleet/windows/${fleet}`], patch));
    files.set(
      `${dir}/apps-rt.yaml`,
      `apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata: {name: apps-rt, namespace: flux-system, annotations: {example.com/site: edge-${i}}}\nspec:\n  schedules: [{start: "0 * * * *", duration: 30m}]\n  targets: [{kind: Kustomization, name: apps-rt}]\n`,
    );
    files.set(
      `${dir}/nightly.yaml`,
      `apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata: {name: nightly, namespace: flux-system, annotations: {example.com/site: edge-${i}}}\nspec:\n  timeZone: UTC\n  schedules: [{start: "0 ${i % 24} * * *", duration: 2h}]\n  targets: [{kind: Kustomization, name: infra}]\n`,
    );
  }
}
