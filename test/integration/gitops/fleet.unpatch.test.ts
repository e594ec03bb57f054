// `fluxgate fleet window patch --remove` on a real repository with the real kustomize: the cluster's patch goes, the cluster renders the base again, bad input
// changes nothing.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { before, test } from "node:test";
import { effectiveWindows } from "../../../src/gitops/fleet/effective.ts";
import { fixtureCopies, fluxgate, kustomize } from "./helpers.ts";
import { assertRefused, fleetRepo, git } from "./fleet-repo.ts";

let bin = "";
const copy = fixtureCopies();
before(async () => {
  bin = await kustomize();
});

const file = "clusters/edge-tokyo/windows/kustomization.yaml";

test("--remove takes the cluster's patch away: one file changes and kustomize renders the base for the cluster", async () => {
  const dir = await fleetRepo(copy);
  const zone = async (): Promise<unknown> =>
    (await effectiveWindows(dir, "edge-tokyo", { kustomize: bin })).find((w) => w.name === "prod-changes")?.window?.spec.timeZone;
  assert.equal(await zone(), "Asia/Tokyo", "the fixture's patch");
  const dry = await fluxgate("fleet", "window", "patch", "prod-changes", "--repo", dir, "--cluster", "edge-tokyo", "--remove", "--dry-run");
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /^--- a\/clusters\/edge-tokyo\/windows\/kustomization\.yaml\n/);
  assert.match(dry.stdout, /\n-patches:\n- {2}- target:\n/);
  assert.equal(git(dir, "status", "--porcelain"), "", "--dry-run writes nothing");

  const r = await fluxgate("fleet", "window", "patch", "prod-changes", "--repo", dir, "--cluster", "edge-tokyo", "--remove");
  assert.equal(r.stderr, "");
  assert.equal(r.code, 0);
  assert.match(r.stdout, /Cluster edge-tokyo takes fleet window prod-changes as its base says again/);
  assert.equal(git(dir, "status", "--porcelain"), ` M ${file}\n`, "only the cluster's kustomization.yaml");
  const text = await readFile(join(dir, file), "utf8");
  assert.doesNotMatch(text, /patches/);
  assert.match(text, /^# The windows and overrides of edge-tokyo/, "its comments stay");
  assert.match(text, /resources:\n {2}- \.\.\/\.\.\/\.\.\/fleet\/windows\/prod-changes\n$/);
  assert.equal(await zone(), "Europe/Berlin", "the base's zone, as kustomize renders it");
});

test("--remove of a patch the cluster does not have, or with what a patch sets, is refused and nothing is written", async () => {
  const dir = await fleetRepo(copy);
  const patch = ["fleet", "window", "patch", "prod-changes", "--repo", dir];
  await assertRefused(dir, [
    [
      [...patch, "--cluster", "edge-berlin", "--remove"],
      /cluster edge-berlin has no patch of fleet window prod-changes in clusters\/edge-berlin\/windows\/kustomization\.yaml \(it patches no window\): nothing to remove/,
    ],
    [[...patch, "--cluster", "edge-tokyo", "--remove", "--time-zone", "UTC"], /--remove takes the cluster's patch away: give it without --time-zone/],
    [[...patch, "--cluster", "edge-lima", "--remove"], /--cluster edge-lima: not a cluster of fluxgate.yaml/],
    [[...patch, "--remove"], /give the cluster whose window differs: --cluster NAME/],
  ]);
});
