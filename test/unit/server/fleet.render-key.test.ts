// The key of a cluster's fleet-window render: what kustomize reads of its windows folder enters it, comments and layout do not.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { readKustomization, renderKey } from "../../../src/server/model/render-key.ts";
import { buildCluster, type FileAt } from "../../../src/server/model/model.ts";

const NOW = Date.parse("2026-11-23T10:00:00Z");
const BASE: FileAt[] = [{ path: "fleet/windows/prod/kustomization.yaml", text: "resources: [prod.yaml]\n", blob: "b1" }];

const file = (path: string, text: string): FileAt => ({ path, text, blob: createHash("sha1").update(text).digest("hex") });
const window = (name: string, start = "0 3 * * *"): string =>
  `apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata: {name: ${name}, namespace: flux-system}\nspec:\n  schedules: [{start: "${start}", duration: 2h}]\n`;
const KUSTOMIZATION = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - nightly.yaml\n  - ../../../fleet/windows/prod\n";

/** The render key of cluster `name` whose windows/ folder holds `files` (path relative to it: text). */
function keyOf(name: string, files: Record<string, string>): string {
  const entry = { name, path: `clusters/${name}`, timeZone: "UTC" };
  const folder = Object.entries(files).map(([path, text]) => file(`clusters/${name}/windows/${path}`, text));
  const model = buildCluster(entry, folder, NOW);
  assert.notEqual(model.kustomization, null);
  return renderKey(model, readKustomization(model, model.kustomization as FileAt, ["prod"]), folder, BASE);
}

test("clusters whose kustomization.yaml differ only in comments, layout and key order share a render", () => {
  const a = keyOf("edge-1", { "kustomization.yaml": `# The windows and overrides of edge-1.\n${KUSTOMIZATION}`, "nightly.yaml": window("nightly") });
  const b = keyOf("edge-2", {
    "kustomization.yaml":
      "# The windows and overrides of edge-2.\nkind: Kustomization\napiVersion: kustomize.config.k8s.io/v1beta1\nresources: [nightly.yaml, ../../../fleet/windows/prod]\n",
    "nightly.yaml": window("nightly", "0 4 * * *"),
  });
  assert.equal(a, b);
  const other = keyOf("edge-3", {
    "kustomization.yaml": `${KUSTOMIZATION}patches:\n  - target: {kind: ReconciliationWindow, name: prod}\n    patch: '[{op: add, path: /spec/timeZone, value: Asia/Tokyo}]'\n`,
    "nightly.yaml": window("nightly"),
  });
  assert.notEqual(a, other, "a patch is content");
});

test("a patch file enters by its content, though its name looks like a window's; a window of the cluster's own by its kind and name while no patch may read it", () => {
  const patched = (zone: string, nightly = window("nightly")): string =>
    keyOf("edge-1", {
      "kustomization.yaml": `${KUSTOMIZATION}patches:\n  - path: zone-patch.yaml\n    target: {kind: ReconciliationWindow, name: prod}\n`,
      "nightly.yaml": nightly,
      "zone-patch.yaml": `- {op: add, path: /spec/timeZone, value: ${zone}}\n`,
    });
  assert.notEqual(patched("Asia/Tokyo"), patched("Europe/Lisbon"));
  assert.equal(patched("Asia/Tokyo"), patched("Asia/Tokyo", window("nightly", "0 5 * * *")), "an own window's schedule is not read into the fleet window");
  assert.notEqual(patched("Asia/Tokyo"), patched("Asia/Tokyo", window("late")), "its name is: kustomize refuses two objects of one name");
  assert.notEqual(patched("Asia/Tokyo"), patched("Asia/Tokyo", "kind: [\n"), "YAML kustomize cannot read breaks the build");
  assert.notEqual(
    patched("Asia/Tokyo"),
    patched("Asia/Tokyo", window("nightly").replace("namespace: flux-system}", "namespace: flux-system, labels: [a]}")),
    "so do labels that are not a map",
  );
  const annotated = (site: string): string => window("nightly").replace("namespace: flux-system}", `namespace: flux-system, annotations: {site: ${site}}}`);
  assert.equal(patched("Asia/Tokyo", annotated("edge-1")), patched("Asia/Tokyo", annotated("edge-2")), "annotations of its own do not");
  // A patch without a target (its file names the object) may patch any window: every file enters by its content.
  const untargeted = (start: string): string =>
    keyOf("edge-1", {
      "kustomization.yaml": `${KUSTOMIZATION}patches:\n  - path: later.yaml\n`,
      "nightly.yaml": window("nightly", start),
      "later.yaml": window("prod", "0 10 * * MON-THU"),
    });
  assert.notEqual(untargeted("0 3 * * *"), untargeted("0 5 * * *"));
});
