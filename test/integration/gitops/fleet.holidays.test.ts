// One fleet window of public holidays for 1,000 clusters in 20 countries: each cluster's window, as the real kustomize renders it and fluxgate validates it for
// that cluster, freezes its own country's (and subdivision's) holidays, named; a cluster without the label is refused by name, never given "no holidays".

import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { stringify } from "yaml";
import { FleetWindows } from "../../../src/gitops/fleet/effective.ts";
import { fleetWindowManifest } from "../../../src/gitops/fleet/windows.ts";
import { Evaluator, holidaysOf } from "../../../src/schedule/index.ts";
import { fixtureCopies, fluxgate, kustomize } from "./helpers.ts";
import { assertRefused, fleetRepo, git } from "./fleet-repo.ts";

/** Twenty countries; a few clusters also name a subdivision (an empty label: the whole country). */
const COUNTRIES: ReadonlyArray<[string, string[]]> = [
  ["DE", ["BY", "BE", ""]],
  ["FR", [""]],
  ["JP", [""]],
  ["US", ["", "CA"]],
  ["GB", ["ENG", "SCT"]],
  ["CA", ["QC", "ON"]],
  ["AU", ["NSW", "VIC"]],
  ["IT", [""]],
  ["ES", ["", "MD"]],
  ["NL", [""]],
  ["AT", [""]],
  ["CH", ["ZH", "GE"]],
  ["BE", [""]],
  ["PL", [""]],
  ["SE", [""]],
  ["NO", [""]],
  ["DK", [""]],
  ["FI", [""]],
  ["IE", [""]],
  ["PT", [""]],
];
const CLUSTERS = 1000;
const copy = fixtureCopies();
const FROM = Date.UTC(2026, 0, 1);
const TO = Date.UTC(2027, 0, 1);
const DAY = 86_400_000;

function clusterAt(i: number): { name: string; country: string; subdivision: string } {
  const [country, subdivisions] = COUNTRIES[i % COUNTRIES.length] as [string, string[]];
  const subdivision = subdivisions[Math.floor(i / COUNTRIES.length) % subdivisions.length] as string;
  return { name: `edge-${String(i).padStart(4, "0")}`, country, subdivision };
}

async function write(dir: string, path: string, text: string): Promise<void> {
  await mkdir(dirname(join(dir, path)), { recursive: true });
  await writeFile(join(dir, path), text);
}

test("one fleet window gives 1,000 clusters in 20 countries each its own public holidays, from their labels; a cluster without the label is refused", async () => {
  const bin = await kustomize();
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-fleet-holidays-"));
  try {
    const clusters = Array.from({ length: CLUSTERS }, (_, i) => clusterAt(i));
    const entries = clusters.map(
      (c) => `  - {name: ${c.name}, path: clusters/${c.name}, timeZone: UTC, labels: {country: ${c.country}, subdivision: "${c.subdivision}"}}`,
    );
    // One more cluster that has a country but no subdivision label.
    entries.push("  - {name: edge-unplaced, path: clusters/edge-unplaced, timeZone: UTC, labels: {country: FR}}");
    await write(
      dir,
      "fluxgate.yaml",
      `apiVersion: fluxgate.io/v1alpha1\nkind: Repository\ntypes:\n  - {name: rw, window: true}\nclusters:\n${entries.join("\n")}\n`,
    );
    const window = fleetWindowManifest("public-holidays", "country", {
      freezes: [{ holidays: { fromClusterLabels: { country: "country", subdivision: "subdivision" } } }],
      targets: [{ kind: "Kustomization", name: "apps-rw" }],
    });
    await write(dir, "fleet/windows/public-holidays/public-holidays.yaml", stringify(window));
    await write(
      dir,
      "fleet/windows/public-holidays/kustomization.yaml",
      "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - public-holidays.yaml\n",
    );
    for (const name of [...clusters.map((c) => c.name), "edge-unplaced"]) {
      await write(
        dir,
        `clusters/${name}/windows/kustomization.yaml`,
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../../../fleet/windows/public-holidays\n",
      );
    }
    git(dir, "init", "-q", "-b", "main");
    git(dir, "add", "-A");
    git(dir, "commit", "-qm", "A fleet of 1,000 clusters in 20 countries with one holiday window");

    const fleet = await FleetWindows.open(dir, { kustomize: bin });
    try {
      const entriesByName = new Map((fleet.repository?.clusters ?? []).map((e) => [e.name, e]));
      const calendars = new Map<string, string>();
      for (const c of clusters) {
        const rendered = await fleet.of(entriesByName.get(c.name) as NonNullable<ReturnType<typeof entriesByName.get>>, FROM);
        assert.equal(rendered.error, null, c.name);
        const [w] = rendered.windows;
        assert.ok(w !== undefined && w.fleetWindow === "public-holidays", c.name);
        assert.deepEqual(w.problems, [], c.name);
        assert.ok(w.compiled !== null, c.name);
        // The frozen days of 2026 are exactly the library's public holidays of the cluster's country and subdivision, by name.
        const frozen = new Evaluator([w.compiled])
          .segments(FROM, TO, { byRule: true })
          .filter((s) => s.state === "frozen")
          .map((s) => `${new Date(s.start).toISOString().slice(0, 10)} ${s.cause?.reason ?? ""}`);
        const expected = holidaysOf(c.country, c.subdivision === "" ? undefined : c.subdivision, ["public"], 2026).map(
          (h) => `${new Date(h.day * DAY).toISOString().slice(0, 10)} ${h.name}`,
        );
        assert.ok(expected.length > 0, `${c.country}-${c.subdivision} has holidays`);
        assert.deepEqual(frozen, expected, `${c.name} (${c.country}${c.subdivision === "" ? "" : `-${c.subdivision}`})`);
        calendars.set(`${c.country}-${c.subdivision}`, frozen.join("\n"));
      }
      // 20 countries, 28 regions, each its own calendar; Bavaria freezes Fronleichnam, Berlin does not.
      assert.equal(new Set([...calendars.keys()].map((k) => k.split("-")[0])).size, 20);
      assert.equal(new Set(calendars.values()).size, calendars.size);
      assert.match(calendars.get("DE-BY") ?? "", /^2026-06-04 Fronleichnam$/m);
      assert.doesNotMatch(calendars.get("DE-BE") ?? "", /Fronleichnam/);
      // Rendering is shared (one kustomize build serves every cluster); validation is per cluster.
      assert.ok(fleet.cacheHits >= CLUSTERS - 1, `cache hits ${fleet.cacheHits}`);

      const unplaced = await fleet.of(entriesByName.get("edge-unplaced") as NonNullable<ReturnType<typeof entriesByName.get>>, FROM);
      assert.equal(unplaced.windows[0]?.compiled, null);
      assert.deepEqual(unplaced.windows[0]?.problems, [
        {
          path: "spec.freezes[0].holidays.fromClusterLabels.subdivision",
          message:
            'cluster edge-unplaced has no label "subdivision": give it one in fluxgate.yaml (its subdivision code) — a fleet window never takes "no holidays" for a cluster it cannot place',
        },
      ]);
    } finally {
      await fleet.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("fleet window add and check take the holidays from each cluster's labels: a cluster without the label is refused, naming it and the field", async (t) => {
  const bin = await kustomize();
  const dir = await fleetRepo(copy);
  const files = await mkdtemp(join(tmpdir(), "fluxgate-fleet-holidays-file-"));
  t.after(() => rm(files, { recursive: true, force: true }));
  const file = join(files, "holidays.yaml");
  await writeFile(
    file,
    "apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata:\n  name: public-holidays\nspec:\n  freezes:\n    - holidays: {fromClusterLabels: {country: country}}\n  targets: [{kind: Kustomization, name: apps-rw}]\n",
  );
  const add = ["fleet", "window", "add", "public-holidays", "--repo", dir, "--selector", "region=eu", "--file", file];
  // The fixture's clusters have no country label yet: refused, nothing written.
  await assertRefused(dir, [
    [add, /fleet window public-holidays: spec\.freezes\[0\]\.holidays\.fromClusterLabels\.country: cluster edge-berlin has no label "country"/],
  ]);

  const repositoryFile = join(dir, "fluxgate.yaml");
  const labelled = (await readFile(repositoryFile, "utf8"))
    .replace("site: berlin", "site: berlin\n      country: DE")
    .replace("site: paris", "site: paris\n      country: FR");
  await writeFile(repositoryFile, labelled);
  const added = await fluxgate(...add);
  assert.equal(added.code, 0, added.stderr);
  const clean = await fluxgate("check", dir, "--selector", "region=eu", "--kustomize", bin, "-o", "json");
  assert.equal(clean.code, 0, clean.stdout);

  // Paris loses its label: check names the cluster, the window and the field.
  await writeFile(repositoryFile, labelled.replace("\n      country: FR", ""));
  const r = await fluxgate("check", dir, "--selector", "region=eu", "--kustomize", bin, "-o", "json");
  assert.equal(r.code, 1, r.stderr);
  const findings = JSON.parse(r.stdout).findings as Array<{ rule: string; cluster: string; message: string }>;
  const invalid = findings.filter((f) => f.rule === "invalid-schedule");
  assert.deepEqual(
    invalid.map((f) => f.cluster),
    ["edge-paris"],
  );
  assert.match(invalid[0]?.message ?? "", /spec\.freezes\[0\]\.holidays\.fromClusterLabels\.country: cluster edge-paris has no label "country"/);
});
