// The names people give the kinds windows govern (kubectl's and the flux CLI's), read in one place for every surface.

import assert from "node:assert/strict";
import { test } from "node:test";
import { FLUX_CLI_KIND_WORDS, FLUX_KINDS, KIND_SHORT_NAMES, kindNames, kindOfResourceName, TARGET_KINDS } from "../../../src/api/kinds.ts";

test("a kind as kubectl reads it: the kind, its plural, with the group, or a short name, case aside", () => {
  for (const kind of TARGET_KINDS) {
    const { plural, group } = FLUX_KINDS[kind];
    for (const text of [kind, kind.toLowerCase(), plural, `${plural}.${group}`, `${kind.toLowerCase()}.${group}`, plural.toUpperCase()])
      assert.equal(kindOfResourceName(text), kind, text);
  }
  assert.deepEqual(
    Object.keys(KIND_SHORT_NAMES).map((s) => kindOfResourceName(s)),
    ["Kustomization", "HelmRelease", "GitRepository", "OCIRepository", "HelmRepository", "HelmChart"],
  );
  for (const text of ["deployment", "kustomizations.apps", "", "k"]) assert.equal(kindOfResourceName(text), undefined, text);
  assert.deepEqual(
    kindNames(),
    TARGET_KINDS.map((k) => k.toLowerCase()),
  );
});

test("the flux CLI's words name only kinds a window can govern", () => {
  for (const [, kind] of FLUX_CLI_KIND_WORDS) assert.ok(TARGET_KINDS.includes(kind), kind);
  assert.deepEqual(FLUX_CLI_KIND_WORDS.find(([w]) => w.join(" ") === "source chart")?.[1], "HelmChart");
});
