// A new commit is read into the fleet from what it changed (git diff-tree), on a real bare remote with the real kustomize: the fleet read so always equals the
// commit read in full.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { patchedZone, patchesFleetWindow, ringOf } from "../../../src/devenv/generated-fleet.ts";
import type { KustomizeRunner } from "../../../src/gitops/kustomize.ts";
import type { Fleet } from "../../../src/server/model/model.ts";
import { Repository } from "../../../src/server/git/repository.ts";
import { fleetView as view, kustomizeRunner, pushFromClone, writeGeneratedFleet } from "../../support/fleet.ts";
import { bareRemoteWithClone, git, NOW, tempDir } from "../../support/server.ts";

const CLUSTERS = 12;
const AUTHOR = { name: "Ada", email: "ada@example.com" };
let root: string;
let remote: string;
let work: string;
let runner: KustomizeRunner;
let now = NOW;
let repo: Repository;
let cleanup: () => Promise<void>;

before(async () => {
  ({ dir: root, cleanup } = await tempDir("fleet-incremental"));
  runner = (await kustomizeRunner()).runner;
  const seed = join(root, "seed");
  await mkdir(seed);
  await writeGeneratedFleet(seed, CLUSTERS);
  ({ remote, work } = await bareRemoteWithClone(root, seed));
  repo = await Repository.open(work, { kustomize: runner, now: () => now });
});
after(async () => {
  await cleanup();
});

/** The fleet at HEAD as a service started now reads it: in full. */
async function readInFull(): Promise<unknown> {
  const fresh = await Repository.open(work, { kustomize: runner, now: () => now });
  assert.equal(fresh.readStats.mode, "full");
  return view(await fresh.fleet());
}

/** Commits `files` in another clone and pushes them to the remote. */
const pushElsewhere = (name: string, files: Parameters<typeof pushFromClone>[3]): Promise<void> => pushFromClone(root, remote, name, files);

const windowOf = (fleet: Fleet, cluster: string, name: string): Fleet["clusters"][number]["windows"][number] | undefined =>
  fleet.clusters.find((k) => k.entry.name === cluster)?.windows.find((w) => w.name === name);

test("clusters whose windows folders kustomize reads alike share one build, though each kustomization.yaml has its own comment and each window of its own its own text", () => {
  // Canary, prod as the base, prod patched to New York (edge-1, edge-5), prod patched to Tokyo (edge-9).
  assert.deepEqual(repo.fleetRenderStats, { clusters: CLUSTERS, cacheHits: CLUSTERS - 4, builds: 4 });
});

test("a write of one cluster's window is read back from what it changed: that cluster alone is built again, and a read after the write sees it", async () => {
  const path = "clusters/edge-3/windows/nightly.yaml";
  const result = await repo.write(AUTHOR, (fleet) => ({
    changes: { [path]: (windowOf(fleet, "edge-3", "nightly")?.text ?? "").replace(/duration: 2h/, "duration: 5h") },
    subject: "edge-3: change window nightly",
    reason: "longer",
    result: null,
  }));
  assert.equal(result.pushed, true);
  const fleet = await repo.fleet();
  assert.equal(fleet.commit, result.commit);
  assert.deepEqual(repo.readStats, { mode: "changes", changedFiles: 1, clusters: 1, rebuilt: 1, filesRead: 1 });
  assert.deepEqual(windowOf(fleet, "edge-3", "nightly")?.window?.spec.schedules, [{ start: "0 3 * * *", duration: "5h" }]);
  assert.deepEqual(view(fleet), await readInFull());
});

test("a write of a fleet window's base builds again the clusters that include it, patches kept; the fleet equals the commit read in full", async () => {
  const path = "fleet/windows/prod-changes/prod-changes.yaml";
  await repo.write(AUTHOR, (fleet) => ({
    changes: { [path]: (fleet.fleetFiles.get(path)?.text ?? "").replace('start: "0 8 * * MON-THU"', 'start: "0 9 * * MON-THU"') },
    subject: "fleet: change window prod-changes",
    reason: "later",
    result: null,
  }));
  const fleet = await repo.fleet();
  const prod = Array.from({ length: CLUSTERS }, (_, i) => i).filter((i) => ringOf(i) === "prod");
  assert.deepEqual(repo.readStats, { mode: "changes", changedFiles: 1, clusters: prod.length, rebuilt: 0, filesRead: 1 });
  for (const i of prod) {
    const w = windowOf(fleet, `edge-${i}`, "prod-changes");
    assert.equal(w?.window?.spec.schedules?.[0]?.start, "0 9 * * MON-THU", `edge-${i}`);
    assert.equal(w?.window?.spec.timeZone, patchesFleetWindow(i) ? patchedZone(i) : "UTC", `edge-${i}`);
  }
  assert.equal(windowOf(fleet, "edge-0", "canary-changes")?.window?.spec.schedules?.[0]?.start, "0 6 * * *");
  assert.deepEqual(view(fleet), await readInFull());
});

test("a commit pushed to the remote by another clone is read in full detail from what it changed: windows changed, added and deleted, an override, a patch, a base", async () => {
  await pushElsewhere("other", {
    "clusters/edge-1/windows/apps-rt.yaml": (old) => old.replace("duration: 30m", "duration: 45m"),
    // A window deleted with its kustomization entry, another cluster's file broken by hand.
    "clusters/edge-2/windows/nightly.yaml": null,
    "clusters/edge-2/windows/kustomization.yaml": (old) => old.replace("  - nightly.yaml\n", ""),
    "clusters/edge-6/windows/nightly.yaml":
      'apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata: {name: nightly}\nspec: {schedules: [{start: "0 0 30 2 *", duration: 1h}]}\n',
    // An override, and a window of its own a cluster adds.
    "clusters/edge-4/windows/overrides/stop.yaml": `apiVersion: fluxgate.io/v1alpha1\nkind: WindowOverride\nmetadata: {name: stop, namespace: flux-system, creationTimestamp: "${new Date(NOW).toISOString()}"}\nspec: {windowRef: {name: nightly}, action: Freeze, until: "${new Date(NOW + 3_600_000).toISOString()}", reason: incident}\n`,
    "clusters/edge-4/windows/kustomization.yaml": (old) => old.replace("  - nightly.yaml\n", "  - nightly.yaml\n  - late.yaml\n  - overrides/stop.yaml\n"),
    "clusters/edge-4/windows/late.yaml":
      'apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata: {name: late, namespace: flux-system}\nspec:\n  schedules: [{start: "0 22 * * *", duration: 1h}]\n  targets: [{kind: Kustomization, name: late}]\n',
    // A patch changed (edge-5 patches its fleet window's zone), and the canary base.
    "clusters/edge-5/windows/kustomization.yaml": (old) => old.replace(patchedZone(5), "Asia/Tokyo"),
    "fleet/windows/canary-changes/canary-changes.yaml": (old) => old.replace('start: "0 6 * * *"', 'start: "0 7 * * *"'),
  });
  await repo.sync();
  const fleet = await repo.fleet();
  assert.equal(fleet.commit, await git(remote, "rev-parse", "main"));
  const canary = Array.from({ length: CLUSTERS }, (_, i) => `edge-${i}`).filter((_, i) => ringOf(i) === "canary");
  // edge-1, edge-2, edge-4, edge-5, edge-6, and the canary clusters (edge-4 is one of them).
  const touched = new Set(["edge-1", "edge-2", "edge-4", "edge-5", "edge-6", ...canary]);
  // The five whose files changed are built again; the other canary clusters take the changed base again. One of the nine files was deleted: eight read.
  assert.deepEqual(repo.readStats, { mode: "changes", changedFiles: 9, clusters: touched.size, rebuilt: 5, filesRead: 8 });
  assert.equal(windowOf(fleet, "edge-1", "apps-rt")?.window?.spec.schedules?.[0]?.duration, "45m");
  assert.equal(windowOf(fleet, "edge-2", "nightly"), undefined);
  assert.ok((windowOf(fleet, "edge-6", "nightly")?.problems.length ?? 0) > 0, "the broken window is listed with its problems");
  assert.equal(windowOf(fleet, "edge-4", "late")?.window?.spec.schedules?.[0]?.start, "0 22 * * *");
  assert.equal(fleet.clusters.find((k) => k.entry.name === "edge-4")?.overrides[0]?.input?.action, "Freeze");
  assert.equal(windowOf(fleet, "edge-5", "prod-changes")?.window?.spec.timeZone, "Asia/Tokyo");
  for (const name of canary) assert.equal(windowOf(fleet, name, "canary-changes")?.window?.spec.schedules?.[0]?.start, "0 7 * * *", name);
  assert.deepEqual(view(fleet), await readInFull());
});

/** Comment lines that make fluxgate.yaml as long as a large fleet's (read in a worker thread while serving). */
const PADDING = Array.from({ length: 600 }, (_, i) => `# ${String(i).padStart(4, "0")} ${"-".repeat(60)}`).join("\n");

test("a commit that changes fluxgate.yaml, and a commit read on another day, are read in full", async () => {
  await pushElsewhere("labels", {
    "fluxgate.yaml": (old) =>
      `${PADDING}\n${old.replace("{name: edge-7, path: clusters/edge-7, timeZone: UTC, labels: {ring: prod", "{name: edge-7, path: clusters/edge-7, timeZone: UTC, labels: {site: hamburg, ring: prod")}`,
  });
  await repo.sync();
  const fleet = await repo.fleet();
  assert.equal(repo.readStats.mode, "full");
  assert.equal(fleet.clusters.find((k) => k.entry.name === "edge-7")?.entry.labels?.["site"], "hamburg");
  assert.deepEqual(view(fleet), await readInFull());
  // A large fluxgate.yaml that cannot be read says why, as every command says it, until a commit fixes it.
  await pushElsewhere("broken", { "fluxgate.yaml": (old) => old.replace("{name: edge-7, path: clusters/edge-7,", "{name: edge-7, path: /etc/edge-7,") });
  await repo.sync();
  const broken = await repo.fleet().then(
    () => "read",
    (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e)),
  );
  const fresh = await Repository.open(work, { kustomize: runner, now: () => now }).then(
    () => "read",
    (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e)),
  );
  assert.match(broken, /^ConfigError: .*edge-7/);
  assert.equal(broken, fresh, "the same error as a full read on the event loop");
  await pushElsewhere("fixed", { "fluxgate.yaml": (old) => old.replace("path: /etc/edge-7,", "path: clusters/edge-7,") });
  await repo.sync();
  assert.deepEqual(view(await repo.fleet()), await readInFull());
  now = NOW + 86_400_000;
  await pushElsewhere("next-day", { "clusters/edge-8/windows/apps-rt.yaml": (old) => old.replace("duration: 30m", "duration: 20m") });
  await repo.sync();
  assert.equal(windowOf(await repo.fleet(), "edge-8", "apps-rt")?.window?.spec.schedules?.[0]?.duration, "20m");
  assert.equal(repo.readStats.mode, "full");
});
