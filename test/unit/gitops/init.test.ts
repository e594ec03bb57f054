// init: the layout of a cluster, idempotent; --dry-run writes nothing; bad input changes nothing.

import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { parse } from "yaml";
import { fluxgate } from "../../support/cli.ts";
import { snapshot } from "../../support/files.ts";

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function emptyDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-init-"));
  dirs.push(dir);
  return dir;
}

test("init writes the layout, and a second run changes nothing", async () => {
  const dir = await emptyDir();
  const first = await fluxgate("init", dir, "--cluster", "edge-berlin", "--time-zone", "Europe/Berlin", "--types", "rt,rw,nightly");
  assert.equal(first.stderr, "");
  assert.equal(first.code, 0);
  const files = await snapshot(dir);
  assert.deepEqual([...files.keys()].sort(), [
    "clusters/edge-berlin/apps-nightly.yaml",
    "clusters/edge-berlin/apps-rt.yaml",
    "clusters/edge-berlin/apps-rw.yaml",
    "clusters/edge-berlin/windows/apps-nightly.yaml",
    "clusters/edge-berlin/windows/apps-rw.yaml",
    "clusters/edge-berlin/windows/fluxgate-cluster.yaml",
    "clusters/edge-berlin/windows/kustomization.yaml",
    "deploy/edge-berlin/nightly/kustomization.yaml",
    "deploy/edge-berlin/rt/kustomization.yaml",
    "deploy/edge-berlin/rw/kustomization.yaml",
    "fluxgate.yaml",
  ]);
  const rw = parse(files.get("clusters/edge-berlin/apps-rw.yaml") as string);
  assert.equal(rw.spec.path, "./deploy/edge-berlin/rw");
  assert.deepEqual(rw.spec.dependsOn, [{ name: "apps-rt" }]);
  assert.equal(rw.metadata.labels["fluxgate.io/type"], "rw");
  for (const [path, text] of files) assert.doesNotMatch(text, /^\s*suspend:/m, `${path} declares spec.suspend`);
  const window = parse(files.get("clusters/edge-berlin/windows/apps-nightly.yaml") as string);
  assert.equal(window.spec.timeZone, "Europe/Berlin");
  assert.deepEqual(window.spec.targets, [{ kind: "Kustomization", name: "apps-nightly" }]);
  assert.deepEqual(parse(files.get("clusters/edge-berlin/windows/kustomization.yaml") as string).resources, [
    "apps-rw.yaml",
    "apps-nightly.yaml",
    "fluxgate-cluster.yaml",
  ]);
  // The cluster's identity, which its controller matches fleet windows and freezes against.
  assert.deepEqual(parse(files.get("clusters/edge-berlin/windows/fluxgate-cluster.yaml") as string), {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "fluxgate-cluster", namespace: "flux-system", labels: { "app.kubernetes.io/managed-by": "fluxgate" } },
    data: { cluster: "edge-berlin", labels: "" },
  });
  assert.deepEqual(parse(files.get("fluxgate.yaml") as string), {
    apiVersion: "fluxgate.io/v1alpha1",
    kind: "Repository",
    types: [
      { name: "rt", window: false },
      { name: "rw", window: true },
      { name: "nightly", window: true },
    ],
    clusters: [{ name: "edge-berlin", path: "clusters/edge-berlin", timeZone: "Europe/Berlin" }],
  });

  const second = await fluxgate("init", dir, "--cluster", "edge-berlin", "--time-zone", "Europe/Berlin", "--types", "rt,rw,nightly");
  assert.equal(second.stdout, "Cluster edge-berlin is already set up; nothing changed.\n");
  assert.deepEqual(await snapshot(dir), files);
  assert.equal((await fluxgate("init", dir, "--cluster", "edge-berlin", "--dry-run")).stdout, "");
});

test("init adds a cluster and a type to fluxgate.yaml with minimal edits, keeping comments", async () => {
  const dir = await emptyDir();
  assert.equal((await fluxgate("init", dir, "--cluster", "edge-berlin")).code, 0);
  const repoFile = join(dir, "fluxgate.yaml");
  await writeFile(repoFile, (await readFile(repoFile, "utf8")).replace("clusters:\n", "# Every edge site.\nclusters:\n"));
  const before = await snapshot(dir);
  const dry = await fluxgate("init", dir, "--cluster", "edge-paris", "--types", "rt,rw:window,batch:realtime", "--time-zone", "Europe/Paris", "--dry-run");
  assert.equal(dry.code, 0);
  assert.match(dry.stdout, /^--- a\/fluxgate.yaml\n\+\+\+ b\/fluxgate.yaml\n/m);
  assert.deepEqual(await snapshot(dir), before, "--dry-run writes nothing");

  assert.equal((await fluxgate("init", dir, "--cluster", "edge-paris", "--types", "rt,rw:window,batch:realtime", "--time-zone", "Europe/Paris")).code, 0);
  const text = await readFile(repoFile, "utf8");
  assert.match(text, /# Every edge site\.\nclusters:\n {2}- name: edge-berlin\n/);
  assert.match(text, / {2}- name: batch\n {4}window: false\n/);
  assert.match(text, / {2}- name: edge-paris\n {4}path: clusters\/edge-paris\n {4}timeZone: Europe\/Paris\n/);
  // Real-time batch: no window, and rw depends on both real-time types.
  const paris = await snapshot(dir);
  assert.ok(!paris.has("clusters/edge-paris/windows/apps-batch.yaml"));
  assert.deepEqual(parse(paris.get("clusters/edge-paris/apps-rw.yaml") as string).spec.dependsOn, [{ name: "apps-rt" }, { name: "apps-batch" }]);
});

test("a cluster directory with its own kustomization.yaml lists the new Kustomizations and windows", async () => {
  const dir = await emptyDir();
  await mkdir(join(dir, "clusters/lab"), { recursive: true });
  await writeFile(join(dir, "clusters/lab/kustomization.yaml"), "# lab\nresources:\n  - flux-system # bootstrap\n");
  assert.equal((await fluxgate("init", dir, "--cluster", "lab")).code, 0);
  assert.equal(
    await readFile(join(dir, "clusters/lab/kustomization.yaml"), "utf8"),
    "# lab\nresources:\n  - flux-system # bootstrap\n  - apps-rt.yaml\n  - apps-rw.yaml\n  - windows\n",
  );
});

test("bad input is refused and changes nothing", async () => {
  const dir = await emptyDir();
  assert.equal((await fluxgate("init", dir, "--cluster", "edge-berlin", "--time-zone", "Europe/Berlin")).code, 0);
  const before = await snapshot(dir);
  const cases: Array<[string[], RegExp]> = [
    [["--cluster", "Edge_Berlin"], /--cluster Edge_Berlin: must be a DNS label/],
    [["--cluster", "edge-paris", "--time-zone", "Europe/Pariss"], /--time-zone Europe\/Pariss: /],
    [["--cluster", "edge-paris", "--types", "rt,,rw"], /--types rt,,rw: give names separated by commas/],
    [["--cluster", "edge-berlin", "--types", "rt:window,rw"], /fluxgate.yaml has type rt as real time/],
    [["--cluster", "edge-berlin", "--path", "clusters/elsewhere"], /has cluster edge-berlin at clusters\/edge-berlin/],
    [[], /give the cluster: --cluster NAME/],
  ];
  for (const [args, message] of cases) {
    const r = await fluxgate("init", dir, ...args);
    assert.equal(r.code, 2, args.join(" "));
    assert.match(r.stderr, message);
    assert.equal(r.stdout, "");
  }
  await writeFile(join(dir, "fluxgate.yaml"), "apiVersion: fluxgate.io/v1alpha1\nkind: Repository\ntypes: []\nclusters: []\n");
  const broken = await snapshot(dir);
  const r = await fluxgate("init", dir, "--cluster", "edge-paris");
  assert.equal(r.code, 2);
  assert.match(r.stderr, /fluxgate.yaml: types: /);
  assert.deepEqual(await snapshot(dir), broken);
  assert.notDeepEqual(broken, before);
});

test("init --fleet-folder starts the fleet folder in a new repository; clusters set up after include it without the flag; check finds no error", async () => {
  const dir = await emptyDir();
  const first = await fluxgate("init", dir, "--cluster", "edge-berlin", "--time-zone", "Europe/Berlin", "--fleet-folder");
  assert.equal(first.stderr, "");
  assert.equal(first.code, 0);
  const files = await snapshot(dir);
  assert.deepEqual(parse(files.get("fleet/kustomization.yaml") as string), {
    apiVersion: "kustomize.config.k8s.io/v1beta1",
    kind: "Kustomization",
    resources: [],
  });
  assert.deepEqual(parse(files.get("clusters/edge-berlin/windows/kustomization.yaml") as string).resources, [
    "../../../fleet",
    "apps-rw.yaml",
    "fluxgate-cluster.yaml",
  ]);

  // The folder exists now: the next cluster includes it, and the folder is not written again.
  const second = await fluxgate("init", dir, "--cluster", "edge-tokyo", "--time-zone", "Asia/Tokyo");
  assert.equal(second.code, 0, second.stderr);
  const after = await snapshot(dir);
  assert.equal(after.get("fleet/kustomization.yaml"), files.get("fleet/kustomization.yaml"));
  assert.deepEqual(parse(after.get("clusters/edge-tokyo/windows/kustomization.yaml") as string).resources, [
    "../../../fleet",
    "apps-rw.yaml",
    "fluxgate-cluster.yaml",
  ]);
  assert.equal((await fluxgate("init", dir, "--cluster", "edge-berlin", "--fleet-folder")).stdout, "Cluster edge-berlin is already set up; nothing changed.\n");

  // What init wrote renders with the real kustomize, each cluster with its identity.
  const check = await fluxgate("check", dir);
  assert.equal(check.code, 0, `${check.stdout}${check.stderr}`);
  assert.match(check.stdout, /^No findings in 2 clusters/);
});
