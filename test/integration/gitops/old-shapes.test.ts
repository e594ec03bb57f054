// Older kustomize and Flux shapes (no apiVersion/kind, .yml, `Kustomization` files, bases:, patchesStrategicMerge, Flux v1beta1/v1beta2): read, rendered, and
// edited by migrate and split.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { before, test } from "node:test";
import { RepoFiles } from "../../../src/gitops/files.ts";
import { findKustomize, KustomizeRunner } from "../../../src/gitops/kustomize.ts";
import { Renderer } from "../../../src/gitops/render.ts";
import { build, fixtureCopies, fluxgate, kustomize, snapshot } from "./helpers.ts";

let bin = "";
before(async () => {
  bin = await kustomize();
});

const copies = fixtureCopies();
const fixture = (): Promise<string> => copies("old-shapes");

async function findings(dir: string): Promise<{ code: number; findings: Array<{ rule: string; object: string; file: string }> }> {
  const r = await fluxgate("check", dir, "-o", "json", "--kustomize", bin);
  assert.equal(r.stderr, "");
  return { code: r.code, findings: JSON.parse(r.stdout).findings };
}

test("rendering: a v1beta2 bootstrap, v1beta1 Kustomizations with spec.patchesStrategicMerge, and kustomizations without apiVersion/kind, with bases: and patchesStrategicMerge:", async () => {
  const dir = await fixture();
  const renderer = new Renderer(new RepoFiles(dir), new KustomizeRunner(await findKustomize(bin, {})));
  try {
    const cluster = await renderer.renderCluster("lab", "clusters/lab", [Renderer.bootstrapRoot("clusters/lab")]);
    assert.deepEqual(
      cluster.kustomizations.map((k) => [k.name, k.path, k.error]),
      [
        ["apps", "apps/lab", null],
        ["flux-system", "clusters/lab", null],
        ["maintenance", "maintenance/lab", null],
      ],
    );
    const apps = cluster.kustomizations.find((k) => k.name === "apps");
    const shop = apps?.objects.find((o) => o.ref.kind === "Deployment")?.body as any;
    assert.equal(shop.spec.replicas, 3, "the v1beta1 Kustomization's own patchesStrategicMerge");
    assert.equal(shop.spec.template.spec.containers[0].resources.limits.memory, "256Mi", "the overlay's patchesStrategicMerge");
    const settings = apps?.objects.find((o) => o.ref.kind === "ConfigMap")?.body as any;
    assert.equal(settings.data.LOG_LEVEL, "info", "the base's patchesStrategicMerge");
    assert.equal(apps?.objects.find((o) => o.ref.kind === "ConfigMap")?.file, "apps/shop/config.yml");
    const jobs = cluster.kustomizations.find((k) => k.name === "maintenance")?.objects.filter((o) => o.ref.kind === "CronJob") ?? [];
    assert.deepEqual(
      jobs.map((j) => [j.ref.name, String((j.body as any).spec.schedule), j.file]),
      [
        ["shop-updates-off", "0 13 * * SAT", "maintenance/base/jobs.yml"],
        ["shop-updates-on", "0 9 * * SAT", "maintenance/base/jobs.yml"],
      ],
    );
    const on = jobs.find((j) => j.ref.name === "shop-updates-on")?.body as any;
    assert.equal(on.spec.concurrencyPolicy, "Forbid", "the overlay's patchesJson6902");
  } finally {
    await renderer.close();
  }
  const r = await findings(dir);
  assert.deepEqual(
    r.findings.map((f) => [f.rule, f.object]),
    [
      ["cronjob-window", "CronJob flux-system/shop-updates-off"],
      ["cronjob-window", "CronJob flux-system/shop-updates-on"],
    ],
  );
});

test("migrate --write edits the old shapes: bases:, patchesStrategicMerge: and patchesJson6902: entries go with what they named, a Kustomization file goes, the Flux path still builds; check then finds no legacy window", async () => {
  const dir = await fixture();
  const plan = JSON.parse((await fluxgate("migrate", dir, "--cluster", "lab", "-o", "json", "--kustomize", bin)).stdout);
  assert.deepEqual(plan.windows[0].window.spec, {
    timeZone: "UTC",
    schedules: [{ start: "0 9 * * SAT", end: "0 13 * * SAT" }],
    targets: [{ kind: "Kustomization", name: "apps" }],
  });
  assert.equal(plan.windows[0].proof.equivalent, true);

  const write = await fluxgate("migrate", dir, "--cluster", "lab", "--write", "--kustomize", bin);
  assert.equal(write.stderr, "");
  assert.equal(write.code, 0);
  assert.equal(
    write.stdout,
    [
      "created clusters/lab/windows/kustomization.yaml",
      "created clusters/lab/windows/shop-updates.yaml",
      "removed maintenance/base/Kustomization",
      "removed maintenance/base/account.yml",
      "removed maintenance/base/jobs.yml",
      "updated maintenance/lab/kustomization.yml",
      "removed maintenance/lab/one-at-a-time.yml",
      "removed maintenance/lab/schedules.yml",
      "# Note: maintenance/lab/kustomization.yml: builds nothing now, so Kustomization flux-system/maintenance (clusters/lab/maintenance.yml) applies nothing; remove it when you no longer need it",
      "",
    ].join("\n"),
  );
  assert.equal(await readFile(join(dir, "maintenance/lab/kustomization.yml"), "utf8"), "resources: []\n");
  const after = await findings(dir);
  assert.equal(after.code, 0);
  assert.deepEqual(after.findings, [], "no legacy window left, and every Kustomization builds");
  assert.equal(await build(bin, join(dir, "maintenance/lab")), "", "kustomize builds the emptied path");
  assert.match(await build(bin, join(dir, "clusters/lab/windows")), /kind: ReconciliationWindow/);
});

test("split refuses, naming the entry, an application whose own kustomization has bases:, and changes nothing", async () => {
  const dir = await fixture();
  const before = await snapshot(dir);
  const r = await fluxgate("split", join(dir, "apps/lab"), "--repo", dir, "--type", "rt=ConfigMap", "--default", "rw", "--kustomize", bin);
  assert.equal(r.code, 2);
  assert.equal(
    r.stderr,
    "error: apps/lab/kustomization.yml: bases ../shop cannot be split by file, since each variant would include all of it; split apps/shop first, or list its files in resources\n",
  );
  assert.deepEqual(await snapshot(dir), before);
});

test("split cuts an application with an old kustomization (no apiVersion/kind, .yml, patchesStrategicMerge), keeps its comments, and rewrites a bases: list; every cluster renders the same", async () => {
  const dir = await fixture();
  const before = await snapshot(dir);
  const r = await fluxgate("split", join(dir, "apps/shop"), "--repo", dir, "--type", "rt=ConfigMap", "--default", "rw", "--kustomize", bin);
  assert.equal(r.stderr, "");
  assert.equal(r.code, 0);
  assert.match(
    r.stdout,
    /^Split apps\/shop into apps\/shop-rt \(rt\), apps\/shop-rw \(rw\); every cluster renders the same objects as before \(1 checked with kustomize\)\.$/m,
  );
  assert.equal(
    await readFile(join(dir, "apps/shop-rt/kustomization.yml"), "utf8"),
    "# The shop, as every cluster runs it.\nnamespace: shop\nresources:\n  - config.yml\npatchesStrategicMerge:\n  - log-level.yml\n",
  );
  assert.equal(
    await readFile(join(dir, "apps/shop-rw/kustomization.yml"), "utf8"),
    "# The shop, as every cluster runs it.\nnamespace: shop\nresources:\n  - namespace.yml\n  - deployment.yml\n  - service.yml\n",
  );
  assert.equal(await readFile(join(dir, "apps/shop-rt/config.yml"), "utf8"), before.get("apps/shop/config.yml"), "the file moves with its comment");
  assert.equal(
    await readFile(join(dir, "apps/lab/kustomization.yml"), "utf8"),
    "bases:\n  - ../shop-rt\n  - ../shop-rw\npatchesStrategicMerge:\n  - resources.yml\n",
  );
  const after = await findings(dir);
  assert.equal(after.code, 0);
  assert.deepEqual(
    after.findings.map((f) => f.rule),
    ["cronjob-window", "cronjob-window"],
    "the split changes nothing else",
  );
});
