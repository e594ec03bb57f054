// split: per cluster, the union of the objects kustomize renders is the same before and after; --dry-run and bad input change nothing.

import assert from "node:assert/strict";
import { readFile, rm, writeFile } from "node:fs/promises";
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

/** Two clusters set up by init, both running podinfo in their window type, each with its own patches. */
async function fleet(): Promise<string> {
  const dir = await writeRepo({ ...bootstrap("edge-berlin"), ...bootstrap("edge-paris"), ...podinfoApp() });
  dirs.push(dir);
  assert.equal((await fluxgate("init", dir, "--cluster", "edge-berlin", "--time-zone", "Europe/Berlin")).code, 0);
  assert.equal((await fluxgate("init", dir, "--cluster", "edge-paris", "--time-zone", "Europe/Paris")).code, 0);
  await writeFile(
    join(dir, "deploy/edge-berlin/rw/kustomization.yaml"),
    `# What edge-berlin runs in its window.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ../../../apps/podinfo # the whole app, for now
patches:
  # Berlin logs more.
  - target:
      kind: ConfigMap
      name: podinfo-config
    patch: |-
      - op: add
        path: /data/city
        value: berlin
  # Berlin runs three.
  - patch: |-
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: podinfo
      spec:
        replicas: 3
`,
  );
  await rm(join(dir, "deploy/edge-paris/rw/kustomization.yaml"));
  await writeFile(join(dir, "deploy/edge-paris/rw/kustomization.yml"), "resources: [../../../apps/podinfo]\npatchesStrategicMerge:\n  - paris-token.yaml\n");
  await writeFile(
    join(dir, "deploy/edge-paris/rw/paris-token.yaml"),
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: podinfo-token\n  namespace: podinfo\nstringData:\n  token: paris\n",
  );
  return dir;
}

/** Every object the cluster's entry directories render, as sorted canonical JSON (a multiset). */
async function rendered(dir: string, cluster: string): Promise<string[]> {
  const out: string[] = [];
  for (const type of ["rt", "rw"]) {
    for (const doc of parseAllDocuments(await build(bin, join(dir, "deploy", cluster, type)))) {
      const value: unknown = doc.toJS();
      if (value !== null) out.push(JSON.stringify(sortKeys(value)));
    }
  }
  return out.sort();
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}

test("split keeps every cluster's objects, moves each to its type's Kustomization, and keeps comments", async () => {
  const dir = await fleet();
  const beforeBerlin = await rendered(dir, "edge-berlin");
  const beforeParis = await rendered(dir, "edge-paris");
  assert.ok(beforeBerlin.length >= 5);

  const r = await fluxgate(
    "split",
    join(dir, "apps/podinfo"),
    "--type",
    "rt=ConfigMap,Secret",
    "--type",
    "rw=Deployment,Service",
    "--default",
    "rw",
    "--kustomize",
    bin,
  );
  assert.equal(r.stderr, "");
  assert.equal(r.code, 0);
  assert.match(r.stdout, /every cluster renders the same objects as before \(2 checked with kustomize\)/);

  assert.deepEqual(await rendered(dir, "edge-berlin"), beforeBerlin);
  assert.deepEqual(await rendered(dir, "edge-paris"), beforeParis);

  const rtObjects = parseAllDocuments(await build(bin, join(dir, "deploy/edge-berlin/rt"))).map((d) => (d.toJS() as { kind: string }).kind);
  // The Namespace goes with the ConfigMap and Secret in it, to rt, which apps-rw depends on.
  assert.deepEqual(rtObjects.sort(), ["ConfigMap", "Namespace", "Secret"]);
  const rwObjects = parseAllDocuments(await build(bin, join(dir, "deploy/edge-berlin/rw"))).map((d) => (d.toJS() as { kind: string }).kind);
  assert.deepEqual(rwObjects.sort(), ["Deployment", "Service"]);

  // Comments stay with what they describe.
  const rt = await readFile(join(dir, "apps/podinfo-rt/podinfo.yaml"), "utf8");
  assert.match(rt, /^# The configuration: changes go live at once\./);
  assert.doesNotMatch(rt, /Deployment/);
  const rw = await readFile(join(dir, "apps/podinfo-rw/podinfo.yaml"), "utf8");
  assert.match(rw, /^# The workload: changes wait for the window\./);
  const berlinRt = await readFile(join(dir, "deploy/edge-berlin/rt/kustomization.yaml"), "utf8");
  assert.match(berlinRt, /# Berlin logs more\.\n {2}- target:/);
  assert.match(await readFile(join(dir, "deploy/edge-berlin/rw/kustomization.yaml"), "utf8"), /# Berlin runs three\./);
  // The strategic-merge patch of a Secret moved with the Secret, to Paris's rt entry.
  assert.match(await readFile(join(dir, "deploy/edge-paris/rt/kustomization.yaml"), "utf8"), /paris-token/);
  await assert.rejects(readFile(join(dir, "apps/podinfo/kustomization.yaml"), "utf8"));
});

test("split --dry-run prints the diff and changes nothing", async () => {
  const dir = await fleet();
  const before = await snapshot(dir);
  const r = await fluxgate(
    "split",
    join(dir, "apps/podinfo"),
    "--type",
    "rt=ConfigMap,Secret,Namespace",
    "--type",
    "rw=Deployment,Service",
    "--dry-run",
    "--kustomize",
    bin,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^--- \/dev\/null\n\+\+\+ b\/apps\/podinfo-rt\/kustomization.yaml\n/m);
  assert.match(r.stdout, /^- {2}- \.\.\/\.\.\/\.\.\/apps\/podinfo # the whole app, for now$/m);
  assert.deepEqual(await snapshot(dir), before);
});

test("split refuses objects without a type, and a split that would change what a cluster runs, and changes nothing", async () => {
  const dir = await fleet();
  const before = await snapshot(dir);
  const unassigned = await fluxgate("split", join(dir, "apps/podinfo"), "--type", "rt=ConfigMap,Secret", "--kustomize", bin);
  assert.equal(unassigned.code, 2);
  assert.match(unassigned.stderr, /no type for Namespace podinfo \(apps\/podinfo\/namespace.yaml\), Deployment podinfo .*, Service podinfo/);
  const unknownType = await fluxgate("split", join(dir, "apps/podinfo"), "--type", "live=ConfigMap", "--default", "rw", "--kustomize", bin);
  assert.equal(unknownType.code, 2);
  assert.match(unknownType.stderr, /--type live: not a type of this repository \(rt, rw\)/);

  // A generated ConfigMap gets a content hash in its name only within one build: the Deployment
  // that uses it would lose the hashed name if the generator went to another type.
  await writeFile(
    join(dir, "apps/podinfo/kustomization.yaml"),
    (await readFile(join(dir, "apps/podinfo/kustomization.yaml"), "utf8")) + "configMapGenerator:\n  - name: podinfo-env\n    literals: [MODE=edge]\n",
  );
  await writeFile(
    join(dir, "apps/podinfo/podinfo.yaml"),
    (await readFile(join(dir, "apps/podinfo/podinfo.yaml"), "utf8")).replace(
      "- configMapRef: {name: podinfo-config}",
      "- configMapRef: {name: podinfo-config}\n            - configMapRef: {name: podinfo-env}",
    ),
  );
  const changed = await snapshot(dir);
  const hashed = await fluxgate("split", join(dir, "apps/podinfo"), "--type", "rt=ConfigMap,Secret", "--default", "rw", "--kustomize", bin);
  assert.equal(hashed.code, 2);
  assert.match(
    hashed.stderr,
    /would change what clusters run, so nothing was written:\ncluster edge-berlin: Deployment podinfo\/podinfo would be lost or changed/,
  );
  assert.deepEqual(await snapshot(dir), changed);
  assert.notDeepEqual(changed, before);
});
