// fluxgate.yaml is read by one parser: check, split, migrate and the Config Service refuse the same files for the same reasons.

import assert from "node:assert/strict";
import { test } from "node:test";
import { RepositoryInputError } from "../../../src/gitops/errors.ts";
import { parseRepositoryFile } from "../../../src/gitops/files.ts";
import { ConfigError } from "../../../src/server/model/errors.ts";
import { parseRepositoryFile as serviceParse } from "../../../src/server/model/model.ts";

const head = "apiVersion: fluxgate.io/v1alpha1\nkind: Repository\ntypes: [{name: rw, window: true}]\n";

const cases: Array<[string, string, RegExp]> = [
  [
    "a cluster path outside the repository",
    `${head}clusters: [{name: a, path: ../elsewhere, timeZone: UTC}]`,
    /clusters\[0\]\.path: "\.\.\/elsewhere" must be a relative path inside the repository/,
  ],
  ["an absolute cluster path", `${head}clusters: [{name: a, path: /etc, timeZone: UTC}]`, /clusters\[0\]\.path: "\/etc" must be a relative path/],
  ["a cluster listed twice", `${head}clusters: [{name: a, path: c/a, timeZone: UTC}, {name: a, path: c/b, timeZone: UTC}]`, /cluster "a" is listed twice/],
  [
    "two clusters with one path",
    `${head}clusters: [{name: a, path: c/a, timeZone: UTC}, {name: b, path: c/a, timeZone: UTC}]`,
    /two clusters have the path "c\/a"/,
  ],
  ["a cluster path with an empty segment", `${head}clusters: [{name: a, path: c/a/, timeZone: UTC}]`, /clusters\[0\]\.path: "c\/a\/" must be a relative path/],
  [
    "a type listed twice",
    "apiVersion: fluxgate.io/v1alpha1\nkind: Repository\ntypes: [{name: rw, window: true}, {name: rw, window: false}]\nclusters: []",
    /type "rw" is listed twice/,
  ],
  [
    "an alias bomb",
    `${head}a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\nclusters: []`,
    /not valid YAML/,
  ],
  ["a schema problem", `${head}clusters: [{name: A, path: c/a, timeZone: UTC}]`, /clusters\.0\.name|clusters\[0\]\.name: must be a DNS label/],
];

for (const [what, text, message] of cases) {
  test(`fluxgate.yaml with ${what}: refused alike by the commands and the Config Service`, () => {
    assert.throws(
      () => parseRepositoryFile(text),
      (e: unknown) => e instanceof RepositoryInputError && message.test(e.message) && e.message.startsWith("fluxgate.yaml: "),
    );
    assert.throws(
      () => serviceParse(text),
      (e: unknown) => e instanceof ConfigError && message.test(e.message),
    );
  });
}

test("a valid fluxgate.yaml reads the same for both", () => {
  const text = `${head}clusters: [{name: a, path: clusters/a, timeZone: Europe/Berlin}]`;
  assert.deepEqual(serviceParse(text), parseRepositoryFile(text));
});

const labelled = (labels: string): string =>
  `${head}clusters:\n  - name: edge-berlin\n    path: clusters/edge-berlin\n    timeZone: UTC\n    labels: ${labels}\n`;

test("cluster labels are read from fluxgate.yaml", () => {
  const file = parseRepositoryFile(labelled("{region: eu, example.com/ring: prod, empty: ''}"));
  assert.deepEqual(file.clusters[0]?.labels, { region: "eu", "example.com/ring": "prod", empty: "" });
});

test("a bad cluster label is refused with the cluster and the label named", () => {
  const cases: Array<[string, RegExp]> = [
    ["{Bad Key: eu}", /cluster "edge-berlin": label "Bad Key": the key must be a label key/],
    ["{region: 'e u'}", /cluster "edge-berlin": label "region": "e u" must be a label value/],
    ["{ring: 3}", /cluster "edge-berlin": label "ring": the value must be a string \(write "3" in quotes\)/],
    [`{region: ${"x".repeat(64)}}`, /label "region": "x{64}" must be a label value/],
  ];
  for (const [labels, message] of cases) {
    assert.throws(
      () => parseRepositoryFile(labelled(labels)),
      (e: unknown) => e instanceof RepositoryInputError && e.message.startsWith("fluxgate.yaml: ") && message.test(e.message),
      labels,
    );
  }
});
