// A generated fleet repository with fleet windows, for the fleet API's tests and benchmarks: N labelled clusters, two windows of their own each and one fleet window, a quarter patching it.

const ZONES = ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "Europe/London"];

/** The ring of cluster `i`: a quarter canary, the rest prod. */
export function ringOf(i: number): "canary" | "prod" {
  return i % 4 === 0 ? "canary" : "prod";
}

/** The region of cluster `i`: eu, us or ap in turn. */
export function regionOf(i: number): "eu" | "us" | "ap" {
  return (["eu", "us", "ap"] as const)[i % 3] as "eu" | "us" | "ap";
}

/** True when cluster `i` patches its fleet window (its zone): one cluster in four. */
export function patchesFleetWindow(i: number): boolean {
  return i % 4 === 1;
}

/** The zone a patching cluster `i` gives its fleet window. */
export function patchedZone(i: number): string {
  return ZONES[i % ZONES.length] as string;
}

function fleetWindow(name: string, selector: string, start: string, end: string): string {
  return [
    "apiVersion: fluxgate.io/v1alpha1",
    "kind: ReconciliationWindow",
    "metadata:",
    `  name: ${name}`,
    "  namespace: flux-system",
    `  labels: {fluxgate.io/fleet-window: ${name}}`,
    `  annotations: {fluxgate.io/fleet-selector: "${selector}"}`,
    "spec:",
    "  timeZone: UTC",
    `  schedules: [{start: "${start}", end: "${end}"}]`,
    "  targets: [{kind: Kustomization, name: apps}]",
    "",
  ].join("\n");
}

/**
 * The files of a fleet of `clusters` clusters `edge-0`, `edge-1`, ... labelled `ring` (a quarter
 * canary) and `region` (eu, us, ap), each with three windows: `apps-rt` and `nightly` of its own
 * (an annotation naming the cluster, so no two files are alike) and the fleet window of its ring,
 * `prod-changes` or `canary-changes` (fleet/windows/), which one cluster in four patches (its zone).
 */
export function generatedFleetFiles(clusters: number): Map<string, string> {
  const out = new Map<string, string>();
  const entries = Array.from({ length: clusters }, (_, i) => `  - {name: edge-${i}, path: clusters/edge-${i}, timeZone: UTC, labels: {ring: ${ringOf(i)}, region: ${regionOf(i)}}}`);
  out.set("fluxgate.yaml", `apiVersion: fluxgate.io/v1alpha1\nkind: Repository\ntypes:\n  - {name: rw, window: true}\nclusters:\n${entries.join("\n")}\n`);
  for (const [name, selector, start, end] of [
    ["prod-changes", "ring=prod", "0 8 * * MON-THU", "0 17 * * MON-THU"],
    ["canary-changes", "ring=canary", "0 6 * * *", "0 20 * * *"],
  ] as const) {
    out.set(`fleet/windows/${name}/kustomization.yaml`, `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ${name}.yaml\n`);
    out.set(`fleet/windows/${name}/${name}.yaml`, fleetWindow(name, selector, start, end));
  }
  for (let i = 0; i < clusters; i++) {
    const dir = `clusters/edge-${i}/windows`;
    const fleet = `${ringOf(i)}-changes`;
    const patch = patchesFleetWindow(i)
      ? `patches:\n  - target: {kind: ReconciliationWindow, name: ${fleet}}\n    patch: |\n      - {op: add, path: /spec/timeZone, value: ${patchedZone(i)}}\n`
      : "";
    out.set(`${dir}/kustomization.yaml`, `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - apps-rt.yaml\n  - nightly.yaml\n  - ../../../fleet/windows/${fleet}\n${patch}`);
    out.set(
      `${dir}/apps-rt.yaml`,
      `apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata: {name: apps-rt, namespace: flux-system, annotations: {example.com/site: edge-${i}}}\nspec:\n  schedules: [{start: "0 * * * *", duration: 30m}]\n  targets: [{kind: Kustomization, name: apps-rt}]\n`,
    );
    out.set(
      `${dir}/nightly.yaml`,
      `apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata: {name: nightly, namespace: flux-system, annotations: {example.com/site: edge-${i}}}\nspec:\n  timeZone: UTC\n  schedules: [{start: "0 ${i % 24} * * *", duration: 2h}]\n  targets: [{kind: Kustomization, name: infra}]\n`,
    );
  }
  return out;
}
