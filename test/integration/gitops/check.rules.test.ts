// check: each rule found on a repository that breaks it, a clean repository passes, JSON and SARIF 2.1.0 output.

import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { bootstrap, fluxgate, kustomize, podinfoApp, removeRepo, renderedWith, writeRepo } from "./helpers.ts";

let bin = "";
const dirs: string[] = [];
before(async () => {
  bin = await kustomize();
});
after(async () => {
  for (const d of dirs) await removeRepo(d);
});

async function initialised(): Promise<string> {
  const dir = await writeRepo({ ...bootstrap("edge-berlin"), ...podinfoApp() });
  dirs.push(dir);
  assert.equal((await fluxgate("init", dir, "--cluster", "edge-berlin", "--time-zone", "Europe/Berlin")).code, 0);
  await writeFile(join(dir, "deploy/edge-berlin/rw/kustomization.yaml"), "resources:\n  - ../../../apps/podinfo\n");
  return dir;
}

test("a repository set up by init, with an app in its window type, has no findings", async () => {
  const dir = await initialised();
  const r = await fluxgate("check", dir, "--kustomize", bin);
  assert.equal(r.stderr, "");
  assert.equal(r.stdout, `No findings in 1 cluster (3 Kustomizations rendered).\n${await renderedWith()}`);
  assert.equal(r.code, 0);
});

test("check reports every rule with its id, file and object", async () => {
  const dir = await initialised();
  // rt renders the app too: duplicates, and the Deployment (rw) uses a ConfigMap that apps-rt also renders.
  await writeFile(join(dir, "deploy/edge-berlin/rt/kustomization.yaml"), "resources:\n  - ../../../apps/podinfo\n  - extra.yml\n");
  await writeFile(join(dir, "deploy/edge-berlin/rt/extra.yml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared-config\n  namespace: podinfo\n");
  await writeFile(join(dir, "deploy/edge-berlin/rw/kustomization.yaml"), "resources:\n  - ../../../apps/podinfo\n  - worker.yaml\n");
  await writeFile(
    join(dir, "deploy/edge-berlin/rw/worker.yaml"),
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: worker\n  namespace: podinfo\nspec:\n  template:\n    spec:\n      containers:\n        - name: w\n          image: busybox\n          volumes: []\n      volumes:\n        - name: c\n          configMap:\n            name: shared-config\n",
  );
  // suspend in Git on a governed Kustomization; a window applied by a governed Kustomization.
  await writeFile(
    join(dir, "clusters/edge-berlin/apps-rw.yaml"),
    "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps-rw\n  namespace: flux-system\n  labels:\n    fluxgate.io/type: rw\nspec:\n  interval: 10m\n  path: ./deploy/edge-berlin/rw\n  prune: true\n  suspend: false\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n",
  );
  await writeFile(
    join(dir, "deploy/edge-berlin/rw/late-window.yaml"),
    'apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata:\n  name: late\n  namespace: flux-system\nspec:\n  timeZone: Mars/Olympus\n  schedules:\n    - start: "0 8 * * MON"\n      end: "0 17 * * THU"\n  mode: Gate\n  gate:\n    upstream: {kind: GitRepository, name: flux-system}\n    gatedName: gitops-late\n  targets:\n    - kind: Kustomization\n      name: apps-rw\n    - kind: HelmRelease\n      name: missing\n',
  );
  await writeFile(
    join(dir, "deploy/edge-berlin/rw/kustomization.yaml"),
    "resources:\n  - ../../../apps/podinfo\n  - worker.yaml\n  - late-window.yaml\n  - gated.yaml\n  - legacy.yaml\n",
  );
  await writeFile(
    join(dir, "deploy/edge-berlin/rw/gated.yaml"),
    "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: gitops-late\n  namespace: flux-system\nspec:\n  url: ssh://git@example.com/fleet\n  interval: 1m\n  ref:\n    commit: 0123456789abcdef0123456789abcdef01234567\n",
  );
  await writeFile(
    join(dir, "deploy/edge-berlin/rw/legacy.yaml"),
    "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: rt-close\n  namespace: flux-system\nspec:\n  schedule: '0 18 * * *'\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          containers:\n            - name: flux\n              image: ghcr.io/fluxcd/flux-cli:v2.7.3\n              args: [flux, suspend, ks, apps-rt]\n",
  );
  // A window type with no window: add type nightly by hand and its Kustomization.
  const r0 = await fluxgate("init", dir, "--cluster", "edge-berlin", "--types", "rt,rw,nightly");
  assert.equal(r0.code, 0, r0.stderr);
  await writeFile(join(dir, "clusters/edge-berlin/windows/apps-nightly.yaml"), "# removed\n");
  await writeFile(join(dir, "clusters/edge-berlin/windows/kustomization.yaml"), "resources:\n  - apps-rw.yaml\n");
  // A Kustomization whose path does not build.
  await writeFile(join(dir, "deploy/edge-berlin/nightly/kustomization.yaml"), "resources:\n  - missing.yaml\n");

  const r = await fluxgate("check", dir, "-o", "json", "--kustomize", bin);
  assert.equal(r.stderr, "");
  assert.equal(r.code, 1);
  const findings = JSON.parse(r.stdout).findings as Array<{ rule: string; severity: string; file: string; object: string; message: string }>;
  const rules = new Set(findings.map((f) => f.rule));
  for (const rule of [
    "duplicate-object",
    "suspend-in-git",
    "window-in-window",
    "cross-type-reference",
    "unmatched-target",
    "ungoverned-window-type",
    "invalid-schedule",
    "mode-conflict",
    "pinned-ref-in-git",
    "source-not-gated",
    "cronjob-window",
    "kustomize-build-failed",
  ]) {
    assert.ok(rules.has(rule), `${rule} missing from ${[...rules].join(", ")}`);
  }
  const suspend = findings.find((f) => f.rule === "suspend-in-git");
  assert.deepEqual(
    { ...suspend, message: undefined },
    {
      rule: "suspend-in-git",
      severity: "error",
      file: "clusters/edge-berlin/apps-rw.yaml",
      object: "Kustomization flux-system/apps-rw",
      message: undefined,
      cluster: "edge-berlin",
      line: 1,
    },
  );
  const dup = findings.find((f) => f.rule === "duplicate-object" && f.object === "Deployment podinfo/podinfo");
  assert.match(dup?.message ?? "", /rendered by 2 Kustomizations \(flux-system\/apps-rt, flux-system\/apps-rw\)/);
  assert.equal(dup?.file, "apps/podinfo/podinfo.yaml");
  const cross = findings.find((f) => f.rule === "cross-type-reference");
  assert.match(cross?.message ?? "", /Deployment podinfo\/worker .* references ConfigMap podinfo\/shared-config \(type rt/);
  assert.match(findings.find((f) => f.rule === "kustomize-build-failed")?.message ?? "", /missing\.yaml/);
  assert.match(findings.find((f) => f.rule === "invalid-schedule")?.message ?? "", /spec\.timeZone/);
  const unwired = findings.find((f) => f.rule === "source-not-gated");
  assert.equal(unwired?.file, "clusters/edge-berlin/apps-rw.yaml");
  assert.match(
    unwired?.message ?? "",
    /its sourceRef is GitRepository\/flux-system: the gate holds nothing for it.*set spec\.sourceRef to GitRepository\/gitops-late/,
  );

  // SARIF 2.1.0: what code-scanning UIs read.
  const s = await fluxgate("check", dir, "-o", "sarif", "--kustomize", bin);
  assert.equal(s.code, 1);
  const sarif = JSON.parse(s.stdout) as {
    $schema: string;
    version: string;
    runs: Array<{
      tool: { driver: { name: string; rules: Array<{ id: string; shortDescription: { text: string }; defaultConfiguration: { level: string } }> } };
      results: Array<{ ruleId: string; ruleIndex: number; level: string; message: { text: string }; locations: Array<{ physicalLocation: any }> }>;
    }>;
  };
  assert.equal(sarif.version, "2.1.0");
  assert.equal(sarif.$schema, "https://json.schemastore.org/sarif-2.1.0.json");
  assert.equal(sarif.runs.length, 1);
  const run = sarif.runs[0]!;
  const driver = run.tool.driver;
  assert.equal(driver.name, "fluxgate");
  const ids = driver.rules.map((x) => x.id);
  assert.equal(new Set(ids).size, ids.length, "rule ids are unique");
  for (const rule of driver.rules) {
    assert.equal(typeof rule.shortDescription.text, "string");
    assert.ok(["error", "warning", "note", "none"].includes(rule.defaultConfiguration.level));
  }
  assert.equal(run.results.length, findings.length);
  for (const result of run.results) {
    assert.ok(ids.includes(result.ruleId));
    assert.equal(driver.rules[result.ruleIndex]?.id, result.ruleId);
    assert.ok(["error", "warning", "note", "none"].includes(result.level));
    assert.equal(typeof result.message.text, "string");
    const loc = result.locations[0]?.physicalLocation;
    assert.doesNotMatch(loc.artifactLocation.uri, /^\//, "relative to the repository root");
    assert.equal(loc.artifactLocation.uriBaseId, "%SRCROOT%");
    if (loc.region !== undefined) assert.ok(Number.isInteger(loc.region.startLine) && loc.region.startLine >= 1);
  }

  // Warnings alone exit 0, unless --strict.
  const text = await fluxgate("check", dir, "--kustomize", bin);
  assert.match(text.stdout, /^clusters\/edge-berlin\/apps-rw\.yaml:1: error suspend-in-git: /m);
});

test("warnings exit 0, and 1 with --strict; a missing repository is a usage error", async () => {
  const dir = await initialised();
  await writeFile(
    join(dir, "clusters/edge-berlin/windows/apps-rw.yaml"),
    'apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata:\n  name: apps-rw\n  namespace: flux-system\nspec:\n  schedules:\n    - start: "0 8 * * MON"\n      duration: 8h\n  targets:\n    - kind: Kustomization\n      name: apps-rw\n    - kind: Kustomization\n      name: apps-gone\n',
  );
  const plain = await fluxgate("check", dir, "--kustomize", bin);
  assert.equal(plain.code, 0);
  assert.match(plain.stdout, /warning unmatched-target: window flux-system\/apps-rw targets Kustomization flux-system\/apps-gone/);
  assert.equal((await fluxgate("check", dir, "--strict", "--kustomize", bin)).code, 1);
  const missing = await fluxgate("check", join(dir, "nope"), "--kustomize", bin);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^error: repository .*nope: no such directory/);
  const noKustomize = await fluxgate("check", dir, "--kustomize", "/nonexistent/kustomize");
  assert.equal(noKustomize.code, 2);
  assert.match(noKustomize.stderr, /--kustomize \/nonexistent\/kustomize: no executable file there/);
});
