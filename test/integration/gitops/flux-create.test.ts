// Repositories set up with `flux create kustomization`: entry points outside Git, no cluster root invented, children followed whatever their source is called.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { before, test } from "node:test";
import { parse } from "yaml";
import { build, fixtureCopies, fluxgate, kustomize, snapshot } from "./helpers.ts";

let bin = "";
before(async () => {
  bin = await kustomize();
});

const fixture = fixtureCopies();

interface Finding {
  rule: string;
  file: string;
  object: string;
  message: string;
  cluster: string;
}

const ENTRY = "bootstrap=./platform/flux";

async function check(dir: string, ...flags: string[]): Promise<{ code: number; findings: Finding[] }> {
  const r = await fluxgate("check", dir, "--kustomization", ENTRY, "-o", "json", "--kustomize", bin, ...flags);
  assert.equal(r.stderr, "");
  return { code: r.code, findings: JSON.parse(r.stdout).findings as Finding[] };
}

test("check follows the entry point's children whatever their GitRepository is called, invents no cluster root, and finds the suspend that fights the CronJobs", async () => {
  const dir = await fixture("flux-create");
  const r = await check(dir);
  assert.equal(r.code, 1);
  assert.deepEqual(
    r.findings.map((f) => [f.rule, f.object, f.file, f.cluster]),
    [
      ["suspend-in-git", "Kustomization flux-system/apps", "platform/flux/apps.yaml", "bootstrap"],
      ["cronjob-window", "CronJob flux-system/maintenance-end", "platform/infra/maintenance/schedule.yaml", "bootstrap"],
      ["cronjob-window", "CronJob flux-system/maintenance-start", "platform/infra/maintenance/schedule.yaml", "bootstrap"],
    ],
  );
  assert.equal(
    r.findings[0]?.message,
    "Kustomization flux-system/apps declares spec.suspend: false in Git, and CronJobs flux-system/maintenance-end and flux-system/maintenance-start govern it: Kustomization flux-system/bootstrap re-applies the value and undoes the window; remove the field",
  );
  const text = await fluxgate("check", dir, "--kustomization", ENTRY, "--kustomize", bin);
  assert.match(text.stdout, /^1 error, 2 warnings in 1 cluster \(3 Kustomizations rendered\)\.$/m, "bootstrap, infra and apps; nothing twice");

  // Without the entry point, nothing says where the cluster starts: the message names the flag.
  const none = await fluxgate("check", dir, "--kustomize", bin);
  assert.equal(none.code, 2);
  assert.match(
    none.stderr,
    /^error: found no cluster in the repository: give --cluster PATH .*, --kustomization NAME=PATH \(an entry point made with flux create kustomization\)/,
  );

  // --source names the GitRepository; another name follows nothing below the entry point.
  assert.deepEqual(
    (await check(dir, "--source", "source")).findings.map((f) => f.rule),
    ["suspend-in-git", "cronjob-window", "cronjob-window"],
  );
  const other = await fluxgate("check", dir, "--kustomization", ENTRY, "--source", "flux-system", "--kustomize", bin);
  assert.match(other.stdout, /^No findings in 1 cluster \(1 Kustomization rendered\)\.$/m);
  const bad = await fluxgate("check", dir, "--kustomization", ENTRY, "--source", "Not_A_Name", "--kustomize", bin);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^error: --source Not_A_Name: give the GitRepository's NAME or NAMESPACE\/NAME/);
});

test("migrate --write needs no --cluster for entry points alone: the window goes below the entry point, the targets' spec.suspend leaves Git, and check then finds nothing", async () => {
  const dir = await fixture("flux-create");
  const before = await snapshot(dir);
  const noCluster = await fluxgate("migrate", dir, "--kustomize", bin);
  assert.equal(noCluster.code, 2);
  assert.match(noCluster.stderr, /give the cluster: --cluster NAME or --cluster PATH .*--kustomization NAME=PATH/);
  assert.deepEqual(await snapshot(dir), before);

  const plan = JSON.parse((await fluxgate("migrate", dir, "--kustomization", ENTRY, "-o", "json", "--kustomize", bin)).stdout);
  assert.equal(plan.cluster, "bootstrap");
  assert.equal(plan.windows.length, 1);
  assert.deepEqual(plan.windows[0].window.spec, {
    timeZone: "America/New_York",
    schedules: [{ start: "0 22 * * TUE", end: "30 23 * * TUE" }],
    targets: [{ kind: "Kustomization", name: "apps" }],
  });
  assert.equal(plan.windows[0].proof.equivalent, true);
  assert.deepEqual(
    (plan.windows[0].replaces as Array<{ name: string; file: string }>).map((r) => [r.name, r.file]),
    [
      ["maintenance-start", "platform/infra/maintenance/schedule.yaml"],
      ["maintenance-end", "platform/infra/maintenance/schedule.yaml"],
    ],
    "each CronJob once",
  );

  const write = await fluxgate("migrate", dir, "--kustomization", ENTRY, "--write", "--kustomize", bin);
  assert.equal(write.stderr, "");
  assert.equal(write.code, 0);
  assert.equal(
    write.stdout,
    [
      "updated platform/flux/apps.yaml",
      "created platform/flux/windows/kustomization.yaml",
      "created platform/flux/windows/maintenance.yaml",
      "updated platform/infra/kustomization.yaml",
      "removed platform/infra/maintenance/access.yaml",
      "removed platform/infra/maintenance/kustomization.yaml",
      "removed platform/infra/maintenance/schedule.yaml",
      "",
    ].join("\n"),
  );
  const apps = await readFile(join(dir, "platform/flux/apps.yaml"), "utf8");
  assert.equal(
    apps,
    (before.get("platform/flux/apps.yaml") as string).replace(
      "  # Applied in real time: the maintenance CronJobs in infra suspend and resume it.\n  suspend: false\n",
      "",
    ),
    "only the field and its comment went",
  );
  const after = await check(dir);
  assert.equal(after.code, 0);
  assert.deepEqual(after.findings, [], "no legacy window left, and everything builds");
  const rendered = parse((await build(bin, join(dir, "platform/flux/windows"))).split("\n---\n")[0] as string);
  assert.equal(rendered.kind, "ReconciliationWindow");
});

test("a CronJob window whose target the cluster does not have: check and migrate both say so, and the window carries the target with a warning (beta Flux APIs read like v1)", async () => {
  const dir = await fixture("flux-create-renamed");
  const r = await check(dir);
  assert.equal(r.code, 0);
  assert.deepEqual(
    r.findings.filter((f) => f.rule === "unmatched-target").map((f) => f.message),
    [
      "CronJob flux-system/maintenance-end targets Kustomization flux-system/apps-rw, which the cluster does not have",
      "CronJob flux-system/maintenance-start targets Kustomization flux-system/apps-rw, which the cluster does not have",
    ],
  );
  const text = await fluxgate("check", dir, "--kustomization", ENTRY, "--kustomize", bin);
  assert.match(text.stdout, /\(3 Kustomizations rendered\)/, "the v1beta2 children are followed");

  const json = JSON.parse((await fluxgate("migrate", dir, "--kustomization", ENTRY, "-o", "json", "--kustomize", bin)).stdout);
  const w = json.windows[0];
  assert.deepEqual(w.window.spec.targets, [{ kind: "Kustomization", name: "apps-rw" }]);
  assert.deepEqual(w.warnings, [
    "CronJob flux-system/maintenance-start and CronJob flux-system/maintenance-end target Kustomization flux-system/apps-rw, which the cluster does not have (unmatched-target): the window targets it as the jobs did; check the name",
  ]);
  const yaml = await fluxgate("migrate", dir, "--kustomization", ENTRY, "--kustomize", bin);
  assert.match(
    yaml.stdout,
    /^# Warning: CronJob flux-system\/maintenance-start and CronJob flux-system\/maintenance-end target Kustomization flux-system\/apps-rw, which the cluster does not have \(unmatched-target\)/m,
  );

  const write = await fluxgate("migrate", dir, "--kustomization", ENTRY, "--write", "--kustomize", bin);
  assert.equal(write.code, 0);
  const file = await readFile(join(dir, "platform/flux/windows/maintenance.yaml"), "utf8");
  assert.match(file, /^# Warning: .*apps-rw, which the cluster does not have/m, "the written window says it too");
  const after = await check(dir);
  assert.deepEqual(
    after.findings.map((f) => [f.rule, f.object]),
    [["unmatched-target", "ReconciliationWindow flux-system/maintenance"]],
    "no legacy window left; the window's target is still reported",
  );
  assert.equal(after.code, 0);
});

test("split works from the entry points too: every Kustomization below them renders the same after the split", async () => {
  const dir = await fixture("flux-create");
  const before = await snapshot(dir);
  const lost = await fluxgate("split", join(dir, "apps/guestbook"), "--repo", dir, "--type", "rt=ConfigMap", "--default", "rw", "--kustomize", bin);
  assert.equal(lost.code, 2);
  assert.match(lost.stderr, /found no cluster in the repository: .*--kustomization NAME=PATH/);
  assert.deepEqual(await snapshot(dir), before);

  const r = await fluxgate(
    "split",
    join(dir, "apps/guestbook"),
    "--repo",
    dir,
    "--kustomization",
    ENTRY,
    "--type",
    "rt=ConfigMap",
    "--default",
    "rw",
    "--kustomize",
    bin,
  );
  assert.equal(r.stderr, "");
  assert.equal(r.code, 0);
  assert.match(
    r.stdout,
    /^Split apps\/guestbook into apps\/guestbook-rt \(rt\), apps\/guestbook-rw \(rw\); every cluster renders the same objects as before \(1 checked with kustomize\)\.$/m,
  );
  assert.equal(
    await readFile(join(dir, "platform/apps/kustomization.yaml"), "utf8"),
    "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../../apps/guestbook-rt\n  - ../../apps/guestbook-rw\n",
  );
  assert.match(await readFile(join(dir, "apps/guestbook-rt/kustomization.yaml"), "utf8"), /^# The guestbook: its settings and its workload\.\n/);
  const after = await check(dir);
  assert.deepEqual(
    after.findings.map((f) => f.rule),
    ["suspend-in-git", "cronjob-window", "cronjob-window"],
    "the same findings as before the split",
  );
});
