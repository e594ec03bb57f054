// The fleet folder's clusters share one kustomize build of their windows folder, each cluster's identity selecting from it afterwards: for a generated fleet
// with varied labels, patches, windows of their own and clusters that must be built alone, what each cluster gets equals what the real kustomize renders
// of its folder on its own (FleetWindows.of), before and after a fleet freeze and a change of a fleet window's base; a selector that does not match a
// cluster never gives it that window or freeze.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { FleetWindows } from "../../../src/gitops/fleet/effective.ts";
import { RepoFiles } from "../../../src/gitops/files.ts";
import { matchesSelector } from "../../../src/policy/index.ts";
import { FleetWindowRenderer } from "../../../src/server/model/fleet-model.ts";
import { buildCluster, parseRepositoryFile, type ClusterModel, type FileAt } from "../../../src/server/model/model.ts";
import { fleetWindowManifest, writeGeneratedFleet } from "../../../src/devenv/generated-fleet.ts";
import { Repository } from "../../../src/server/git/repository.ts";
import { fleetView, kustomizeRunner } from "../../support/fleet.ts";
import { bareRemoteWithClone, tempDir } from "../../support/server.ts";

const NOW = Date.parse("2026-11-23T10:00:00Z");
const CLUSTERS = 36;
const RINGS = ["canary", "prod", "dev"];
const REGIONS = ["eu", "us", "ap"];

/** Labels of cluster `i`: ring and region in turn, a tier on some, none at all on one. */
function labelsOf(i: number): Record<string, string> {
  if (i === 7) return {};
  return { ring: RINGS[i % 3] as string, region: REGIONS[Math.floor(i / 3) % 3] as string, ...(i % 4 === 0 ? { tier: "gold" } : {}) };
}

const fleetWindow = (name: string, selector: string, start: string): string =>
  `# Fleet window ${name}.\n${fleetWindowManifest(name, { clusterSelector: selector }, { start, duration: "2h" })}`;

const WINDOWS: Record<string, string> = {
  "prod-changes": "{matchLabels: {ring: prod}}",
  "canary-changes": "{matchLabels: {ring: canary}}",
  "eu-nightly": "{matchExpressions: [{key: region, operator: In, values: [eu]}]}",
  "not-ap": "{matchExpressions: [{key: region, operator: NotIn, values: [ap]}]}",
  gold: "{matchExpressions: [{key: tier, operator: Exists}]}",
  everyone: "{}",
};

const freeze = (name: string, selector: string): string =>
  [
    "apiVersion: fluxgate.io/v1alpha1",
    "kind: WindowOverride",
    "metadata:",
    `  name: ${name}`,
    "  namespace: flux-system",
    `  labels: {fluxgate.io/fleet-override: ${name}}`,
    "spec:",
    `  clusterSelector: ${selector}`,
    "  windowSelector: {}",
    "  action: Freeze",
    '  until: "2026-11-24T10:00:00Z"',
    "  reason: incident",
    "",
  ].join("\n");

const folderList = (entries: readonly string[]): string =>
  `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n${entries.map((e) => `  - ${e}\n`).join("")}`;

/** The identity file of a cluster: a block of labels, or (`quoted`) the same data in double-quoted strings. */
function identity(name: string, labels: Record<string, string>, quoted: boolean): string {
  const pairs = Object.entries(labels);
  const data = quoted
    ? `data:\n  cluster: "${name}"\n  labels: "${pairs.map(([k, v]) => `${k}: ${v}\\n`).join("")}"\n`
    : `data:\n  cluster: ${name}\n  labels: |\n${pairs.map(([k, v]) => `    ${k}: ${v}\n`).join("")}`;
  return `# The identity of cluster ${name}.\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fluxgate-cluster\n  namespace: flux-system\n${data}`;
}

/** The fleet's files: the fleet folder, and clusters that differ in labels, patches, windows of their own, and in how they may share a build. */
function fleetFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const clusters: string[] = [];
  for (let n = 0; n < CLUSTERS; n++) {
    const name = `edge-${n}`;
    const labels = labelsOf(n);
    const text = Object.entries(labels)
      .map(([k, v]) => `${k}: ${v}`)
      .join(", ");
    clusters.push(`  - {name: ${name}, path: clusters/${name}, timeZone: UTC, labels: {${text}}}`);
    const dir = `clusters/${name}/windows`;
    const resources = ["../../../fleet", "fluxgate-cluster.yaml"];
    let rest = "";
    // Windows of its own: every third cluster.
    if (n % 3 === 1) {
      resources.push("nightly.yaml");
      files.set(
        `${dir}/nightly.yaml`,
        `apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata:\n  name: nightly\n  namespace: flux-system\n  annotations: {site: ${name}}\nspec:\n  timeZone: UTC\n  schedules: [{start: "0 ${n % 24} * * *", duration: 1h}]\n  targets: [{kind: Kustomization, name: apps}]\n`,
      );
    }
    // A patch of a fleet window by name (narrow: shared with the clusters that patch alike), two zones in turn.
    if (n % 5 === 2)
      rest += `patches:\n  - target: {kind: ReconciliationWindow, name: prod-changes}\n    patch: '[{"op": "replace", "path": "/spec/timeZone", "value": "${n % 2 === 0 ? "Asia/Tokyo" : "Europe/Berlin"}"}]'\n`;
    // A patch from a file of the cluster's folder.
    if (n === 9) {
      rest += `patches:\n  - path: zone-patch.yaml\n    target: {kind: ReconciliationWindow, name: everyone}\n`;
      files.set(`${dir}/zone-patch.yaml`, "- {op: replace, path: /spec/timeZone, value: America/New_York}\n");
    }
    // Not narrow: a patch by label selector (it may read any window): built on its own.
    if (n === 11)
      rest += `patches:\n  - target: {kind: ReconciliationWindow, labelSelector: "fluxgate.io/fleet-window=gold"}\n    patch: '[{"op": "replace", "path": "/spec/timeZone", "value": "Asia/Tokyo"}]'\n`;
    // commonLabels: narrow, and transforms the identity ConfigMap too.
    if (n === 13) rest += "commonLabels: {team: edge}\n";
    files.set(
      `${dir}/kustomization.yaml`,
      `# The windows of ${name}.\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n${resources.map((r) => `  - ${r}\n`).join("")}${rest}`,
    );
    let id = identity(name, labels, n % 6 === 5);
    // An identity that cannot be confirmed (labels that are not a map): fail safe, as the controller does.
    if (n === 17) id = id.replace(/labels: \|\n(?: {4}.*\n)*/, "labels: '[a, b]'\n");
    files.set(`${dir}/fluxgate-cluster.yaml`, id);
  }
  files.set("fluxgate.yaml", `apiVersion: fluxgate.io/v1alpha1\nkind: Repository\ntypes:\n  - {name: rw, window: true}\nclusters:\n${clusters.join("\n")}\n`);
  for (const [name, selector] of Object.entries(WINDOWS)) {
    files.set(`fleet/windows/${name}/${name}.yaml`, fleetWindow(name, selector, "0 9 * * *"));
    files.set(`fleet/windows/${name}/kustomization.yaml`, `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ${name}.yaml\n`);
  }
  files.set("fleet/kustomization.yaml", folderList(Object.keys(WINDOWS).map((w) => `windows/${w}`)));
  return files;
}

const fileAt = (path: string, text: string): FileAt => ({ path, text, blob: createHash("sha1").update(text).digest("hex"), size: Buffer.byteLength(text) });

/** Renders every cluster through the shared path and compares it with the folder rendered on its own by the real kustomize. */
async function compare(dir: string, files: Map<string, string>, renderer: FleetWindowRenderer): Promise<{ builds: number }> {
  for (const [path, text] of files) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  const repository = parseRepositoryFile(files.get("fluxgate.yaml") as string);
  const byCluster = new Map<string, FileAt[]>();
  const fleet = new Map<string, FileAt>();
  for (const [path, text] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (path.startsWith("fleet/")) fleet.set(path, fileAt(path, text));
    const m = /^clusters\/([^/]+)\//.exec(path);
    if (m !== null) byCluster.set(m[1] as string, [...(byCluster.get(m[1] as string) ?? []), fileAt(path, text)]);
  }
  const models: ClusterModel[] = repository.clusters.map((e) => buildCluster(e, byCluster.get(e.name) ?? [], NOW));
  await renderer.addFleetWindows(repository, models, byCluster, fleet, NOW);
  const { builds } = renderer.stats;
  const { runner } = await kustomizeRunner();
  const alone = new FleetWindows(new RepoFiles(dir), repository, runner);
  try {
    for (const model of models) {
      const entry = model.entry;
      const own = await alone.of(entry, NOW);
      // What comes of the fleet: the windows not from the cluster's own folder (no cluster here has overrides of its own).
      const expected = { ...own, windows: own.windows.filter((w) => w.file === null || !w.file.startsWith(`clusters/${entry.name}/windows/`)) };
      assert.equal(expected.error, null, `${entry.name}: ${expected.error}`);
      const shared = renderer.selected(entry, NOW);
      assert.notEqual(shared, null, entry.name);
      assert.deepEqual(shared, expected, `${entry.name}: the shared render selects what the cluster's own build does`);
      // The model's fleet windows are those the cluster's own build selects, as rendered (patches applied).
      const fleetWindows = model.windows.filter((w) => w.fleet !== null);
      assert.deepEqual(
        fleetWindows.map((w) => [w.name, w.manifest]),
        expected.windows.filter((w) => w.fleetWindow !== null).map((w) => [w.name, w.manifest]),
        entry.name,
      );
      assert.equal(model.fleetError, null, entry.name);
      // A selector that does not match the cluster's labels never gives it the window or the freeze.
      const labels = entry.labels ?? {};
      const confirmed = expected.identity.confirmed;
      for (const w of model.windows.filter((x) => x.fleet !== null)) {
        const selector = (w.manifest as { spec: { clusterSelector: Parameters<typeof matchesSelector>[0] } }).spec.clusterSelector;
        if (confirmed) assert.ok(matchesSelector(selector, labels), `${entry.name} has ${w.name}, whose selector does not match it`);
      }
      for (const o of shared?.overrides ?? []) {
        const selector = (o as { spec: { clusterSelector: Parameters<typeof matchesSelector>[0] } }).spec.clusterSelector;
        if (confirmed) assert.ok(matchesSelector(selector, labels), `${entry.name} is frozen by a freeze whose selector does not match it`);
      }
    }
  } finally {
    await alone.close();
  }
  return { builds };
}

test("clusters of the fleet folder share builds, and each gets exactly what its own build selects, before and after fleet changes", async () => {
  const temp = await tempDir("fleet-shared-render");
  try {
    const { runner } = await kustomizeRunner();
    const renderer = new FleetWindowRenderer(runner);
    const files = fleetFiles();
    const first = await compare(join(temp.dir, "a"), files, renderer);
    // One build per kind of folder, whatever the identities: plain; a window of its own; each zone's patch (2), with and without a window of its own (2);
    // the patch file (edge-9); the label-selector patch (edge-11, not narrow); commonLabels (edge-13). 36 clusters, 9 builds.
    assert.equal(first.builds, 9);

    // A fleet freeze of the canary ring, and one of Europe's gold clusters, then a change of a fleet window's base.
    files.set("fleet/freezes/canary.yaml", freeze("canary", "{matchLabels: {ring: canary}}"));
    files.set("fleet/freezes/eu-gold.yaml", freeze("eu-gold", "{matchLabels: {region: eu}, matchExpressions: [{key: tier, operator: Exists}]}"));
    files.set("fleet/kustomization.yaml", folderList([...Object.keys(WINDOWS).map((w) => `windows/${w}`), "freezes/canary.yaml", "freezes/eu-gold.yaml"]));
    const second = await compare(join(temp.dir, "a"), files, renderer);
    assert.equal(second.builds, first.builds, "a fleet freeze builds each kind of folder once again");
    const frozen = Array.from({ length: CLUSTERS }, (_, n) => `edge-${n}`).filter(
      (name) => (renderer.selected({ name, path: `clusters/${name}`, timeZone: "UTC" }, NOW)?.overrides.length ?? 0) > 0,
    );
    assert.ok(frozen.includes("edge-0") && !frozen.includes("edge-1"), `frozen: ${frozen.join(", ")}`);

    files.set("fleet/windows/not-ap/not-ap.yaml", fleetWindow("not-ap", WINDOWS["not-ap"] as string, "0 11 * * *"));
    await rm(join(temp.dir, "a", "fleet", "freezes", "canary.yaml"));
    files.delete("fleet/freezes/canary.yaml");
    files.set("fleet/kustomization.yaml", folderList([...Object.keys(WINDOWS).map((w) => `windows/${w}`), "freezes/eu-gold.yaml"]));
    const third = await compare(join(temp.dir, "a"), files, renderer);
    assert.equal(third.builds, first.builds);
  } finally {
    await temp.cleanup();
  }
});

test("a fleet freeze of the fleet folder reads two files and builds no cluster from its files: each takes its fleet windows again from the shared renders", async () => {
  const temp = await tempDir("fleet-shared-read");
  try {
    const { runner } = await kustomizeRunner();
    const seed = join(temp.dir, "seed");
    await writeGeneratedFleet(seed, 16, { windows: "folder" });
    const { work } = await bareRemoteWithClone(temp.dir, seed);
    const repo = await Repository.open(work, { kustomize: runner, now: () => NOW });
    const before = await repo.fleet();
    assert.equal(repo.readStats.mode, "full");
    // Every cluster has the same windows of its own (by kind and name): those that take the fleet windows as they are, and the patches' two zones
    // (edge-1 and edge-5 one, edge-9 and edge-13 the other: generated-fleet.ts): 3 builds for 16 clusters.
    assert.equal(repo.fleetRenderStats?.builds, 3);
    const readInFull = async (): Promise<unknown> => {
      const fresh = await Repository.open(work, { kustomize: runner, now: () => NOW });
      return fleetView(await fresh.fleet());
    };
    const text = (await repo.fleet()).fleetFiles.get("fleet/kustomization.yaml")?.text ?? "";
    await repo.write({ name: "Ada", email: "ada@example.com" }, () => ({
      changes: {
        "fleet/freezes/canary.yaml": freeze("canary", "{matchLabels: {ring: canary}}"),
        "fleet/kustomization.yaml": `${text}  - freezes/canary.yaml\n`,
      },
      subject: "fleet: freeze the canary ring",
      reason: "incident",
      result: null,
    }));
    const after = await repo.fleet();
    assert.notEqual(after.commit, before.commit);
    assert.deepEqual(repo.readStats, { mode: "changes", changedFiles: 2, clusters: 16, rebuilt: 0, filesRead: 2 });
    assert.equal(repo.fleetRenderStats?.builds, 3, "each kind of folder is built once again");
    assert.deepEqual(fleetView(after), await readInFull());

    // A change of a fleet window's base: the same.
    const base = "fleet/windows/prod-changes/prod-changes.yaml";
    await repo.write({ name: "Ada", email: "ada@example.com" }, (fleet) => ({
      changes: { [base]: (fleet.fleetFiles.get(base)?.text ?? "").replace(/start: "0 8/, 'start: "0 9') },
      subject: "fleet: change window prod-changes",
      reason: "later",
      result: null,
    }));
    const changed = await repo.fleet();
    assert.deepEqual(repo.readStats, { mode: "changes", changedFiles: 1, clusters: 16, rebuilt: 0, filesRead: 1 });
    assert.equal(
      changed.clusters.find((c) => c.entry.name === "edge-2")?.windows.find((w) => w.name === "prod-changes")?.window?.spec.schedules?.[0]?.start,
      "0 9 * * MON-THU",
    );
    assert.deepEqual(fleetView(changed), await readInFull());
  } finally {
    await temp.cleanup();
  }
});
