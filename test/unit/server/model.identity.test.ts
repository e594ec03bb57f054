// The cluster's identity, which init writes beside the windows (windows/fluxgate-cluster.yaml), is read by the Config Service as no window.

import assert from "node:assert/strict";
import { test } from "node:test";
import { identityFile } from "../../../src/gitops/fleet/folder.ts";
import { buildCluster, classify } from "../../../src/server/model/model.ts";

const cluster = { name: "edge-berlin", path: "clusters/edge-berlin", timeZone: "Europe/Berlin", labels: { region: "eu" } };

const IDENTITY = `apiVersion: v1
kind: ConfigMap
metadata:
  name: fluxgate-cluster
  namespace: flux-system
data:
  cluster: edge-berlin
  labels: |
    region: eu
`;

const WINDOW = `apiVersion: fluxgate.io/v1alpha1
kind: ReconciliationWindow
metadata:
  name: apps-rw
  namespace: flux-system
spec:
  timeZone: Europe/Berlin
  schedules:
    - start: "0 8 * * MON"
      duration: 2h
  targets:
    - kind: Kustomization
      name: apps-rw
`;

test("the identity file of a cluster's windows folder is no window: the cluster lists its windows alone, none of them invalid", () => {
  const path = identityFile(cluster);
  assert.equal(path, "clusters/edge-berlin/windows/fluxgate-cluster.yaml");
  assert.equal(classify(cluster, path), null);
  const model = buildCluster(
    cluster,
    [
      { path, text: IDENTITY, blob: "1" },
      { path: "clusters/edge-berlin/windows/apps-rw.yaml", text: WINDOW, blob: "2" },
    ],
    Date.parse("2026-11-28T00:00:00Z"),
  );
  assert.deepEqual(
    model.windows.map((w) => [w.name, w.problems.length]),
    [["apps-rw", 0]],
  );
});
