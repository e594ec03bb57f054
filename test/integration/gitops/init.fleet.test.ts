// init on clusters whose windows come from fleet windows, with real git and the real kustomize: no placeholder window for a Kustomization a fleet window
// already governs, so a cluster's windows stay as they were and a second run changes nothing; a new cluster or a new type still gets its placeholder.

import assert from "node:assert/strict";
import { appendFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { before, test } from "node:test";
import { FleetWindows } from "../../../src/gitops/fleet/effective.ts";
import { fixtureCopies, fluxgate, kustomize, snapshot } from "./helpers.ts";
import { fleetRepo, git } from "./fleet-repo.ts";

let bin = "";
const copy = fixtureCopies();
before(async () => {
  bin = await kustomize();
});

/** Each cluster's windows as kustomize renders them: the names and zones of those that act on it, or the build error. */
async function windowsOf(dir: string, clusters: readonly string[]): Promise<Record<string, unknown>> {
  const fleet = await FleetWindows.open(dir, { kustomize: bin });
  try {
    const out: Record<string, unknown> = {};
    for (const c of clusters) {
      const r = await fleet.of(c);
      out[c] = r.error ?? r.windows.map((w) => `${w.name} ${String(w.window?.spec.timeZone)}`);
    }
    return out;
  } finally {
    await fleet.close();
  }
}

/** A Git working copy of a fixture. */
async function repo(name: string): Promise<string> {
  if (name === "fleet") return fleetRepo(copy);
  const dir = await copy(name);
  git(dir, "init", "-q", "-b", "main");
  git(dir, "add", "-A");
  git(dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", name);
  return dir;
}

const CLUSTERS = ["edge-berlin", "edge-paris", "edge-tokyo"];

test("init on the clusters of the per-cluster fleet fixture writes their identity and no placeholder beside the fleet window; a second run changes nothing", async () => {
  const dir = await repo("fleet");
  const windows = await windowsOf(dir, CLUSTERS);
  assert.deepEqual(windows, {
    "edge-berlin": ["prod-changes Europe/Berlin"],
    "edge-paris": ["apps-rw Europe/Paris"],
    "edge-tokyo": ["prod-changes Asia/Tokyo"],
  });
  for (const cluster of ["edge-berlin", "edge-tokyo"]) {
    const first = await fluxgate("init", dir, "--cluster", cluster);
    assert.deepEqual([first.code, first.stderr], [0, ""]);
    assert.equal(
      first.stdout,
      `created clusters/${cluster}/windows/fluxgate-cluster.yaml\nupdated clusters/${cluster}/windows/kustomization.yaml\nCluster ${cluster} is set up at clusters/${cluster}.\nKustomization apps-rw is governed by the cluster's fleet windows: no placeholder window for it.\n`,
    );
    git(dir, "add", "-A");
    git(dir, "commit", "-qm", `init ${cluster}`);
    assert.deepEqual(git(dir, "show", "--name-status", "--format=", "HEAD").trim().split("\n"), [
      `A\tclusters/${cluster}/windows/fluxgate-cluster.yaml`,
      `M\tclusters/${cluster}/windows/kustomization.yaml`,
    ]);
    const again = await fluxgate("init", dir, "--cluster", cluster);
    assert.deepEqual([again.code, again.stdout, again.stderr], [0, `Cluster ${cluster} is already set up; nothing changed.\n`, ""]);
    assert.equal(git(dir, "status", "--porcelain", "--untracked-files=all"), "");
  }
  // The cluster that keeps a window of its own keeps it, and gets no second one.
  assert.equal((await fluxgate("init", dir, "--cluster", "edge-paris")).code, 0);
  assert.equal((await fluxgate("init", dir, "--selector", "region", "--dry-run")).stdout, "");
  // Every cluster runs the windows it ran before, as kustomize renders them, and check finds nothing.
  assert.deepEqual(await windowsOf(dir, CLUSTERS), windows);
  const check = await fluxgate("check", dir, "--kustomize", bin);
  assert.equal(check.code, 0, check.stdout);
  assert.match(check.stdout, /^No findings in 3 clusters/m);
});

test("init on the fleet folder fixture changes nothing, cluster by cluster or all at once", async () => {
  const dir = await repo("fleet-folder");
  const files = await snapshot(dir);
  for (const cluster of CLUSTERS) {
    const r = await fluxgate("init", dir, "--cluster", cluster);
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, `Cluster ${cluster} is already set up; nothing changed.\n`, ""]);
  }
  const all = await fluxgate("init", dir, "--selector", "region");
  assert.deepEqual([all.code, all.stdout], [0, "Clusters edge-berlin, edge-paris, edge-tokyo are already set up; nothing changed.\n"]);
  assert.equal((await fluxgate("init", dir, "--cluster", "edge-berlin", "--fleet-folder", "--dry-run")).stdout, "");
  assert.deepEqual(await snapshot(dir), files);
  assert.equal(git(dir, "status", "--porcelain", "--untracked-files=all"), "");
});

test("a new cluster gets a placeholder unless a fleet window selects it, and a new type gets its placeholder beside the fleet window", async () => {
  const dir = await repo("fleet-folder");
  await appendFile(
    join(dir, "fluxgate.yaml"),
    [
      "  - name: edge-lab",
      "    path: clusters/edge-lab",
      "    timeZone: Europe/Berlin",
      "    labels:",
      "      ring: prod",
      "  - name: edge-dev",
      "    path: clusters/edge-dev",
      "    timeZone: Europe/Berlin",
      "    labels:",
      "      ring: dev",
      "",
    ].join("\n"),
  );
  for (const cluster of ["edge-lab", "edge-dev"]) assert.equal((await fluxgate("init", dir, "--cluster", cluster)).code, 0);
  // A cluster fluxgate.yaml does not know yet (no labels): as before.
  const fresh = await fluxgate("init", dir, "--cluster", "edge-new", "--time-zone", "Europe/Rome");
  assert.equal(fresh.code, 0, fresh.stderr);
  assert.match(fresh.stdout, /^created clusters\/edge-new\/windows\/apps-rw\.yaml$/m);
  assert.match(fresh.stdout, /edit the placeholder schedules in clusters\/edge-new\/windows\/\.\n$/);
  // A new window type for a prod cluster: its placeholder, and none for apps-rw, which prod-changes governs.
  const nightly = await fluxgate("init", dir, "--cluster", "edge-berlin", "--types", "rt,rw,nightly");
  assert.equal(nightly.code, 0, nightly.stderr);
  assert.match(nightly.stdout, /^created clusters\/edge-berlin\/windows\/apps-nightly\.yaml$/m);
  assert.doesNotMatch(nightly.stdout, /windows\/apps-rw\.yaml/);
  assert.deepEqual(await windowsOf(dir, ["edge-lab", "edge-dev", "edge-new", "edge-berlin"]), {
    "edge-lab": ["prod-changes Europe/Berlin"],
    "edge-dev": ["apps-rw Europe/Berlin"],
    "edge-new": ["apps-rw Europe/Rome"],
    "edge-berlin": ["apps-nightly Europe/Berlin", "prod-changes Europe/Berlin"],
  });
});

test("a fleet window that targets the Kustomizations of a type by their labels governs them too", async () => {
  const dir = await repo("fleet");
  const file = join(dir, "nightly.yaml");
  await writeFile(
    file,
    [
      "apiVersion: fluxgate.io/v1alpha1",
      "kind: ReconciliationWindow",
      "metadata:",
      "  name: prod-nightly",
      "  namespace: flux-system",
      "spec:",
      "  timeZone: Europe/Berlin",
      "  schedules:",
      '    - start: "0 1 * * *"',
      "      duration: 2h",
      "  targets:",
      "    - kind: Kustomization",
      "      labelSelector:",
      "        matchLabels:",
      "          fluxgate.io/type: nightly",
      "",
    ].join("\n"),
  );
  const add = await fluxgate("fleet", "window", "add", "prod-nightly", "--repo", dir, "--selector", "ring=prod", "--file", file);
  assert.equal(add.code, 0, add.stderr);
  const r = await fluxgate("init", dir, "--selector", "region", "--types", "rt,rw,nightly");
  assert.equal(r.code, 0, r.stderr);
  // edge-paris (canary) gets the placeholder of the new type; the prod clusters get none for either window type.
  assert.deepEqual(
    r.stdout
      .split("\n")
      .filter((l) => /\/windows\/apps-/.test(l))
      .sort(),
    ["created clusters/edge-paris/windows/apps-nightly.yaml"],
  );
  assert.deepEqual(await windowsOf(dir, CLUSTERS), {
    "edge-berlin": ["prod-changes Europe/Berlin", "prod-nightly Europe/Berlin"],
    "edge-paris": ["apps-nightly Europe/Paris", "apps-rw Europe/Paris"],
    "edge-tokyo": ["prod-changes Asia/Tokyo", "prod-nightly Europe/Berlin"],
  });
});
