// migrate: CronJob windows become ReconciliationWindows with a 366-day proof; --write replaces CronJobs, RBAC and patches.

import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parse } from "yaml";
import { bootstrap, fluxgate, kustomize, podinfoApp, removeRepo, renderedWith, snapshot, writeRepo } from "./helpers.ts";

let bin = "";
const dirs: string[] = [];
before(async () => {
  bin = await kustomize();
});
after(async () => {
  for (const d of dirs) await removeRepo(d);
});

function cronJob(name: string, schedule: string, zone: string | null, container: string): string {
  return `apiVersion: batch/v1
kind: CronJob
metadata:
  name: ${name}
  namespace: flux-system
spec:
  schedule: "${schedule}"
${zone === null ? "" : `  timeZone: ${zone}\n`}  jobTemplate:
    spec:
      template:
        spec:
          serviceAccountName: flux-window
          restartPolicy: Never
          containers:
${container}`;
}

/** A cluster with the usual CronJob window: resume and suspend jobs, their RBAC, and a per-cluster patch of the schedule. */
async function legacyRepo(open: string, close: string, zone: string | null): Promise<string> {
  const dir = await writeRepo({
    ...bootstrap("edge-berlin"),
    ...podinfoApp(),
    "clusters/edge-berlin/apps.yaml":
      "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./apps/podinfo\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n",
    "clusters/edge-berlin/maintenance/kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ../../../infrastructure/flux-windows
patches:
  # Berlin opens an hour earlier than the base says.
  - target:
      kind: CronJob
      name: apps-resume
    patch: |-
      - op: replace
        path: /spec/schedule
        value: "${open}"
`,
    "infrastructure/flux-windows/kustomization.yaml": "resources:\n  - rbac.yaml\n  - jobs.yml\n",
    "infrastructure/flux-windows/rbac.yaml": `apiVersion: v1
kind: ServiceAccount
metadata:
  name: flux-window
  namespace: flux-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: flux-window
rules:
  - apiGroups: [kustomize.toolkit.fluxcd.io]
    resources: [kustomizations]
    verbs: [get, list, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: flux-window
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: flux-window
subjects:
  - kind: ServiceAccount
    name: flux-window
    namespace: flux-system
`,
    "infrastructure/flux-windows/jobs.yml": `# Opens the window.
${cronJob("apps-resume", "0 9 * * MON", zone, "            - name: flux\n              image: ghcr.io/fluxcd/flux-cli:v2.7.3\n              command: [flux, resume, kustomization, apps]\n")}---
# Closes it.
${cronJob(
  "apps-suspend",
  close,
  zone,
  `            - name: kubectl
              image: bitnami/kubectl
              command: ["/bin/sh", "-c"]
              args:
                - |
                  set -e
                  kubectl -n flux-system patch kustomization apps --type merge -p '{"spec":{"suspend":true}}'
`,
)}`,
  });
  dirs.push(dir);
  return dir;
}

test("an equivalent migration: the window, its proof, and --write that leaves a clean repository", async () => {
  const dir = await legacyRepo("0 8 * * MON", "0 17 * * THU", "Europe/Berlin");
  const check = await fluxgate("check", dir, "--kustomize", bin);
  assert.match(check.stdout, /warning cronjob-window: CronJob flux-system\/apps-resume runs "flux resume kustomization apps"/);

  const json = await fluxgate("migrate", dir, "--cluster", "clusters/edge-berlin", "-o", "json", "--kustomize", bin);
  assert.equal(json.stderr, "");
  assert.equal(json.code, 0);
  const plan = JSON.parse(json.stdout);
  assert.equal(plan.windows.length, 1);
  const w = plan.windows[0] as { name: string; window: any; timeZoneSource: string; proof: any; replaces: Array<{ name: string; file: string }> };
  assert.equal(w.name, "apps");
  assert.deepEqual(w.window.spec, {
    timeZone: "Europe/Berlin",
    schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }],
    targets: [{ kind: "Kustomization", name: "apps" }],
  });
  assert.equal(w.timeZoneSource, "the CronJobs' spec.timeZone");
  assert.equal(w.proof.equivalent, true);
  assert.ok(w.proof.intervals >= 52);
  assert.deepEqual(w.proof.differences, []);
  assert.deepEqual(
    w.replaces.map((r) => [r.name, r.file]),
    [
      ["apps-resume", "infrastructure/flux-windows/jobs.yml"],
      ["apps-suspend", "infrastructure/flux-windows/jobs.yml"],
    ],
  );

  const yaml = await fluxgate("migrate", dir, "--cluster", "edge-berlin", "--kustomize", bin);
  assert.match(yaml.stdout, /^# Proof: equivalent\. From \S+ to \S+ \(366 days\) both are open at exactly the same times/m);
  assert.match(yaml.stdout, /^ {4}- start: "0 8 \* \* MON"\n {6}end: "0 17 \* \* THU"$/m);

  const before = await snapshot(dir);
  const dry = await fluxgate("migrate", dir, "--cluster", "edge-berlin", "--dry-run", "--kustomize", bin);
  assert.equal(dry.code, 0);
  assert.match(dry.stdout, /^\+\+\+ b\/clusters\/edge-berlin\/windows\/apps\.yaml$/m);
  assert.deepEqual(await snapshot(dir), before);

  const write = await fluxgate("migrate", dir, "--cluster", "edge-berlin", "--write", "--kustomize", bin);
  assert.equal(write.stderr, "");
  assert.equal(write.code, 0);
  assert.match(write.stdout, /created clusters\/edge-berlin\/windows\/apps\.yaml/);
  const window = parse(await readFile(join(dir, "clusters/edge-berlin/windows/apps.yaml"), "utf8"));
  assert.equal(window.kind, "ReconciliationWindow");
  const files = await snapshot(dir);
  assert.ok(!files.has("infrastructure/flux-windows/jobs.yml"), "the CronJobs went");
  assert.ok(!files.has("infrastructure/flux-windows/rbac.yaml"), "their RBAC went");
  assert.ok(!files.has("clusters/edge-berlin/maintenance/kustomization.yaml"), "the patch of their schedule went, and its kustomization with it");

  const after = await fluxgate("check", dir, "--kustomize", bin);
  assert.equal(after.stdout, `No findings in 1 cluster (2 Kustomizations rendered).\n${await renderedWith()}`);
});

test("a CronJob window that DST breaks: the proof says where the two differ, and --write refuses", async () => {
  // The suspend job at 02:30 on Sundays never runs on the day clocks spring forward in Berlin:
  // the CronJobs leave apps open for a week; the window closes at 03:00, the first instant after the gap.
  const dir = await legacyRepo("0 1 * * SUN", "30 2 * * SUN", "Europe/Berlin");
  const r = await fluxgate("migrate", dir, "--cluster", "edge-berlin", "--kustomize", bin);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^# Proof: NOT equivalent\. From \S+ to \S+ they differ 1 time:$/m);
  assert.match(
    r.stdout,
    /^# {3}Sun \d{4}-03-\d\d 03:00 CEST → Sun \d{4}-04-\d\d 01:00 CEST \(\S+ → \S+\): the CronJobs leave the targets open, the window closed$/m,
  );
  const json = JSON.parse((await fluxgate("migrate", dir, "--cluster", "edge-berlin", "-o", "json", "--kustomize", bin)).stdout);
  assert.equal(json.windows[0].proof.equivalent, false);
  assert.equal(json.windows[0].proof.differences[0].cronJobs, "open");

  const before = await snapshot(dir);
  const write = await fluxgate("migrate", dir, "--cluster", "edge-berlin", "--write", "--kustomize", bin);
  assert.equal(write.code, 1);
  assert.match(write.stdout, /# Nothing written: the proof found differences for apps; --force writes them anyway\./);
  assert.deepEqual(await snapshot(dir), before);
});

test("CronJobs without a time zone run in UTC, said explicitly; bad input changes nothing", async () => {
  const dir = await legacyRepo("0 8 * * MON", "0 17 * * THU", null);
  const r = await fluxgate("migrate", dir, "--cluster", "edge-berlin", "-o", "json", "--kustomize", bin);
  const w = JSON.parse(r.stdout).windows[0];
  assert.equal(w.window.spec.timeZone, "UTC");
  assert.match(w.timeZoneSource, /name no spec\.timeZone: kube-controller-manager's zone, UTC/);
  assert.equal(w.proof.equivalent, true);

  const before = await snapshot(dir);
  const badZone = await fluxgate("migrate", dir, "--cluster", "edge-berlin", "--time-zone", "Europe/Berlín", "--write", "--kustomize", bin);
  assert.equal(badZone.code, 2);
  assert.match(badZone.stderr, /^error: --time-zone Europe\/Berlín: /);
  const noCluster = await fluxgate("migrate", dir, "--cluster", "clusters/nowhere", "--write", "--kustomize", bin);
  assert.equal(noCluster.code, 2);
  assert.match(noCluster.stderr, /--cluster clusters\/nowhere: no such cluster directory/);
  await writeFile(join(dir, "infrastructure/flux-windows/jobs.yml"), "kind: [unclosed\n");
  const broken = await snapshot(dir);
  const unbuildable = await fluxgate("migrate", dir, "--cluster", "edge-berlin", "--write", "--kustomize", bin);
  assert.equal(unbuildable.code, 2);
  assert.match(unbuildable.stderr, /cannot build \.\/clusters\/edge-berlin/);
  assert.deepEqual(await snapshot(dir), broken);
  assert.notDeepEqual(broken, before);
});
