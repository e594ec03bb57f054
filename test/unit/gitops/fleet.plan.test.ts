// The fleet planners on file texts alone: a cluster's patch keeps its file's comments and other patches, entries are recognised however written, listings flag
// labels that drifted.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parse } from "yaml";
import { parseRepositoryFile } from "../../../src/gitops/files.ts";
import { fleetWindowOfEntry } from "../../../src/gitops/fleet/layout.ts";
import { listFleetWindows, planFleetWindowAdd, planFleetWindowPatch } from "../../../src/gitops/fleet/windows.ts";

const repository = parseRepositoryFile(`apiVersion: fluxgate.io/v1alpha1
kind: Repository
types: [{name: rw, window: true}]
clusters:
  - {name: a, path: clusters/a, timeZone: UTC, labels: {ring: prod}}
  - {name: b, path: clusters/b, timeZone: UTC, labels: {ring: canary}}
`);
const now = Date.parse("2026-11-24T00:00:00Z");
const base = `apiVersion: fluxgate.io/v1alpha1
kind: ReconciliationWindow
metadata:
  name: w
  namespace: flux-system
  annotations: {fluxgate.io/fleet-selector: ring=prod}
spec:
  schedules: [{start: "0 8 * * MON", duration: 2h}]
  targets: [{kind: Kustomization, name: apps-rw}]
`;
const clusterA = `# a's windows
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ../../../fleet/windows/w # the fleet's window
patches:
  # a's own window runs later
  - target: {kind: ReconciliationWindow, name: own}
    patch: |-
      - op: add
        path: /spec/timeZone
        value: UTC
`;

test("a patch keeps the file's comments and its other patches, and a second patch keeps what the first set", () => {
  const files = new Map([
    ["fleet/windows/w/w.yaml", base],
    ["clusters/a/windows/kustomization.yaml", clusterA],
  ]);
  const read = (p: string): string | null => files.get(p) ?? null;
  const [first] = planFleetWindowPatch(repository, read, { name: "w", cluster: "a", timeZone: "Asia/Tokyo" }, now);
  assert.ok(first?.after?.startsWith("# a's windows\n"));
  assert.match(first?.after ?? "", /- \.\.\/\.\.\/\.\.\/fleet\/windows\/w # the fleet's window\n/);
  assert.match(first?.after ?? "", / {2}# a's own window runs later\n {2}- target: \{kind: ReconciliationWindow, name: own\}\n/);
  files.set("clusters/a/windows/kustomization.yaml", first?.after as string);
  const [second] = planFleetWindowPatch(repository, read, { name: "w", cluster: "a", schedules: [{ start: "0 9 * * MON", duration: "1h" }] }, now);
  const patches = (parse(second?.after as string) as { patches: Array<{ target: { name: string }; patch: string }> }).patches;
  assert.equal(patches.length, 2);
  assert.deepEqual(parse(patches.find((p) => p.target.name === "w")?.patch as string), [
    { op: "add", path: "/spec/timeZone", value: "Asia/Tokyo" },
    { op: "add", path: "/spec/schedules", value: [{ start: "0 9 * * MON", duration: "1h" }] },
  ]);
});

test("a patch that would make the window invalid is refused before anything is planned", () => {
  const files = new Map([
    ["fleet/windows/w/w.yaml", base],
    ["clusters/a/windows/kustomization.yaml", clusterA],
  ]);
  assert.throws(
    () =>
      planFleetWindowPatch(repository, (p) => files.get(p) ?? null, { name: "w", cluster: "a", schedules: [{ start: "0 8 * * MON", duration: "0m" }] }, now),
    /fleet window w: spec\.schedules\[0\]\.duration/,
  );
});

test("a cluster's entry names a fleet window however it is written", () => {
  const a = repository.clusters[0]!;
  for (const entry of ["../../../fleet/windows/w", "./../../../fleet/windows/w/", "../../../fleet/../fleet/windows/w"])
    assert.equal(fleetWindowOfEntry(a, entry), "w", entry);
  for (const entry of ["w.yaml", "../../../fleet/windows/w/w.yaml", "../../fleet/windows/w", 3])
    assert.equal(fleetWindowOfEntry(a, entry), null, String(entry));
});

test("the listing flags a cluster whose labels drifted and a matching cluster that does not include the window", () => {
  const moved = parseRepositoryFile(
    `apiVersion: fluxgate.io/v1alpha1\nkind: Repository\ntypes: [{name: rw, window: true}]\nclusters:\n  - {name: a, path: clusters/a, timeZone: UTC, labels: {ring: canary}}\n  - {name: b, path: clusters/b, timeZone: UTC, labels: {ring: prod}}\n`,
  );
  const files = new Map([
    ["fleet/windows/w/w.yaml", base],
    ["clusters/a/windows/kustomization.yaml", clusterA],
  ]);
  assert.deepEqual(
    listFleetWindows(moved, ["w"], (p) => files.get(p) ?? null),
    [{ name: "w", selector: "ring=prod", file: "fleet/windows/w/w.yaml", clusters: [{ name: "a", patched: false, labelsMatch: false }], missing: ["b"] }],
  );
});

test("add plans the base and the entries of the selected clusters only", () => {
  const files = new Map([
    ["clusters/a/windows/kustomization.yaml", "resources: []\n"],
    ["clusters/b/windows/kustomization.yaml", "resources: []\n"],
  ]);
  const { changes, clusters } = planFleetWindowAdd(
    repository,
    (p) => files.get(p) ?? null,
    {
      name: "n",
      selector: "ring in (prod)",
      spec: { schedules: [{ start: "0 8 * * MON", duration: "2h" }], targets: [{ kind: "Kustomization", name: "apps-rw" }] },
    },
    now,
  );
  assert.deepEqual(
    clusters.map((c) => c.name),
    ["a"],
  );
  assert.deepEqual(
    changes.map((c) => c.path),
    ["fleet/windows/n/n.yaml", "fleet/windows/n/kustomization.yaml", "clusters/a/windows/kustomization.yaml"],
  );
  assert.equal(changes[2]?.after, "resources:\n  - ../../../fleet/windows/n\n");
  assert.match(changes[0]?.after ?? "", /fluxgate.io\/fleet-selector: ring in \(prod\)\n/);
});
