// The fleet folder's freezes in a cluster's model, as Flux applies them: only those fleet/kustomization.yaml lists, on the clusters whose labels their
// clusterSelector matches, each acting on the windows its windowSelector picks (by their labels) or the one it names.

import assert from "node:assert/strict";
import { test } from "node:test";
import { addFolderFreezes } from "../../../src/server/model/folder-freezes.ts";
import { buildCluster, fleetFilesOf, type ClusterModel, type FileAt } from "../../../src/server/model/model.ts";
import { overridesFor, planningOverrides } from "../../../src/server/views/views.ts";
import { NOW } from "../../support/server.ts";

function file(path: string, text: string): FileAt {
  return { path, text, blob: `blob-${path}` };
}

function window(name: string, labels: Record<string, string> = {}): string {
  const l = Object.keys(labels).length === 0 ? "" : `  labels: ${JSON.stringify(labels)}\n`;
  return `apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata:\n  name: ${name}\n  namespace: flux-system\n${l}spec:\n  schedules:\n    - {start: "0 8 * * MON", duration: 2h}\n  targets:\n    - {kind: Kustomization, name: apps-rw}\n`;
}

/** A freeze's WindowOverride; `spec` gives its selectors. */
function freeze(name: string, spec: string): string {
  return `apiVersion: fluxgate.io/v1alpha1\nkind: WindowOverride\nmetadata:\n  name: ${name}\n  namespace: flux-system\n  annotations: {fluxgate.io/requested-at: "2026-11-23T09:00:00Z"}\nspec:\n${spec}  action: Freeze\n  until: "2026-11-23T12:00:00Z"\n  reason: incident ${name}\n`;
}

/** A cluster with windows apps-rw (label tier=web) and db (tier=data). */
function cluster(name: string, labels: Record<string, string>): ClusterModel {
  const entry = { name, path: `clusters/${name}`, timeZone: "UTC", labels };
  const dir = `clusters/${name}/windows`;
  return buildCluster(
    entry,
    [
      file(`${dir}/kustomization.yaml`, "resources:\n  - ../../../fleet\n  - apps-rw.yaml\n  - db.yaml\n"),
      file(`${dir}/apps-rw.yaml`, window("apps-rw", { tier: "web" })),
      file(`${dir}/db.yaml`, window("db", { tier: "data" })),
    ],
    NOW,
  );
}

const FOLDER = fleetFilesOf([
  file(
    "fleet/kustomization.yaml",
    "resources:\n  - freezes/eu-all.yaml\n  - freezes/web-only.yaml\n  - freezes/db-ref.yaml\n  - freezes/everyone.yaml\n  - freezes/broken.yaml\n",
  ),
  file("fleet/freezes/eu-all.yaml", `# every window in eu\n${freeze("eu-all", "  clusterSelector: {matchLabels: {region: eu}}\n  windowSelector: {}\n")}`),
  file("fleet/freezes/web-only.yaml", freeze("web-only", "  clusterSelector: {matchLabels: {ring: prod}}\n  windowSelector: {matchLabels: {tier: web}}\n")),
  file(
    "fleet/freezes/db-ref.yaml",
    freeze("db-ref-db", "  clusterSelector: {matchExpressions: [{key: region, operator: In, values: [us]}]}\n  windowRef: {name: db}\n"),
  ),
  // No clusterSelector: Flux applies it on every cluster that includes the folder, and the controller acts on it there.
  file("fleet/freezes/everyone.yaml", freeze("everyone", "  windowSelector: {matchLabels: {tier: data}}\n")),
  // A selector the API server refuses (In without values) matches no cluster.
  file("fleet/freezes/broken.yaml", freeze("broken", "  clusterSelector: {matchExpressions: [{key: region, operator: In}]}\n  windowSelector: {}\n")),
  // In fleet/freezes/ but not listed in fleet/kustomization.yaml: Flux does not apply it.
  file("fleet/freezes/unlisted.yaml", freeze("unlisted", "  windowSelector: {}\n")),
]);

/** Each override of a cluster: its name, file, freeze and the windows it picks. */
function overrides(k: ClusterModel): Array<[string, string, string | undefined, readonly string[] | null | undefined]> {
  return k.overrides.map((o) => [o.name, o.path, o.folderFreeze?.name, o.folderFreeze?.windows]);
}

test("each cluster has the listed freezes its labels match, with the windows their windowSelector picks; no other", async () => {
  const berlin = cluster("edge-berlin", { region: "eu", ring: "prod" });
  const paris = cluster("edge-paris", { region: "eu", ring: "canary" });
  const ohio = cluster("edge-ohio", { region: "us", ring: "canary" });
  await addFolderFreezes([berlin, paris, ohio], FOLDER, NOW);
  assert.deepEqual(overrides(berlin), [
    ["eu-all", "fleet/freezes/eu-all.yaml", "eu-all", ["apps-rw", "db"]],
    ["everyone", "fleet/freezes/everyone.yaml", "everyone", ["db"]],
    ["web-only", "fleet/freezes/web-only.yaml", "web-only", ["apps-rw"]],
  ]);
  assert.deepEqual(overrides(paris), [
    ["eu-all", "fleet/freezes/eu-all.yaml", "eu-all", ["apps-rw", "db"]],
    ["everyone", "fleet/freezes/everyone.yaml", "everyone", ["db"]],
  ]);
  assert.deepEqual(overrides(ohio), [
    ["db-ref-db", "fleet/freezes/db-ref.yaml", "db-ref", null],
    ["everyone", "fleet/freezes/everyone.yaml", "everyone", ["db"]],
  ]);
  for (const o of [...berlin.overrides, ...paris.overrides, ...ohio.overrides]) assert.deepEqual(o.problems, [], o.name);
});

test("the engine sees a freeze on each window it picks, with its reason; the planner once per window", async () => {
  const berlin = cluster("edge-berlin", { region: "eu", ring: "prod" });
  await addFolderFreezes([berlin], FOLDER, NOW);
  assert.deepEqual(
    overridesFor("apps-rw", berlin.overrides).map((o) => [o.name, o.window, o.action, o.reason]),
    [
      ["eu-all", "apps-rw", "Freeze", "incident eu-all"],
      ["web-only", "apps-rw", "Freeze", "incident web-only"],
    ],
  );
  assert.deepEqual(
    overridesFor("db", berlin.overrides).map((o) => o.name),
    ["eu-all", "everyone"],
  );
  assert.deepEqual(
    planningOverrides(berlin.overrides).map((o) => `${o.name}/${o.window}/${o.namespace}`),
    ["eu-all/apps-rw/flux-system", "eu-all/db/flux-system", "everyone/db/flux-system", "web-only/apps-rw/flux-system"],
  );
});

test("without the fleet folder's list, or with no freeze, a cluster keeps only its own overrides", async () => {
  const berlin = cluster("edge-berlin", { region: "eu", ring: "prod" });
  await addFolderFreezes([berlin], fleetFilesOf([...FOLDER.values()].filter((f) => f.path !== "fleet/kustomization.yaml")), NOW);
  assert.deepEqual(berlin.overrides, []);
  await addFolderFreezes([berlin], fleetFilesOf([file("fleet/kustomization.yaml", "resources: []\n")]), NOW);
  assert.deepEqual(berlin.overrides, []);
});
