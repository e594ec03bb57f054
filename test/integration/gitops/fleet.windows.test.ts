// Fleet windows on a real repository with the real kustomize: add writes one base that the selected clusters include, patch changes one cluster, what kustomize
// renders is the effective window.

import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, test } from "node:test";
import { parseAllDocuments } from "yaml";
import { effectiveWindows } from "../../../src/gitops/fleet/effective.ts";
import { build, fixtureCopies, fluxgate, kustomize, snapshot } from "./helpers.ts";
import { assertRefused, fleetRepo, git } from "./fleet-repo.ts";

let bin = "";
const copy = fixtureCopies();
before(async () => {
  bin = await kustomize();
});

const repo = (): Promise<string> => fleetRepo(copy);

/** The files the working copy changed since its last commit. */
function changedFiles(dir: string): string[] {
  git(dir, "add", "-A");
  return git(dir, "diff", "--cached", "--name-only")
    .trim()
    .split("\n")
    .filter((l) => l !== "");
}

const zoneOf = async (dir: string, cluster: string, window: string): Promise<unknown> =>
  (await effectiveWindows(dir, cluster, { kustomize: bin })).find((w) => w.name === window)?.window?.spec.timeZone;

test("add writes the window once and every selected cluster includes it, comments kept; kustomize renders it there", async () => {
  const dir = await repo();
  const r = await fluxgate(
    "fleet",
    "window",
    "add",
    "eu-nightly",
    "--repo",
    dir,
    "--selector",
    "region=eu",
    "--start",
    "0 22 * * *",
    "--duration",
    "2h",
    "--time-zone",
    "Europe/Berlin",
    "--target",
    "Kustomization/apps-rw",
  );
  assert.equal(r.stderr, "");
  assert.equal(r.code, 0);
  assert.match(r.stdout, /Fleet window eu-nightly is in fleet\/windows\/eu-nightly\/eu-nightly\.yaml, taken by 2 clusters: edge-berlin, edge-paris\.\n$/);
  assert.deepEqual(changedFiles(dir), [
    "clusters/edge-berlin/windows/kustomization.yaml",
    "clusters/edge-paris/windows/kustomization.yaml",
    "fleet/windows/eu-nightly/eu-nightly.yaml",
    "fleet/windows/eu-nightly/kustomization.yaml",
  ]);
  const paris = await readFile(join(dir, "clusters/edge-paris/windows/kustomization.yaml"), "utf8");
  assert.match(paris, /^# The windows and overrides of edge-paris/);
  assert.match(paris, /resources:\n {2}- apps-rw\.yaml\n {2}- \.\.\/\.\.\/\.\.\/fleet\/windows\/eu-nightly\n/);
  for (const cluster of ["edge-berlin", "edge-paris"]) {
    const windows = await effectiveWindows(dir, cluster, { kustomize: bin });
    const w = windows.find((x) => x.name === "eu-nightly");
    assert.equal(w?.fleetWindow, "eu-nightly");
    assert.deepEqual(w?.window?.spec.schedules, [{ start: "0 22 * * *", duration: "2h" }]);
    assert.deepEqual(w?.problems, []);
    // The effective window is what kustomize itself builds of the cluster's windows folder.
    const built = parseAllDocuments(await build(bin, join(dir, `clusters/${cluster}/windows`))).map(
      (d) => d.toJS() as { metadata: { name: string }; spec: unknown },
    );
    assert.deepEqual(built.find((o) => o.metadata.name === "eu-nightly")?.spec, w?.manifest.spec);
  }
  assert.equal(
    (await effectiveWindows(dir, "edge-tokyo", { kustomize: bin })).some((w) => w.name === "eu-nightly"),
    false,
  );
});

test("patch changes one cluster's window; a second patch keeps what the first set", async () => {
  const dir = await repo();
  assert.equal(await zoneOf(dir, "edge-tokyo", "prod-changes"), "Asia/Tokyo"); // the fixture's patch
  assert.equal(await zoneOf(dir, "edge-berlin", "prod-changes"), "Europe/Berlin");
  const r = await fluxgate(
    "fleet",
    "window",
    "patch",
    "prod-changes",
    "--repo",
    dir,
    "--cluster",
    "edge-tokyo",
    "--start",
    "0 10 * * MON-FRI",
    "--end",
    "0 16 * * MON-FRI",
  );
  assert.equal(r.stderr, "");
  assert.equal(r.code, 0);
  assert.deepEqual(changedFiles(dir), ["clusters/edge-tokyo/windows/kustomization.yaml"]);
  const tokyo = (await effectiveWindows(dir, "edge-tokyo", { kustomize: bin })).find((w) => w.name === "prod-changes");
  assert.equal(tokyo?.window?.spec.timeZone, "Asia/Tokyo");
  assert.deepEqual(tokyo?.window?.spec.schedules, [{ start: "0 10 * * MON-FRI", end: "0 16 * * MON-FRI" }]);
  const berlin = (await effectiveWindows(dir, "edge-berlin", { kustomize: bin })).find((w) => w.name === "prod-changes");
  assert.deepEqual(berlin?.window?.spec.schedules, [{ start: "0 8 * * MON-THU", end: "0 17 * * MON-THU" }]);
  const text = await readFile(join(dir, "clusters/edge-tokyo/windows/kustomization.yaml"), "utf8");
  assert.equal(text.match(/name: prod-changes/g)?.length, 1, "one patch entry for the window");
});

test("patch of a cluster that has none writes a patches entry with the target", async () => {
  const dir = await repo();
  const r = await fluxgate("fleet", "window", "patch", "prod-changes", "--repo", dir, "--cluster", "edge-berlin", "--time-zone", "Europe/Lisbon", "--dry-run");
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /\+patches:\n\+ {2}- target:\n\+ {6}kind: ReconciliationWindow\n\+ {6}name: prod-changes\n\+ {4}patch: \|\n\+ {6}- op: add\n\+ {8}path: \/spec\/timeZone\n\+ {8}value: Europe\/Lisbon\n/,
  );
  assert.deepEqual(changedFiles(dir), [], "--dry-run writes nothing");
});

test("bad input is refused with a specific error and nothing is written", async () => {
  const dir = await repo();
  const add = ["fleet", "window", "add", "--repo", dir];
  const spec = ["--start", "0 8 * * MON", "--duration", "2h", "--target", "Kustomization/apps-rw"];
  const cases: Array<[string[], RegExp]> = [
    [[...add, "w", "--selector", "ring in (prod", ...spec], /--selector "ring in \(prod": parentheses do not match/],
    [
      [...add, "w", "--selector", "ring=lab", ...spec],
      /--selector ring=lab: no cluster of fluxgate.yaml matches \(clusters and labels: edge-berlin \{region=eu,ring=prod,site=berlin\}/,
    ],
    [[...add, "prod-changes", "--selector", "ring=prod", ...spec], /fleet window prod-changes exists \(fleet\/windows\/prod-changes\/\)/],
    [[...add, "apps-rw", "--selector", "site=paris", ...spec], /cluster edge-paris has a window of its own named apps-rw/],
    [[...add, "Bad_Name", "--selector", "ring=prod", ...spec], /fleet window "Bad_Name": the name must be a Kubernetes object name/],
    [
      [...add, "w", "--selector", "ring=prod", "--start", "0 8 * * MON", "--duration", "2h", "--time-zone", "Mars/Base", "--target", "Kustomization/apps-rw"],
      /fleet window w: spec\.timeZone: .*Mars\/Base/,
    ],
    [
      [...add, "w", "--selector", "ring=prod", "--start", "0 0 30 2 *", "--duration", "2h", "--target", "Kustomization/apps-rw"],
      /fleet window w: spec\.schedules\[0\]\.start/,
    ],
    [[...add, "w", "--selector", "ring=prod", "--start", "0 8 * * MON", "--duration", "2h"], /give what the window governs: --target KIND\/NAME/],
    [
      ["fleet", "window", "patch", "prod-changes", "--repo", dir, "--cluster", "edge-paris", "--time-zone", "UTC"],
      /cluster edge-paris does not include fleet window prod-changes/,
    ],
    [
      ["fleet", "window", "patch", "prod-changes", "--repo", dir, "--cluster", "edge-tokyo", "--time-zone", "Asia/Nowhere"],
      /fleet window prod-changes: spec\.timeZone: .*Asia\/Nowhere/,
    ],
    [["fleet", "window", "patch", "nope", "--repo", dir, "--cluster", "edge-tokyo", "--time-zone", "UTC"], /fleet window nope does not exist/],
    [
      ["fleet", "window", "patch", "prod-changes", "--repo", dir, "--cluster", "edge-lima", "--time-zone", "UTC"],
      /--cluster edge-lima: not a cluster of fluxgate.yaml \(clusters: edge-berlin, edge-paris, edge-tokyo\)/,
    ],
    [["fleet", "window", "patch", "prod-changes", "--repo", dir, "--cluster", "edge-tokyo"], /say what the cluster changes/],
  ];
  await assertRefused(dir, cases);
});

test("--file with several YAML documents is refused, saying how many it has and that one window is expected; nothing is written", async (t) => {
  const dir = await repo();
  const files = await mkdtemp(join(tmpdir(), "fluxgate-fleet-file-"));
  t.after(() => rm(files, { recursive: true, force: true }));
  const window = (name: string): string =>
    `apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata:\n  name: ${name}\nspec:\n  schedules: [{start: "0 22 * * *", duration: 2h}]\n  targets: [{kind: Kustomization, name: apps-rw}]\n`;
  const two = join(files, "two.yaml");
  await writeFile(two, `${window("eu-nightly")}---\n${window("eu-weekly")}`);
  const three = join(files, "three.yaml");
  await writeFile(three, `---\n${window("eu-nightly")}---\n${window("a")}---\n${window("b")}---\n`);
  const add = ["fleet", "window", "add", "eu-nightly", "--repo", dir, "--selector", "region=eu", "--file"];
  await assertRefused(dir, [
    [
      [...add, two],
      new RegExp(`^error: --file ${two}: the file has 2 YAML documents; one window definition \\(a ReconciliationWindow manifest\\) expected\n$`),
    ],
    [[...add, three], /--file .*three\.yaml: the file has 3 YAML documents; one window definition/],
  ]);
  // One document between separators is one window.
  const one = join(files, "one.yaml");
  await writeFile(one, `---\n${window("eu-nightly")}---\n`);
  const r = await fluxgate(...add, one, "--dry-run");
  assert.equal(r.stderr, "");
  assert.equal(r.code, 0);
});

test("a bad label in fluxgate.yaml stops every fleet command, naming the cluster and the label", async () => {
  const dir = await repo();
  const file = join(dir, "fluxgate.yaml");
  await writeFile(file, (await readFile(file, "utf8")).replace("site: paris", "site: Paris Nord"));
  const before = await snapshot(dir);
  const r = await fluxgate(
    "fleet",
    "window",
    "add",
    "w",
    "--repo",
    dir,
    "--selector",
    "ring=prod",
    "--start",
    "0 8 * * MON",
    "--duration",
    "2h",
    "--target",
    "Kustomization/apps-rw",
  );
  assert.equal(r.code, 2);
  assert.equal(
    r.stderr,
    "error: fluxgate.yaml: cluster \"edge-paris\": label \"site\": \"Paris Nord\" must be a label value: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit\n",
  );
  assert.deepEqual(await snapshot(dir), before);
});

test("list shows each fleet window, who includes and patches it, and --selector narrows it", async () => {
  const dir = await repo();
  const r = await fluxgate("fleet", "window", "list", "--repo", dir);
  assert.equal(
    r.stdout,
    "NAME           SELECTOR    CLUSTERS                  NOT INCLUDED\nprod-changes   ring=prod   edge-berlin,edge-tokyo*   -\n* patches it for itself; ! its labels no longer match the selector.\n",
  );
  const json = JSON.parse((await fluxgate("fleet", "window", "list", "--repo", dir, "--selector", "region=apac", "-o", "json")).stdout) as {
    fleetWindows: Array<{ clusters: Array<{ name: string; patched: boolean }> }>;
  };
  assert.deepEqual(json.fleetWindows[0]?.clusters, [{ name: "edge-tokyo", patched: true, labelsMatch: true }]);
  assert.equal(
    (await fluxgate("fleet", "window", "list", "--repo", dir, "--selector", "ring=canary")).stdout,
    "No fleet windows for clusters matching ring=canary (fleet/windows/ is empty).\n",
  );
});

test("check --selector and init --selector take the clusters whose labels match", async () => {
  const dir = await repo();
  const r = await fluxgate("check", dir, "--selector", "region=eu", "--kustomize", bin, "-o", "json");
  assert.equal(r.code, 0, r.stderr);
  const all = await fluxgate("check", dir, "--selector", "region=eu", "--kustomize", bin);
  assert.match(all.stdout, /^No findings in 2 clusters \(6 Kustomizations rendered\)\.\n/);
  const bad = await fluxgate("check", dir, "--selector", "region=mars", "--kustomize", bin);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--selector region=mars: no cluster of fluxgate.yaml matches/);
  const both = await fluxgate("check", dir, "--selector", "region=eu", "--cluster", "edge-paris", "--kustomize", bin);
  assert.equal(both.stderr, "error: give --cluster or --selector, not both\n");

  const init = await fluxgate("init", dir, "--selector", "ring=prod", "--types", "rt,rw,nightly");
  assert.equal(init.code, 0, init.stderr);
  assert.match(init.stdout, /Clusters edge-berlin, edge-tokyo are set up\.\n$/);
  const changed = changedFiles(dir);
  assert.ok(changed.includes("clusters/edge-berlin/apps-nightly.yaml") && changed.includes("clusters/edge-tokyo/apps-nightly.yaml"), changed.join(", "));
  assert.equal(
    changed.some((f) => f.includes("edge-paris")),
    false,
    changed.join(", "),
  );
});
