// Fleet freeze on a Git working copy with the real kustomize: one change adds an override to every window of every matching cluster; listed and ended as one.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { before, test } from "node:test";
import { FleetWindows } from "../../../src/gitops/fleet/effective.ts";
import { planFleetOverrideOn } from "../../../src/gitops/fleet/plan.ts";
import { fixtureCopies, fluxgate, kustomize, snapshot } from "./helpers.ts";
import { assertRefused, fleetRepo, git } from "./fleet-repo.ts";

let bin = "";
const copy = fixtureCopies();
before(async () => {
  bin = await kustomize();
});

const repo = (): Promise<string> => fleetRepo(copy);

test("a fleet freeze is one commit with an override for each window of each matching cluster, rendered by kustomize, listed and ended as one", async () => {
  const dir = await repo();
  const kustomizations = new Map<string, string>();
  for (const c of ["edge-berlin", "edge-paris"]) kustomizations.set(c, await readFile(join(dir, `clusters/${c}/windows/kustomization.yaml`), "utf8"));
  const r = await fluxgate(
    "fleet",
    "freeze",
    "--repo",
    dir,
    "--selector",
    "region=eu",
    "--for",
    "48h",
    "--reason",
    "incident INC-7 in eu",
    "--name",
    "eu-incident",
    "--kustomize",
    bin,
  );
  assert.equal(r.stderr, "");
  assert.equal(r.code, 0);
  assert.match(r.stdout, /Fleet freeze eu-incident: 2 overrides on 2 clusters \(edge-berlin, edge-paris\)/);
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", "freeze eu");
  const files = git(dir, "show", "--name-status", "--format=", "HEAD").trim().split("\n");
  assert.deepEqual(files, [
    "M\tclusters/edge-berlin/windows/kustomization.yaml",
    "A\tclusters/edge-berlin/windows/overrides/eu-incident-prod-changes.yaml",
    "M\tclusters/edge-paris/windows/kustomization.yaml",
    "A\tclusters/edge-paris/windows/overrides/eu-incident-apps-rw.yaml",
  ]);
  // The overrides are what kustomize renders of each cluster's windows, freezing the window the cluster runs (a fleet window on berlin).
  const fleet = await FleetWindows.open(dir, { kustomize: bin });
  try {
    const berlin = await fleet.of("edge-berlin");
    assert.equal(berlin.error, null);
    assert.equal(berlin.overrides.length, 1);
    const o = berlin.overrides[0] as { metadata: { labels: Record<string, string>; annotations: Record<string, string> }; spec: Record<string, unknown> };
    assert.deepEqual(o.metadata.labels, { "fluxgate.io/fleet-override": "eu-incident" });
    assert.match(o.metadata.annotations["fluxgate.io/requested-at"] ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(
      { ...o.spec, until: undefined },
      { windowRef: { name: "prod-changes" }, action: "Freeze", until: undefined, reason: "incident INC-7 in eu" },
    );
    // --for 48h ends 48 h after the request, to the second, as the override records both.
    assert.equal(
      Date.parse(o.spec.until as string) - Date.parse(o.metadata.annotations["fluxgate.io/requested-at"] as string),
      48 * 3_600_000,
      String(o.spec.until),
    );
    assert.equal((await fleet.of("edge-tokyo")).overrides.length, 0);
  } finally {
    await fleet.close();
  }

  const list = await fluxgate("fleet", "freeze", "list", "--repo", dir, "-o", "json");
  const listed = JSON.parse(list.stdout) as {
    fleetOverrides: Array<{ name: string; stage: string; action: string; overrides: Array<{ cluster: string; window: string }> }>;
  };
  assert.equal(listed.fleetOverrides.length, 1);
  assert.equal(listed.fleetOverrides[0]?.name, "eu-incident");
  assert.equal(listed.fleetOverrides[0]?.stage, "active");
  assert.deepEqual(
    listed.fleetOverrides[0]?.overrides.map((o) => `${o.cluster}/${o.window}`),
    ["edge-berlin/prod-changes", "edge-paris/apps-rw"],
  );

  const end = await fluxgate("fleet", "freeze", "end", "eu-incident", "--repo", dir);
  assert.equal(end.code, 0, end.stderr);
  assert.match(end.stdout, /Fleet freeze eu-incident ends on 2 clusters \(edge-berlin, edge-paris\)/);
  for (const [c, text] of kustomizations)
    assert.equal(await readFile(join(dir, `clusters/${c}/windows/kustomization.yaml`), "utf8"), text, `${c}: kustomization.yaml as before the freeze`);
  git(dir, "add", "-A");
  assert.equal(git(dir, "diff", "--cached", "--name-only", "HEAD~1").trim(), "", "the end undoes the freeze exactly");
  assert.equal((await fluxgate("fleet", "freeze", "list", "--repo", dir)).stdout, "No fleet freezes.\n");
});

test("--window limits the freeze to those windows; the library plans the same change the command writes", async () => {
  const dir = await repo();
  const fleet = await FleetWindows.open(dir, { kustomize: bin });
  try {
    const now = Date.now();
    const plan = await planFleetOverrideOn(fleet, "ring=prod", {
      name: "prod-stop",
      action: "Freeze",
      until: now + 3_600_000,
      reason: "stop",
      windows: ["prod-changes"],
      now,
    });
    assert.deepEqual(plan.overrides, [
      { cluster: "edge-berlin", name: "prod-stop-prod-changes", window: "prod-changes" },
      { cluster: "edge-tokyo", name: "prod-stop-prod-changes", window: "prod-changes" },
    ]);
    assert.deepEqual(
      plan.changes.map((c) => c.path),
      [
        "clusters/edge-berlin/windows/overrides/prod-stop-prod-changes.yaml",
        "clusters/edge-berlin/windows/kustomization.yaml",
        "clusters/edge-tokyo/windows/overrides/prod-stop-prod-changes.yaml",
        "clusters/edge-tokyo/windows/kustomization.yaml",
      ],
    );
  } finally {
    await fleet.close();
  }
});

test("--for 168h, the longest, is taken and ends 168 h after the request", async () => {
  const dir = await repo();
  for (let i = 0; i < 3; i++) {
    const r = await fluxgate(
      "fleet",
      "freeze",
      "--repo",
      dir,
      "--selector",
      "site=paris",
      "--for",
      "168h",
      "--reason",
      "a week",
      "--name",
      `week-${i}`,
      "--kustomize",
      bin,
    );
    assert.equal(r.stderr, "");
    const text = await readFile(join(dir, `clusters/edge-paris/windows/overrides/week-${i}-apps-rw.yaml`), "utf8");
    const requested = /fluxgate\.io\/requested-at: "([^"]+)"/.exec(text)?.[1] ?? "";
    const until = /until: "([^"]+)"/.exec(text)?.[1] ?? "";
    assert.equal(Date.parse(until) - Date.parse(requested), 168 * 3_600_000, text);
  }
});

test("bad input is refused with a specific error and nothing is written", async () => {
  const dir = await repo();
  const freeze = ["fleet", "freeze", "--repo", dir, "--kustomize", bin];
  const cases: Array<[string[], RegExp]> = [
    [[...freeze, "--for", "2h", "--reason", "x"], /give the clusters to freeze: --selector SELECTOR/],
    [[...freeze, "--selector", "region=eu", "--for", "2h"], /--reason is required/],
    [[...freeze, "--selector", "region=eu", "--reason", "x"], /give exactly one of --for DURATION/],
    [[...freeze, "--selector", "region=eu", "--for", "200h", "--reason", "x"], /^error: --for 200h: an override lasts at most 7 days \(168h\)/],
    [[...freeze, "--selector", "region=eu", "--for", "169h", "--reason", "x"], /^error: --for 169h: an override lasts at most 7 days \(168h\)/],
    [
      [...freeze, "--selector", "region=eu", "--for", "90500ms", "--reason", "x"],
      /^error: --for 90500ms: give whole seconds: an override's end is kept to the second\n$/,
    ],
    [
      [...freeze, "--selector", "region=eu", "--until", "2099-01-01T00:00:00Z", "--reason", "x"],
      /^error: --until 2099-01-01T00:00:00Z: an override lasts at most 7 days \(168h\)/,
    ],
    [[...freeze, "--selector", "region=eu", "--for", "2h", "--reason", "r".repeat(1025)], /^error: --reason: .*1024 characters\n$/],
    [[...freeze, "--selector", "region=eu", "--until", "2020-01-01T00:00:00Z", "--reason", "x"], /--until 2020-01-01T00:00:00Z is not in the future/],
    [[...freeze, "--selector", "region=eu", "--until", "tomorrow", "--reason", "x"], /--until tomorrow: give an RFC 3339 date-time with a zone/],
    [[...freeze, "--selector", "region=eu", "--for", "2 hours", "--reason", "x"], /--for 2 hours: /],
    [[...freeze, "--selector", "region=mars", "--for", "2h", "--reason", "x"], /--selector region=mars: no cluster of fluxgate.yaml matches/],
    [
      [...freeze, "--selector", "region=eu", "--for", "2h", "--reason", "x", "--window", "apps-rw"],
      /cluster edge-berlin has none of the windows apps-rw \(it has prod-changes\)/,
    ],
    [[...freeze, "--selector", "region=eu", "--for", "2h", "--reason", "x", "--name", "Not OK"], /--name Not OK: must be a DNS label/],
    [["fleet", "freeze", "end", "nope", "--repo", dir], /no fleet override is named nope \(fleet overrides: none\)/],
  ];
  await assertRefused(dir, cases);
  // A name in use: the second freeze of the same name is refused, the first stays as it was.
  assert.equal((await fluxgate(...freeze, "--selector", "site=paris", "--for", "2h", "--reason", "x", "--name", "twice")).code, 0);
  const once = await snapshot(dir);
  const again = await fluxgate(...freeze, "--selector", "site=paris", "--for", "2h", "--reason", "x", "--name", "twice");
  assert.equal(again.code, 2);
  assert.match(again.stderr, /a fleet override named twice exists/);
  assert.deepEqual(await snapshot(dir), once);
});
