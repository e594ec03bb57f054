// A cluster that patches a fleet window from a patch file of its windows/ folder, on a real bare remote with the real kustomize: an edit of that file alone is
// rendered again, and the fleet read from the commit's changes equals the commit read in full.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { Repository } from "../../../src/server/git/repository.ts";
import { fleetView, kustomizeRunner, pushFromClone, serveGeneratedFleet, type ServedFleet } from "../../support/fleet.ts";
import { git, NOW, tempDir } from "../../support/server.ts";

let fleet: ServedFleet;
let clones: { dir: string; cleanup: () => Promise<void> };

before(async () => {
  fleet = await serveGeneratedFleet("fleet-patch-file", 8);
  clones = await tempDir("fleet-patch-file-clones");
});
after(async () => {
  await fleet.close();
  await clones.cleanup();
});

/** Commits `files` in another clone, pushes them, and has the service fetch the commit and read it. */
async function pushAndSync(name: string, files: Parameters<typeof pushFromClone>[3]): Promise<void> {
  await pushFromClone(clones.dir, fleet.remote, name, files);
  await fleet.service.repository.sync();
  assert.equal((await fleet.service.repository.fleet()).commit, await git(fleet.remote, "rev-parse", "main"));
}

/** The window of a cluster as the API answers it. */
async function windowOf(
  cluster: string,
  name: string,
): Promise<{ timeZone: string; spec: { schedules: Array<{ start: string }> }; fleet: { patch: { patch: string } | null } }> {
  const r = await fleet.call("GET", `/api/v1/clusters/${cluster}/windows/${name}`);
  assert.equal(r.status, 200, r.text);
  return r.body as never;
}

/** What the real kustomize builds of a cluster's windows folder in the service's working copy. */
async function built(cluster: string): Promise<string> {
  return (await promisify(execFile)(fleet.kustomize, ["build", join(fleet.work, `clusters/${cluster}/windows`)])).stdout;
}

/** The fleet the service holds (read from each commit's changes) and the same commit read in full by a service started now, alike. */
async function assertSameAsFullRead(): Promise<void> {
  const served = fleet.service.repository;
  const fresh = await Repository.open(fleet.work, { kustomize: (await kustomizeRunner()).runner, now: () => NOW });
  assert.equal(fresh.readStats.mode, "full");
  assert.deepEqual(fleetView(await served.fleet()), fleetView(await fresh.fleet()));
}

const zonePatch = (zone: string): string => `# Where the Lisbon site's window runs.\n- op: add\n  path: /spec/timeZone\n  value: ${zone}\n`;
const laterStart = (hour: number): string =>
  `apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata:\n  name: prod-changes\n  namespace: flux-system\nspec:\n  schedules: [{start: "0 ${hour} * * MON-THU", end: "0 17 * * MON-THU"}]\n`;

test("a fleet window patched from a file of the cluster's windows folder: an edit of that file alone is what the API answers next", async () => {
  // edge-2 patches its fleet window's zone with a JSON 6902 patch file (by target); edge-3 its
  // start with a strategic-merge patch file (no target: the file names the window).
  await pushAndSync("patch-files", {
    "clusters/edge-2/windows/zone-patch.yaml": zonePatch("Europe/Lisbon"),
    "clusters/edge-2/windows/kustomization.yaml": (old) =>
      `${old.trimEnd()}\npatches:\n  - path: zone-patch.yaml\n    target: {kind: ReconciliationWindow, name: prod-changes}\n`,
    "clusters/edge-3/windows/later-start.yaml": laterStart(10),
    "clusters/edge-3/windows/kustomization.yaml": (old) => `${old.trimEnd()}\npatches:\n  - path: later-start.yaml\n`,
  });
  assert.equal((await windowOf("edge-2", "prod-changes")).timeZone, "Europe/Lisbon");
  assert.equal((await windowOf("edge-3", "prod-changes")).spec.schedules[0]?.start, "0 10 * * MON-THU");
  await assertSameAsFullRead();

  // A patch file is not a window, whatever its name: not listed, never written or deleted as one.
  for (const [cluster, file] of [
    ["edge-2", "zone-patch"],
    ["edge-3", "later-start"],
  ] as const) {
    const listed = await fleet.call("GET", `/api/v1/clusters/${cluster}/windows`);
    assert.ok(!(listed.body as { windows: Array<{ name: string }> }).windows.some((w) => w.name === file), `${cluster} lists no window ${file}`);
    const head = await git(fleet.work, "rev-parse", "HEAD");
    const put = await fleet.call("PUT", `/api/v1/clusters/${cluster}/windows/${file}`, {
      body: {
        spec: { schedules: [{ start: "0 8 * * *", duration: "1h" }], targets: [{ kind: "Kustomization", name: "apps" }] },
        reason: "a window over a patch file",
      },
    });
    assert.equal(put.status, 409, put.text);
    assert.match(put.text, new RegExp(`clusters/${cluster}/windows/${file}\\.yaml is not a window: .*reads it as a patch`));
    const removed = await fleet.call("DELETE", `/api/v1/clusters/${cluster}/windows/${file}?reason=gone`);
    assert.equal(removed.status, 404, removed.text);
    assert.equal(await git(fleet.work, "rev-parse", "HEAD"), head, "nothing committed");
  }

  // The patch files change, the kustomization.yaml files do not.
  await pushAndSync("patch-files-edited", {
    "clusters/edge-2/windows/zone-patch.yaml": zonePatch("Atlantic/Azores"),
    "clusters/edge-3/windows/later-start.yaml": laterStart(11),
  });
  assert.deepEqual(fleet.service.repository.readStats, { mode: "changes", changedFiles: 2, clusters: 2, rebuilt: 2, filesRead: 2 });
  assert.equal(fleet.service.repository.fleetRenderStats?.builds, 2, "both clusters are rendered again");
  assert.equal((await windowOf("edge-2", "prod-changes")).timeZone, "Atlantic/Azores");
  assert.match(await built("edge-2"), /timeZone: Atlantic\/Azores/, "as kustomize builds the folder");
  assert.equal((await windowOf("edge-3", "prod-changes")).spec.schedules[0]?.start, "0 11 * * MON-THU");
  assert.match(await built("edge-3"), /start: 0 11 \* \* MON-THU/);
  assert.equal((await windowOf("edge-6", "prod-changes")).timeZone, "UTC", "another cluster keeps the base");
  await assertSameAsFullRead();
});

test("a window of the cluster's own is read from its file: an edit of its schedule renders nothing again, unless a patch without a target may read it", async () => {
  const nightly = (hour: number) => (old: string) => old.replace(/start: "0 \d+ \* \* \*"/, `start: "0 ${hour} * * *"`);
  // edge-2's patches all name a fleet window: its own windows enter the render by kind and name.
  await pushAndSync("own-window-edited", { "clusters/edge-2/windows/nightly.yaml": nightly(23) });
  assert.equal(fleet.service.repository.fleetRenderStats?.builds, 0);
  assert.equal(fleet.service.repository.fleetRenderStats?.cacheHits, 1);
  // edge-3's patch has no target: kustomize matches it against every window, its own ones too.
  await pushAndSync("own-window-edited-untargeted", { "clusters/edge-3/windows/nightly.yaml": nightly(21) });
  assert.equal(fleet.service.repository.fleetRenderStats?.builds, 1);
  // A window of its own that is not YAML any more breaks the folder for kustomize: the API says so.
  await pushAndSync("own-window-broken", { "clusters/edge-2/windows/nightly.yaml": "kind: [\n" });
  const r = await fleet.call("GET", "/api/v1/clusters/edge-2/windows");
  assert.match(String((r.body as { fleetError: unknown }).fleetError), /does not build/);
  await assertSameAsFullRead();
});
