// The fleet folder with real git and the real kustomize: migrate converts with a proof, and every fleet operation is a small diff whatever the fleet's size
// (at most 3 files and 60 diff lines at 10,000 clusters, counted by git diff --numstat).

import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, test } from "node:test";
import { FleetWindows } from "../../../src/gitops/fleet/effective.ts";
import { fleetFreeze, fleetFreezeEnd } from "../../../src/cli/fleet-freeze.ts";
import { fleetWindowAdd, fleetWindowRemove } from "../../../src/cli/fleet-windows.ts";
import { writeGeneratedFleet } from "../../../src/devenv/generated-fleet.ts";
import { fixtureCopies, fluxgate, kustomize, snapshot } from "./helpers.ts";
import { fleetRepo, git } from "./fleet-repo.ts";

let bin = "";
const copy = fixtureCopies();
before(async () => {
  bin = await kustomize();
});

/** The files and lines (added + removed) of the last commit, from git diff --numstat. */
function diffOfHead(dir: string): { files: string[]; lines: number } {
  const rows = git(dir, "diff", "--numstat", "HEAD~1", "HEAD").trim().split("\n");
  let lines = 0;
  const files: string[] = [];
  for (const row of rows) {
    const [added, removed, path] = row.split("\t") as [string, string, string];
    lines += Number(added) + Number(removed);
    files.push(path);
  }
  return { files, lines };
}

function commit(dir: string, message: string): { files: string[]; lines: number } {
  git(dir, "add", "-A");
  // No automatic gc: it would still be packing in the background when the directory is removed.
  git(dir, "-c", "gc.auto=0", "commit", "-qm", message);
  return diffOfHead(dir);
}

test("fleet migrate converts the fixture with a proof, after which every cluster runs the same windows and check finds nothing", async () => {
  const dir = await fleetRepo(copy);
  const fleet = await FleetWindows.open(dir, { kustomize: bin });
  const before = new Map<string, unknown>();
  try {
    for (const c of ["edge-berlin", "edge-paris", "edge-tokyo"])
      before.set(
        c,
        (await fleet.of(c)).windows.map((w) => [w.name, w.window?.spec.timeZone]),
      );
  } finally {
    await fleet.close();
  }
  const r = await fluxgate("fleet", "migrate", "--repo", dir, "--kustomize", bin);
  assert.equal(r.stderr, "");
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^Proof: the effective windows of all 3 clusters \(3 windows\) are the same before and after, as kustomize renders them\.$/m);
  const after = await FleetWindows.open(dir, { kustomize: bin });
  try {
    for (const c of ["edge-berlin", "edge-paris", "edge-tokyo"]) {
      const rendered = await after.of(c);
      assert.deepEqual(
        rendered.windows.map((w) => [w.name, w.window?.spec.timeZone]),
        before.get(c),
        c,
      );
      assert.equal(rendered.identity.confirmed, true);
    }
    // edge-paris renders prod-changes (applied by Flux) but is not selected by it.
    assert.deepEqual((await after.of("edge-paris")).notSelected, ["ReconciliationWindow prod-changes"]);
  } finally {
    await after.close();
  }
  const check = await fluxgate("check", dir, "--kustomize", bin);
  assert.equal(check.code, 0, check.stdout);
  assert.match(check.stdout, /^No findings in 3 clusters/m);
  // Once is enough.
  const again = await fluxgate("fleet", "migrate", "--repo", dir, "--kustomize", bin);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /already has the fleet folder/);
});

test("fleet migrate refuses, writing nothing, a cluster that includes a fleet window its labels do not select", async () => {
  const dir = await fleetRepo(copy);
  const file = join(dir, "clusters/edge-paris/windows/kustomization.yaml");
  await writeFile(file, (await readFile(file, "utf8")).replace("  - apps-rw.yaml\n", "  - apps-rw.yaml\n  - ../../../fleet/windows/prod-changes\n"));
  const files = await snapshot(dir);
  const r = await fluxgate("fleet", "migrate", "--repo", dir, "--kustomize", bin);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /the fleet folder would change what these clusters run: edge-paris \(includes prod-changes, which its labels do not select\)/);
  assert.deepEqual(await snapshot(dir), files);
});

test("init --fleet-folder refuses, changing nothing in the files or in Git, a repository whose fleet windows are in the per-cluster layout, and names fleet migrate for it", async () => {
  const dir = await fleetRepo(copy);
  // Four more fleet windows, as fleet window add writes them in this layout: five in all, of which the message shows three.
  for (const [name, selector] of [
    ["eu-nightly", "region=eu"],
    ["apac-nightly", "region=apac"],
    ["canary-early", "ring=canary"],
    ["tokyo-late", "site=tokyo"],
  ] as const) {
    const add = await fluxgate(
      "fleet",
      "window",
      "add",
      name,
      "--repo",
      dir,
      "--selector",
      selector,
      "--start",
      "0 22 * * *",
      "--duration",
      "2h",
      "--target",
      "Kustomization/apps-rw",
    );
    assert.equal(add.code, 0, add.stderr);
  }
  commit(dir, "four more fleet windows");
  const head = git(dir, "rev-parse", "HEAD");
  const files = await snapshot(dir); // .git included: the index, refs and objects too
  const message = (migrate: string): string =>
    `error: --fleet-folder: this repository keeps its fleet windows in the per-cluster layout, where each cluster includes them one by one: 5 fleet windows (fleet/windows/apac-nightly/, fleet/windows/canary-early/, fleet/windows/eu-nightly/ and 2 more). A fleet folder started beside them would keep the fleet's windows in two places. Move them into it instead, with a proof that no cluster's windows change: ${migrate} (with --dry-run first to see the diff); init then includes the fleet folder in every cluster it sets up. Nothing was written\n`;
  for (const args of [
    ["--cluster", "edge-berlin", "--fleet-folder"],
    ["--cluster", "edge-berlin", "--fleet-folder", "--dry-run"],
    ["--cluster", "edge-lab", "--time-zone", "Europe/Berlin", "--fleet-folder"],
    ["--selector", "ring=prod", "--fleet-folder"],
  ]) {
    const r = await fluxgate("init", dir, ...args);
    assert.deepEqual([r.code, r.stdout, r.stderr], [2, "", message(`fluxgate fleet migrate --repo ${dir}`)], args.join(" "));
  }
  // In the repository's directory, the command line needs no --repo.
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const r = await fluxgate("init", ".", "--cluster", "edge-berlin", "--fleet-folder");
    assert.deepEqual([r.code, r.stderr], [2, message("fluxgate fleet migrate")]);
  } finally {
    process.chdir(cwd);
  }
  assert.deepEqual(await snapshot(dir), files);
  assert.equal(git(dir, "rev-parse", "HEAD"), head);
  assert.equal(git(dir, "status", "--porcelain", "--untracked-files=all"), "");

  // Without --fleet-folder, init keeps to the per-cluster layout, as before.
  assert.equal((await fluxgate("init", dir, "--cluster", "edge-lab", "--dry-run")).code, 0);
  // The command the message names converts the repository; then init includes the fleet folder in a new cluster, with or without the flag.
  const migrate = await fluxgate("fleet", "migrate", "--repo", dir, "--kustomize", bin);
  assert.equal(migrate.code, 0, migrate.stderr);
  assert.match(migrate.stdout, /^Proof: the effective windows of all 3 clusters \(8 windows\) are the same before and after/m);
  const init = await fluxgate("init", dir, "--cluster", "edge-lab", "--time-zone", "Europe/Berlin", "--fleet-folder");
  assert.equal(init.code, 0, init.stderr);
  assert.ok(!(await snapshot(dir)).get("fleet/kustomization.yaml")?.includes("resources: []"), "init kept the fleet windows migrate listed");
  assert.match(await readFile(join(dir, "clusters/edge-lab/windows/kustomization.yaml"), "utf8"), /^ {2}- \.\.\/\.\.\/\.\.\/fleet$/m);
});

test("at 10,000 clusters, adding, changing the base of and removing a fleet window, and starting and ending a fleet freeze, are each at most 3 files and 60 lines", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-fleet-folder-"));
  try {
    await writeGeneratedFleet(dir, 10_000, { windows: "folder" });
    const now = Date.parse("2026-12-23T09:00:00Z");
    const within = (what: string, d: { files: string[]; lines: number }): void => {
      assert.ok(d.files.length <= 3 && d.lines <= 60, `${what}: ${d.files.length} files, ${d.lines} lines (${d.files.join(", ")})`);
    };

    await fleetWindowAdd({
      repo: dir,
      name: "eu-nightly",
      selector: "region=eu",
      start: "0 22 * * *",
      duration: "2h",
      timeZone: "Europe/Berlin",
      targets: ["Kustomization/apps-rw"],
      dryRun: false,
      now,
    });
    const add = commit(dir, "add eu-nightly");
    within("add", add);
    assert.deepEqual(add.files, ["fleet/kustomization.yaml", "fleet/windows/eu-nightly/eu-nightly.yaml", "fleet/windows/eu-nightly/kustomization.yaml"]);

    // Changing the base is an edit of its one file.
    const base = join(dir, "fleet/windows/eu-nightly/eu-nightly.yaml");
    await writeFile(base, (await readFile(base, "utf8")).replace('"0 22 * * *"', '"0 23 * * *"'));
    within("patch the base", commit(dir, "eu-nightly at 23:00"));

    await fleetFreeze({
      repo: dir,
      selector: "ring=canary",
      for: "48h",
      reason: "canary incident INC-9",
      name: "canary-incident",
      windows: [],
      dryRun: false,
      env: process.env,
      now,
    });
    const freeze = commit(dir, "freeze canary");
    within("freeze", freeze);
    assert.deepEqual(freeze.files, ["fleet/freezes/canary-incident.yaml", "fleet/kustomization.yaml"]);

    await fleetFreezeEnd({ repo: dir, name: "canary-incident", dryRun: false, now });
    within("end the freeze", commit(dir, "end the canary freeze"));

    await fleetWindowRemove({ repo: dir, name: "eu-nightly", dryRun: false });
    within("remove", commit(dir, "remove eu-nightly"));
    t.diagnostic(
      `fleet.folder at 10,000 clusters: add ${add.files.length} files ${add.lines} lines, freeze ${freeze.files.length} files ${freeze.lines} lines`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  }
});
