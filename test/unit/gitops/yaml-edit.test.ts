// Source-preserving YAML edits: list items replaced, removed, appended and moved with their comments; documents cut and joined.

import assert from "node:assert/strict";
import { test } from "node:test";
import { editList, joinDocuments, listItems, RawItem, removeField, setScalar, splitDocuments } from "../../../src/gitops/yaml-edit.ts";

const K = `# top
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ../../apps/podinfo   # the app
  - extra.yaml
patches:
  # Berlin's replicas
  - target: {kind: Deployment, name: podinfo}
    patch: |-
      - op: add
        path: /spec/replicas
        value: 3
namespace: podinfo
`;

test("replacing one item by two keeps its comment and touches no other line", () => {
  const out = editList(K, "resources", "k", (v) => (v === "../../apps/podinfo" ? ["../../apps/podinfo-rt", "../../apps/podinfo-rw"] : "keep"));
  assert.equal(out, K.replace("  - ../../apps/podinfo   # the app\n", "  - ../../apps/podinfo-rt   # the app\n  - ../../apps/podinfo-rw\n"));
});

test("removing the last item leaves an empty list, or no key with dropEmpty; the comment above an item goes with it", () => {
  assert.match(
    editList(K, "resources", "k", () => []),
    /^resources: \[\]\npatches:/m,
  );
  const dropped = editList(K, "patches", "k", () => [], [], { dropEmpty: true });
  assert.equal(dropped, K.replace(/patches:[\s\S]*?(?=namespace:)/, ""));
});

test("appending to a missing key, an empty flow list and a flow list", () => {
  assert.equal(
    editList("kind: Kustomization\n", "resources", "k", () => "keep", ["a.yaml"]),
    "kind: Kustomization\nresources:\n  - a.yaml\n",
  );
  assert.equal(
    editList("resources: [] # none yet\n", "resources", "k", () => "keep", ["a.yaml"]),
    "resources: # none yet\n  - a.yaml\n",
  );
  assert.equal(
    editList("resources: [a.yaml, b.yaml]\n", "resources", "k", (v) => (v === "a.yaml" ? [] : "keep"), ["c.yaml"]),
    "resources: [b.yaml, c.yaml]\n",
  );
});

test("an item moves to another file verbatim, with the comment above it, at that file's indentation", () => {
  const item = listItems(K, "patches", "k")[0]!;
  const moved = editList("patches:\n- path: x.yaml\n", "patches", "k2", () => "keep", [RawItem.of(K, item, "k")]);
  assert.equal(
    moved,
    "patches:\n- path: x.yaml\n# Berlin's replicas\n- target: {kind: Deployment, name: podinfo}\n  patch: |-\n    - op: add\n      path: /spec/replicas\n      value: 3\n",
  );
});

test("documents are cut with the comments above them and joined back", () => {
  const text = "# head\napiVersion: v1\nkind: A\n---\n# about B\nkind: B\n---\nkind: C\n";
  const docs = splitDocuments(text, "f");
  assert.deepEqual(
    docs.map((d) => d.value),
    [{ apiVersion: "v1", kind: "A" }, { kind: "B" }, { kind: "C" }],
  );
  assert.equal(joinDocuments([docs[0]!, docs[2]!]), "# head\napiVersion: v1\nkind: A\n---\nkind: C\n");
  assert.equal(joinDocuments([docs[1]!, docs[2]!]), "# about B\nkind: B\n---\nkind: C\n");
  assert.equal(joinDocuments(docs), text);
  assert.throws(() => splitDocuments("kind: A\n---\nkind: [oops\n", "bad.yaml"), /bad\.yaml:3: not valid YAML: Flow sequence/);
});

test("setScalar replaces one value in place", () => {
  const text = "clusters:\n  - name: a # first\n    timeZone: UTC # zone\n";
  assert.equal(setScalar(text, ["clusters", 0, "timeZone"], "Europe/Berlin", "f"), "clusters:\n  - name: a # first\n    timeZone: Europe/Berlin # zone\n");
});

test("removeField takes a field out of one document, with its comment lines, and leaves every other byte; a flow mapping is not edited", () => {
  const text = [
    "# the app",
    "apiVersion: kustomize.toolkit.fluxcd.io/v1",
    "kind: Kustomization",
    "metadata:",
    "  name: apps",
    "spec:",
    "  interval: 5m # often",
    "  # resumed by the jobs",
    "  suspend: false # from Git",
    "  prune: true",
    "---",
    "kind: Kustomization",
    "metadata: {name: infra}",
    "spec: {suspend: true}",
    "",
  ].join("\n");
  assert.equal(
    removeField(text, "f.yaml", "Kustomization", "apps", ["spec", "suspend"]),
    text.replace("  # resumed by the jobs\n  suspend: false # from Git\n", ""),
  );
  assert.equal(removeField(text, "f.yaml", "Kustomization", "infra", ["spec", "suspend"]), null);
  assert.equal(removeField(text, "f.yaml", "Kustomization", "apps", ["spec", "timeout"]), null);
  assert.equal(removeField(text, "f.yaml", "Kustomization", "gone", ["spec", "suspend"]), null);
});
