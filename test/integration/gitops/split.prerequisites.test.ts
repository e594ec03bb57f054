// Namespaces and CRDs across types: split puts them in the type applied first, refuses an explicit type that would deadlock a new cluster, and check reports
// one applied after the objects that need it.

import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parseAllDocuments } from "yaml";
import { bootstrap, build, fluxgate, kustomize, podinfoApp, removeRepo, snapshot, writeRepo } from "./helpers.ts";

let bin = "";
before(async () => {
  bin = await kustomize();
});

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await removeRepo(d);
});

interface Finding {
  rule: string;
  severity: string;
  file: string;
  object: string;
  message: string;
}

/** A cluster set up by init (apps-rw depends on apps-rt) whose window type runs all of podinfo. */
async function cluster(): Promise<string> {
  const dir = await writeRepo({ ...bootstrap("edge-berlin"), ...podinfoApp() });
  dirs.push(dir);
  assert.equal((await fluxgate("init", dir, "--cluster", "edge-berlin", "--time-zone", "Europe/Berlin")).code, 0);
  await writeFile(
    join(dir, "deploy/edge-berlin/rw/kustomization.yaml"),
    "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../../../apps/podinfo\n",
  );
  return dir;
}

async function check(dir: string): Promise<{ code: number; findings: Finding[] }> {
  const r = await fluxgate("check", dir, "-o", "json", "--kustomize", bin);
  assert.equal(r.stderr, "");
  return { code: r.code, findings: (JSON.parse(r.stdout) as { findings: Finding[] }).findings };
}

const kinds = async (dir: string): Promise<string[]> =>
  parseAllDocuments(await build(bin, dir))
    .map((d) => (d.toJS() as { kind: string }).kind)
    .sort();

test("split as documented (--type rt=ConfigMap,Secret --default rw) puts the Namespace in rt, which apps-rw depends on, says so, and check finds nothing to report about it", async () => {
  const dir = await cluster();
  assert.match(await readFile(join(dir, "clusters/edge-berlin/apps-rw.yaml"), "utf8"), /dependsOn:\n {4}- name: apps-rt/);
  const r = await fluxgate("split", join(dir, "apps/podinfo"), "--type", "rt=ConfigMap,Secret", "--default", "rw", "--kustomize", bin);
  assert.equal(r.stderr, "");
  assert.equal(r.code, 0);
  assert.match(
    r.stdout,
    /^note: Namespace podinfo \(apps\/podinfo\/namespace\.yaml\): type rt, not rw \(--default\), since ConfigMap podinfo-config of type rt is in it, and the Kustomization of type rt is applied before that of type rw/m,
  );
  assert.deepEqual(await kinds(join(dir, "deploy/edge-berlin/rt")), ["ConfigMap", "Namespace", "Secret"]);
  assert.deepEqual(await kinds(join(dir, "deploy/edge-berlin/rw")), ["Deployment", "Service"]);
  const after = await check(dir);
  assert.deepEqual(
    after.findings.filter((f) => f.rule.startsWith("prerequisite-")),
    [],
  );
});

test("split moves a Namespace that --default gave a type in no order with objects in it to the type both depend on", async () => {
  const dir = await writeRepo({ ...bootstrap("edge-berlin"), ...podinfoApp() });
  dirs.push(dir);
  // Two window types, each depending on rt, in no order with each other.
  assert.equal((await fluxgate("init", dir, "--cluster", "edge-berlin", "--types", "rt,rw,nightly", "--time-zone", "Europe/Berlin")).code, 0);
  await writeFile(
    join(dir, "deploy/edge-berlin/rw/kustomization.yaml"),
    "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../../../apps/podinfo\n",
  );
  const r = await fluxgate("split", join(dir, "apps/podinfo"), "--type", "nightly=ConfigMap,Secret", "--default", "rw", "--kustomize", bin);
  assert.equal(r.stderr, "");
  assert.equal(r.code, 0);
  assert.match(
    r.stdout,
    /^note: Namespace podinfo \(apps\/podinfo\/namespace\.yaml\): type rt, not rw \(--default\), since ConfigMap podinfo-config of type nightly is in it, and the Kustomizations of types nightly and rw are in no order/m,
  );
  assert.deepEqual(await kinds(join(dir, "deploy/edge-berlin/rt")), ["Namespace"]);
  assert.deepEqual(await kinds(join(dir, "deploy/edge-berlin/nightly")), ["ConfigMap", "Secret"]);
  assert.deepEqual(await kinds(join(dir, "deploy/edge-berlin/rw")), ["Deployment", "Service"]);
  assert.deepEqual(
    (await check(dir)).findings.filter((f) => f.rule.startsWith("prerequisite-")),
    [],
  );
});

test("split refuses a Namespace given by --type to a type applied after objects in it, names the type it needs, and changes nothing", async () => {
  const dir = await cluster();
  const unchanged = await snapshot(dir);
  const r = await fluxgate(
    "split",
    join(dir, "apps/podinfo"),
    "--type",
    "rt=ConfigMap,Secret",
    "--type",
    "rw=Deployment,Service,Namespace",
    "--kustomize",
    bin,
  );
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /^error: Namespace podinfo \(apps\/podinfo\/namespace\.yaml\): --type rw=Namespace gives it type rw, but ConfigMap podinfo-config of type rt is in it, and the Kustomization of type rt is applied before that of type rw \(which depends on it\): on a new cluster the first would fail and the second would wait for it for ever; give it type rt$/m,
  );
  assert.deepEqual(await snapshot(dir), unchanged);
});

test("check: a Namespace or CRD applied only by a Kustomization that depends on the objects' own is an error, and one in no order with it a warning", async () => {
  const dir = await cluster();
  // As split used to leave it: the Namespace with the workload (rw), the configuration (rt) in it.
  await writeFile(join(dir, "deploy/edge-berlin/rt/kustomization.yaml"), "resources:\n  - config.yaml\n  - widget.yaml\n");
  await writeFile(
    join(dir, "deploy/edge-berlin/rt/config.yaml"),
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: podinfo-config\n  namespace: podinfo\ndata:\n  level: info\n",
  );
  // A custom resource in rt whose CRD is in rw.
  await writeFile(
    join(dir, "deploy/edge-berlin/rt/widget.yaml"),
    "apiVersion: example.org/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: flux-system\nspec: {}\n",
  );
  await writeFile(join(dir, "deploy/edge-berlin/rw/kustomization.yaml"), "resources:\n  - ../../../apps/podinfo/namespace.yaml\n  - widgets.yaml\n");
  await writeFile(
    join(dir, "deploy/edge-berlin/rw/widgets.yaml"),
    "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.org\nspec:\n  group: example.org\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]\n",
  );
  const r = await check(dir);
  assert.equal(r.code, 1);
  const late = r.findings.filter((f) => f.rule.startsWith("prerequisite-"));
  assert.deepEqual(
    late.map((f) => [f.rule, f.severity, f.object, f.file]),
    [
      ["prerequisite-applied-later", "error", "Namespace podinfo", "apps/podinfo/namespace.yaml"],
      ["prerequisite-applied-later", "error", "CustomResourceDefinition widgets.example.org", "deploy/edge-berlin/rw/widgets.yaml"],
    ],
  );
  assert.match(
    late[0]?.message ?? "",
    /^ConfigMap podinfo\/podinfo-config \(Kustomization flux-system\/apps-rt\) needs Namespace podinfo, which only Kustomization flux-system\/apps-rw applies, and it is applied after Kustomization flux-system\/apps-rt \(dependsOn\): on a new cluster Kustomization flux-system\/apps-rt fails \(namespaces "podinfo" not found\) and Kustomization flux-system\/apps-rw waits for it for ever/,
  );
  assert.match(late[1]?.message ?? "", /Widget flux-system\/w .* needs CustomResourceDefinition widgets\.example\.org, .*\(no matches for kind "Widget"\)/);

  // Without dependsOn between them, the same is a warning: it heals once apps-rw has run.
  const rw = join(dir, "clusters/edge-berlin/apps-rw.yaml");
  await writeFile(rw, (await readFile(rw, "utf8")).replace(/ {2}dependsOn:\n {4}- name: apps-rt\n/, ""));
  const unordered = (await check(dir)).findings.filter((f) => f.rule.startsWith("prerequisite-"));
  assert.deepEqual(
    unordered.map((f) => [f.rule, f.severity, f.object]),
    [
      ["prerequisite-unordered", "warning", "Namespace podinfo"],
      ["prerequisite-unordered", "warning", "CustomResourceDefinition widgets.example.org"],
    ],
  );
});
