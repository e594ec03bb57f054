// The example fleet of a bare `fluxgate serve`: three clusters in three zones, valid windows, a holiday freeze, rt and rw types.

import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { dataDir, ensureExampleFleet } from "../../../src/server/model/example-fleet.ts";
import { Repository } from "../../../src/server/git/repository.ts";
import { git, NOW, tempDir } from "../../support/server.ts";

test("the data directory follows XDG_DATA_HOME, else ~/.local/share", () => {
  assert.equal(dataDir({ XDG_DATA_HOME: "/data" }), "/data/fluxgate");
  assert.match(dataDir({}), /\/\.local\/share\/fluxgate$/);
});

test("the example fleet is a Git repository made once, with valid windows in three zones and a holiday freeze", async (t) => {
  const { dir, cleanup } = await tempDir("example");
  t.after(cleanup);
  const repo = join(dir, "fluxgate", "example-fleet");
  assert.deepEqual(await ensureExampleFleet(repo, NOW), { created: true });
  assert.deepEqual(await ensureExampleFleet(repo, NOW + 1000), { created: false });
  assert.equal(await git(repo, "rev-list", "--count", "HEAD"), "1");
  assert.equal(await git(repo, "status", "--porcelain"), "");
  const fleet = await (await Repository.open(repo, { now: () => NOW })).fleet();
  assert.deepEqual(fleet.repository.types, [
    { name: "rt", window: false },
    { name: "rw", window: true },
  ]);
  assert.deepEqual(
    fleet.clusters.map((c) => c.entry.timeZone),
    ["Europe/Berlin", "America/New_York", "Asia/Tokyo"],
  );
  for (const cluster of fleet.clusters) {
    assert.ok(cluster.windows.length > 0, cluster.entry.name);
    for (const w of cluster.windows) {
      assert.deepEqual(w.problems, [], `${cluster.entry.name}/${w.name}`);
      assert.ok(
        w.window?.spec.freezes?.some((f) => f.reason === "Holiday freeze" && f.from === "2026-12-20T00:00" && f.to === "2027-01-05T00:00"),
        w.name,
      );
    }
    assert.ok(cluster.kustomization?.text.includes("apps-rw.yaml"));
  }
  assert.match(await git(repo, "ls-files"), /clusters\/edge-tokyo\/apps-rt.yaml\n.*clusters\/edge-tokyo\/apps-rw.yaml/s);
});
