// Per-target lanes for targets a kustomize base declares: the Config Service renders each cluster with the real
// kustomize (as `fluxgate check` does), so a Kustomization that only a base declares gets its lane too.

import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { findKustomize, KustomizeRunner } from "../../../src/gitops/kustomize.ts";
import { kustomizeTargets } from "../../../src/server/model/rendered-targets.ts";
import { serve } from "../../../src/cli/serve.ts";
import { Repository } from "../../../src/server/git/repository.ts";
import { computeTimeline, timelineInput } from "../../../src/server/views/timeline.ts";
import type { ClusterTimeline } from "../../../src/server/views/views.ts";
import { git, NOW, tempDir } from "../../support/server.ts";

const kustomization = (resources: string[]): string =>
  `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n${resources.map((r) => `  - ${r}\n`).join("")}`;

/** Two clusters take the apps Kustomizations from one base; edge-paris's patch adds a label; no cluster directory declares them. */
const FILES: Record<string, string> = {
  "fluxgate.yaml":
    "apiVersion: fluxgate.io/v1alpha1\nkind: Repository\ntypes: [{name: rw, window: true}]\nclusters:\n  - {name: edge-berlin, path: clusters/edge-berlin, timeZone: Europe/Berlin}\n  - {name: edge-paris, path: clusters/edge-paris, timeZone: Europe/Paris}\n",
  "base/apps/kustomization.yaml": kustomization(["apps-rw.yaml", "apps-rt.yaml"]),
  "base/apps/apps-rw.yaml":
    "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps-rw, namespace: flux-system, labels: {fluxgate.io/type: rw}}\nspec: {interval: 10m, path: ./apps/rw, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}\n",
  "base/apps/apps-rt.yaml":
    "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps-rt, namespace: flux-system, labels: {fluxgate.io/type: rt}}\nspec: {interval: 10m, path: ./apps/rt, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}\n",
  "apps/rw/config.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: rw, namespace: default}\n",
  "apps/rt/config.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: rt, namespace: default}\n",
  "clusters/edge-berlin/kustomization.yaml": kustomization(["../../base/apps", "windows"]),
  "clusters/edge-paris/kustomization.yaml": `${kustomization(["../../base/apps", "windows"])}patches:\n  - target: {kind: Kustomization, name: apps-rt}\n    patch: |-\n      - op: add\n        path: /metadata/labels/site\n        value: paris\n`,
};
for (const cluster of ["edge-berlin", "edge-paris"]) {
  FILES[`clusters/${cluster}/windows/kustomization.yaml`] = kustomization(["weekday.yaml"]);
  FILES[`clusters/${cluster}/windows/weekday.yaml`] =
    'apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata: {name: weekday, namespace: flux-system}\nspec:\n  schedules: [{start: "0 8 * * MON", end: "0 17 * * THU"}]\n  targets:\n    - kind: Kustomization\n      labelSelector: {matchLabels: {fluxgate.io/type: rw}}\n    - kind: Kustomization\n      labelSelector: {matchLabels: {site: paris}}\n';
}

/** Writes `files` into a new repository in `dir` and commits them. */
async function commit(dir: string, files: Readonly<Record<string, string>>, message: string): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  await git(dir, "init", "--quiet", "--initial-branch=main");
  await git(dir, "add", "--all");
  await git(dir, "commit", "--quiet", "-m", message);
}

test("targets that only a kustomize base declares get per-target lanes, with the labels the cluster's kustomize patch gives them", async (t) => {
  const { dir, cleanup } = await tempDir("rendered-targets");
  t.after(cleanup);
  await commit(dir, FILES, "Fleet from a base");

  // Without rendering, the service knows only targets written in the clusters' directories: none here.
  const declared = await (await Repository.open(dir, { now: () => NOW })).fleet();
  assert.deepEqual(
    declared.clusters.map((c) => c.targets.length),
    [0, 0],
  );

  // kustomize is the one `fluxgate check` uses (built by npm run tools); a missing one fails here, saying how to get it.
  const runner = new KustomizeRunner(await findKustomize(undefined, process.env));
  const fleet = await (await Repository.open(dir, { now: () => NOW, targets: kustomizeTargets(runner) })).fleet();
  const lanes = (name: string): Array<[string, string[]]> => {
    const cluster = fleet.clusters.find((c) => c.entry.name === name);
    assert.ok(cluster !== undefined, name);
    const timeline = JSON.parse(new TextDecoder().decode(computeTimeline(timelineInput(cluster, NOW, NOW + 7 * 86_400_000)))) as ClusterTimeline;
    return timeline.targets.map((l) => [`${l.kind} ${l.namespace}/${l.name}`, l.windows]);
  };
  assert.deepEqual(lanes("edge-berlin"), [["Kustomization flux-system/apps-rw", ["weekday"]]]);
  // edge-paris's patch labels apps-rt with site=paris, which the window also selects: only kustomize knows that.
  assert.deepEqual(lanes("edge-paris"), [
    ["Kustomization flux-system/apps-rt", ["weekday"]],
    ["Kustomization flux-system/apps-rw", ["weekday"]],
  ]);
  const paris = fleet.clusters.find((c) => c.entry.name === "edge-paris")?.targets.find((x) => x.name === "apps-rt");
  assert.deepEqual(paris?.labels, { "fluxgate.io/type": "rt", site: "paris" });
  assert.equal(paris?.path, "base/apps/apps-rt.yaml", "the file that declares it");
});

test("a render that fails leaves the targets the clusters' directories declare, and says so", async (t) => {
  const { dir, cleanup } = await tempDir("rendered-targets-fail");
  t.after(cleanup);
  const files = { ...FILES, "clusters/edge-berlin/apps-rw.yaml": FILES["base/apps/apps-rw.yaml"] as string };
  await commit(dir, files, "Fleet from a base, one target declared");
  const failures: unknown[] = [];
  const broken = new Error("kustomize exited 1");
  const repository = await Repository.open(dir, { now: () => NOW, targets: () => Promise.reject(broken), observer: { renderFailed: (e) => failures.push(e) } });
  const fleet = await repository.fleet();
  assert.deepEqual(
    fleet.clusters.map((c) => c.targets.map((x) => x.name)),
    [["apps-rw"], []],
  );
  assert.deepEqual(failures, [broken]);
});

test("fluxgate serve --render-targets serves those lanes in the cluster's timeline", async (t) => {
  const { dir, cleanup } = await tempDir("rendered-targets-serve");
  t.after(cleanup);
  await commit(dir, FILES, "Fleet from a base");
  const stop = new AbortController();
  let printed = "";
  let listening: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (listening = resolve));
  const done = serve({
    repo: dir,
    host: "127.0.0.1",
    port: 0,
    anonymousRead: true,
    clusterContexts: [],
    syncInterval: "0",
    renderTargets: true,
    env: process.env,
    now: Date.now(),
    signal: stop.signal,
    print: (text) => {
      printed += text;
      if (/http:\/\/127\.0\.0\.1:\d+/.test(printed)) listening();
    },
  });
  await Promise.race([started, done]);
  const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(printed)?.[1] as string;
  const timeline = (await (await fetch(`${url}/api/v1/clusters/edge-paris/timeline`)).json()) as ClusterTimeline;
  assert.deepEqual(
    timeline.targets.map((l) => l.name),
    ["apps-rt", "apps-rw"],
  );
  stop.abort();
  assert.equal(await done, "Stopped.\n");
});
