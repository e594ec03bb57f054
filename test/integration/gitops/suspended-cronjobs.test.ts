// CronJob windows in a shared base: suspended ones are no window, jobs at one instant are ambiguous, and a migrated cluster stops including the base.

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

const copies = fixtureCopies();
const fixture = (): Promise<string> => copies("suspended-cronjobs");

interface Finding {
  rule: string;
  severity: string;
  file: string;
  object: string;
  message: string;
  cluster: string;
}

async function findings(dir: string, cluster: string): Promise<{ code: number; findings: Finding[] }> {
  const r = await fluxgate("check", dir, "--cluster", cluster, "-o", "json", "--kustomize", bin);
  assert.equal(r.stderr, "");
  return { code: r.code, findings: JSON.parse(r.stdout).findings as Finding[] };
}

test("check: a suspended CronJob window is reported as one that never runs", async () => {
  const dir = await fixture();
  const staging = await findings(dir, "staging");
  assert.equal(staging.code, 0, "warnings only");
  assert.deepEqual(
    staging.findings.map((f) => [f.rule, f.object, f.file]),
    [
      ["cronjob-window-never-runs", "CronJob flux-system/window-close", "infrastructure/base/maintenance-window/jobs.yaml"],
      ["cronjob-window-never-runs", "CronJob flux-system/window-open", "infrastructure/base/maintenance-window/jobs.yaml"],
    ],
  );
  assert.match(
    staging.findings[1]?.message ?? "",
    /^CronJob flux-system\/window-open would run "flux resume kustomization apps -n flux-system", but it has spec\.suspend: true \(schedule "\* \* \* \* \*"\): it never runs/,
  );
  // The text report says the same, one line each.
  const text = await fluxgate("check", dir, "--cluster", "staging", "--kustomize", bin);
  assert.match(text.stdout, /^infrastructure\/base\/maintenance-window\/jobs\.yaml:\d+: warning cronjob-window-never-runs: CronJob flux-system\/window-open /m);

  // Where the overlay resumes them but keeps the placeholder schedule, they run at the same instants.
  const lab = await findings(dir, "lab");
  assert.deepEqual(
    lab.findings.map((f) => [f.rule, f.object]),
    [
      ["cronjob-window", "CronJob flux-system/window-close"],
      ["cronjob-window", "CronJob flux-system/window-open"],
      ["cronjob-window-ambiguous", "CronJob flux-system/window-close"],
    ],
  );
  assert.match(
    lab.findings[2]?.message ?? "",
    /^CronJob flux-system\/window-open resumes and CronJob flux-system\/window-close suspends Kustomization flux-system\/apps at the same instant \(first \S+Z\): Kubernetes starts them in no defined order, so whether it is left open is ambiguous/,
  );

  // Where the overlay resumes them, they are legacy windows like any other.
  const production = await findings(dir, "production");
  assert.deepEqual(
    production.findings.map((f) => f.rule),
    ["cronjob-window", "cronjob-window"],
  );
});

test("migrate: suspended CronJobs are skipped with the reason, and so are jobs that resume and suspend at the same instant; nothing is written", async () => {
  const dir = await fixture();
  const before = await snapshot(dir);

  const staging = await fluxgate("migrate", dir, "--cluster", "staging", "-o", "json", "--kustomize", bin);
  assert.equal(staging.stderr, "");
  assert.equal(staging.code, 0);
  const s = JSON.parse(staging.stdout);
  assert.deepEqual(s.windows, []);
  assert.deepEqual(
    (s.skipped as Array<{ cronJob: string }>).map((x) => x.cronJob),
    ["CronJob flux-system/window-close", "CronJob flux-system/window-open"],
  );
  for (const x of s.skipped)
    assert.match(x.reason, /^it has spec\.suspend: true \(schedule "\* \* \* \* \*"\), so it never runs: a suspended CronJob is not a window/);
  const stagingYaml = await fluxgate("migrate", dir, "--cluster", "staging", "--kustomize", bin);
  assert.match(stagingYaml.stdout, /^# Found no CronJob window to migrate\.$/m);
  assert.match(
    stagingYaml.stdout,
    /^# Not migrated: CronJob flux-system\/window-open \(infrastructure\/base\/maintenance-window\/jobs\.yaml\): it has spec\.suspend: true/m,
  );
  assert.doesNotMatch(stagingYaml.stdout, /Replaces/);

  const lab = await fluxgate("migrate", dir, "--cluster", "lab", "-o", "json", "--kustomize", bin, "--write");
  assert.equal(lab.code, 0);
  assert.match(lab.stdout, /^Nothing to write\.$/m);
  const plan = JSON.parse((await fluxgate("migrate", dir, "--cluster", "lab", "-o", "json", "--kustomize", bin)).stdout);
  assert.deepEqual(plan.windows, [], "no window that guesses an order");
  assert.equal(plan.skipped.length, 2);
  for (const x of plan.skipped) {
    assert.match(
      x.reason,
      /^flux-system\/window-open resumes and flux-system\/window-close suspends Kustomization flux-system\/apps at the same instant \(first \S+Z\): the order in which two CronJobs run is not defined, so whether the targets are left open is ambiguous/,
    );
  }
  assert.deepEqual(await snapshot(dir), before);
});

test("migrate --write on the cluster that sets its schedule: its overlay stops including the shared base, the others keep it; check finds no legacy window left and kustomize builds it", async () => {
  const dir = await fixture();
  const plan = JSON.parse((await fluxgate("migrate", dir, "--cluster", "production", "-o", "json", "--kustomize", bin)).stdout);
  assert.equal(plan.windows.length, 1);
  const w = plan.windows[0];
  assert.deepEqual(w.window.spec, {
    timeZone: "Europe/Berlin",
    schedules: [{ start: "0 20 * * FRI", end: "0 6 * * SAT" }],
    targets: [{ kind: "Kustomization", name: "apps" }],
  });
  assert.equal(w.proof.equivalent, true);
  assert.deepEqual(w.warnings, []);
  assert.deepEqual(
    (w.replaces as Array<{ name: string }>).map((r) => r.name),
    ["window-open", "window-close"],
    "each CronJob once",
  );

  const write = await fluxgate("migrate", dir, "--cluster", "production", "--write", "--kustomize", bin);
  assert.equal(write.stderr, "");
  assert.equal(write.code, 0);
  assert.equal(
    write.stdout,
    [
      "created clusters/production/windows/kustomization.yaml",
      "created clusters/production/windows/window.yaml",
      "updated infrastructure/production/kustomization.yaml",
      "# Note: infrastructure/production/kustomization.yaml: no longer includes infrastructure/base/maintenance-window, whose every object here was replaced; it stays for the other clusters that use it",
      "",
    ].join("\n"),
  );
  const overlay = await readFile(join(dir, "infrastructure/production/kustomization.yaml"), "utf8");
  assert.equal(overlay, "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ingress-class.yaml\n");
  const base = await readFile(join(dir, "infrastructure/base/maintenance-window/jobs.yaml"), "utf8");
  assert.match(base, /name: window-open/, "staging and lab still use the base");

  const production = await findings(dir, "production");
  assert.equal(production.code, 0);
  assert.deepEqual(production.findings, [], "no legacy window left, and everything builds");
  const windows = parse((await build(bin, join(dir, "clusters/production/windows"))).split("\n---\n")[0] as string);
  assert.equal(windows.kind, "ReconciliationWindow");
  assert.equal(windows.metadata.name, "window");
  // The other clusters render as before.
  assert.deepEqual(
    (await findings(dir, "staging")).findings.map((f) => f.rule),
    ["cronjob-window-never-runs", "cronjob-window-never-runs"],
  );
});
