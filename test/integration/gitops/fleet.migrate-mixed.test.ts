// A fleet folder beside fleet windows still included cluster by cluster (as init --fleet-folder once left a repository), with real git and the real
// kustomize: check names the command that includes the folder in each case, and fleet migrate completes the conversion with its proof.

import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { before, test } from "node:test";
import { FleetWindows } from "../../../src/gitops/fleet/effective.ts";
import { fleetFolderText } from "../../../src/gitops/fleet/folder.ts";
import { copyFixture, fixtureCopies, fluxgate, kustomize, removeRepo, snapshot } from "./helpers.ts";
import { assertRefused, fleetRepo, git } from "./fleet-repo.ts";

let bin = "";
const copy = fixtureCopies();
before(async () => {
  bin = await kustomize();
});

const CLUSTERS = ["edge-berlin", "edge-paris", "edge-tokyo"];

/** Each cluster's windows as kustomize renders them: name, zone and schedules of those that act on it. */
async function windowsOf(dir: string): Promise<Record<string, unknown>> {
  const fleet = await FleetWindows.open(dir, { kustomize: bin });
  try {
    const out: Record<string, unknown> = {};
    for (const c of CLUSTERS) {
      const r = await fleet.of(c);
      out[c] = r.error ?? r.windows.map((w) => [w.name, w.window?.spec.timeZone, w.window?.spec.schedules]);
    }
    return out;
  } finally {
    await fleet.close();
  }
}

function commit(dir: string, message: string): void {
  git(dir, "add", "-A");
  git(dir, "-c", "gc.auto=0", "commit", "-qm", message);
}

async function edit(dir: string, file: string, from: string, to: string): Promise<void> {
  const text = await readFile(join(dir, file), "utf8");
  assert.ok(text.includes(from), `${file} has ${from}`);
  await writeFile(join(dir, file), text.replace(from, to));
}

test("a fleet folder started beside fleet windows included cluster by cluster: check names fleet migrate, which completes the conversion with its proof", async () => {
  const dir = await fleetRepo(copy);
  // What init --fleet-folder wrote before it refused this repository: an empty folder, included by the cluster it set up, beside prod-changes.
  await writeFile(join(dir, "fleet/kustomization.yaml"), fleetFolderText([]));
  assert.equal((await fluxgate("init", dir, "--cluster", "edge-berlin")).code, 0);
  assert.deepEqual((await readFile(join(dir, "clusters/edge-berlin/windows/kustomization.yaml"), "utf8")).match(/^ {2}- .*$/gm), [
    "  - ../../../fleet/windows/prod-changes",
    "  - ../../../fleet",
    "  - fluxgate-cluster.yaml",
  ]);
  commit(dir, "fleet folder beside prod-changes");
  const windows = await windowsOf(dir);

  const check = await fluxgate("check", dir, "--kustomize", bin);
  assert.equal(check.code, 1, check.stdout);
  // The commands advised name the repository as check was given it.
  const advice = `(fluxgate fleet migrate --repo ${dir} does, in place of the fleet windows each cluster includes one by one, and moves into the folder the fleet window still outside it (fleet/windows/prod-changes/), with a proof that no cluster's windows change)`;
  for (const c of ["edge-paris", "edge-tokyo"])
    assert.ok(
      check.stdout.includes(
        `clusters/${c}/windows/kustomization.yaml: error fleet-folder-not-included: clusters/${c}/windows/kustomization.yaml does not include the fleet folder: list ../../../fleet once in resources ${advice} [cluster ${c}]\n`,
      ),
      check.stdout,
    );

  // The command check names: a dry run writes nothing, then the conversion, proven.
  const files = await snapshot(dir);
  const dry = await fluxgate("fleet", "migrate", "--repo", dir, "--kustomize", bin, "--dry-run");
  assert.equal(dry.code, 0, dry.stderr);
  assert.deepEqual(await snapshot(dir), files);
  const migrate = await fluxgate("fleet", "migrate", "--repo", dir, "--kustomize", bin);
  assert.deepEqual([migrate.code, migrate.stderr], [0, ""]);
  assert.match(migrate.stdout, /^Proof: the effective windows of all 3 clusters \(3 windows\) are the same before and after, as kustomize renders them\.$/m);
  commit(dir, "fleet migrate");
  assert.deepEqual(git(dir, "show", "--name-status", "--format=", "HEAD").trim().split("\n"), [
    "M\tclusters/edge-berlin/windows/kustomization.yaml",
    "A\tclusters/edge-paris/windows/fluxgate-cluster.yaml",
    "M\tclusters/edge-paris/windows/kustomization.yaml",
    "A\tclusters/edge-tokyo/windows/fluxgate-cluster.yaml",
    "M\tclusters/edge-tokyo/windows/kustomization.yaml",
    "M\tfleet/kustomization.yaml",
    "M\tfleet/windows/prod-changes/prod-changes.yaml",
  ]);
  // The repository now is the fleet-folder fixture: the same files, and the same windows on every cluster.
  const fixture = await copyFixture("fleet-folder");
  try {
    const want = await snapshot(fixture);
    const got = await snapshot(dir);
    for (const path of [
      "fleet/windows/prod-changes/prod-changes.yaml",
      "clusters/edge-paris/windows/kustomization.yaml",
      "clusters/edge-tokyo/windows/kustomization.yaml",
      "clusters/edge-berlin/windows/fluxgate-cluster.yaml",
    ])
      assert.equal(got.get(path), want.get(path), path);
  } finally {
    await removeRepo(fixture);
  }
  assert.match(await readFile(join(dir, "fleet/kustomization.yaml"), "utf8"), /^resources:\n {2}- windows\/prod-changes\n$/m);
  assert.deepEqual(await windowsOf(dir), windows);
  const after = await fluxgate("check", dir, "--kustomize", bin);
  assert.equal(after.code, 0, after.stdout);
  assert.match(after.stdout, /^No findings in 3 clusters/m);
  // Nothing is left to convert: refused, changing nothing.
  await assertRefused(dir, [
    [
      ["fleet", "migrate", "--repo", dir, "--kustomize", bin],
      /^error: the repository already has the fleet folder \(fleet\/kustomization\.yaml\), lists every fleet window in it, and every cluster includes it with its identity: nothing to convert\n$/,
    ],
  ]);
});

test("with every fleet window in the folder, check names init for a cluster that does not include it, and says to remove an entry listed twice", async () => {
  const dir = await copy("fleet-folder");
  git(dir, "init", "-q", "-b", "main");
  await edit(dir, "clusters/edge-paris/windows/kustomization.yaml", "  - ../../../fleet\n", "");
  await edit(dir, "clusters/edge-berlin/windows/kustomization.yaml", "  - ../../../fleet\n", "  - ../../../fleet\n  - ../../../fleet/\n");
  commit(dir, "fleet folder left out and listed twice");
  const check = await fluxgate("check", dir, "--kustomize", bin);
  assert.equal(check.code, 1, check.stdout);
  assert.ok(
    check.stdout.includes(
      `clusters/edge-paris/windows/kustomization.yaml: error fleet-folder-not-included: clusters/edge-paris/windows/kustomization.yaml does not include the fleet folder: list ../../../fleet once in resources (fluxgate init ${dir} --cluster edge-paris does, with the cluster's identity) [cluster edge-paris]\n`,
    ),
    check.stdout,
  );
  assert.ok(
    check.stdout.includes(
      "clusters/edge-berlin/windows/kustomization.yaml: error fleet-folder-not-included: clusters/edge-berlin/windows/kustomization.yaml includes the fleet folder 2 times: list ../../../fleet once in resources, and remove the other entries that name it [cluster edge-berlin]\n",
    ),
    check.stdout,
  );
  // The command named for edge-paris includes the folder there, and nothing else.
  const init = await fluxgate("init", dir, "--cluster", "edge-paris");
  assert.deepEqual([init.code, init.stderr], [0, ""]);
  assert.deepEqual(git(dir, "status", "--porcelain"), " M clusters/edge-paris/windows/kustomization.yaml\n");
  await edit(dir, "clusters/edge-berlin/windows/kustomization.yaml", "  - ../../../fleet/\n", "");
  const after = await fluxgate("check", dir, "--kustomize", bin);
  assert.equal(after.code, 0, after.stdout);
  assert.match(after.stdout, /^No findings in 3 clusters/m);
});

test("fleet migrate refuses, writing nothing, to include the folder in a cluster whose windows that would change; init includes it", async () => {
  const dir = await copy("fleet-folder");
  git(dir, "init", "-q", "-b", "main");
  const add = await fluxgate(
    "fleet",
    "window",
    "add",
    "canary-early",
    "--repo",
    dir,
    "--selector",
    "ring=canary",
    "--start",
    "0 6 * * *",
    "--duration",
    "2h",
    "--target",
    "Kustomization/apps-rw",
  );
  assert.equal(add.code, 0, add.stderr);
  await edit(dir, "clusters/edge-paris/windows/kustomization.yaml", "  - ../../../fleet\n", "");
  commit(dir, "canary-early in the folder; edge-paris without it");
  await assertRefused(dir, [
    [
      ["fleet", "migrate", "--repo", dir, "--kustomize", bin],
      /^error: the fleet folder would change what 1 cluster\(s\) run \(edge-paris\); nothing was written\. /,
    ],
    [["fleet", "migrate", "--repo", dir, "--kustomize", bin, "--dry-run"], /^error: the fleet folder would change what 1 cluster\(s\) run \(edge-paris\)/],
  ]);
  assert.equal(git(dir, "status", "--porcelain"), "");
  // init, which check names for it, includes the folder: edge-paris then runs canary-early beside its own window.
  assert.equal((await fluxgate("init", dir, "--cluster", "edge-paris")).code, 0);
  assert.deepEqual(
    ((await windowsOf(dir))["edge-paris"] as unknown[][]).map((w) => w[0]),
    ["apps-rw", "canary-early"],
  );
});
