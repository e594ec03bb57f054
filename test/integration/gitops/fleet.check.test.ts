// check's fleet rules with the real kustomize: a patch that no longer applies, labels that no longer match a fleet window, a matching cluster that does not
// include it; in text, JSON and SARIF.

import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { before, test } from "node:test";
import { fixtureCopies, fluxgate, kustomize, renderedWith } from "./helpers.ts";

let bin = "";
const copy = fixtureCopies();
before(async () => {
  bin = await kustomize();
});

async function edit(dir: string, path: string, change: (text: string) => string): Promise<void> {
  await writeFile(join(dir, path), change(await readFile(join(dir, path), "utf8")));
}

test("the fleet fixture has no findings", async () => {
  const dir = await copy("fleet");
  const r = await fluxgate("check", dir, "--kustomize", bin);
  assert.equal(r.stdout, `No findings in 3 clusters (9 Kustomizations rendered).\n${await renderedWith()}`);
  assert.equal(r.code, 0);
});

test("labels that no longer match, and a matching cluster that does not include the fleet window, are warnings naming what to change", async () => {
  const dir = await copy("fleet");
  await edit(dir, "fluxgate.yaml", (t) => t.replace("ring: canary", "ring: prod").replace("region: apac\n      ring: prod", "region: apac\n      ring: lab"));
  const r = await fluxgate("check", dir, "--kustomize", bin);
  assert.equal(r.code, 0, "warnings only");
  assert.equal(
    r.stdout,
    [
      "clusters/edge-paris/windows/kustomization.yaml: warning fleet-window-not-included: cluster edge-paris matches the selector ring=prod of fleet window prod-changes (labels region=eu,ring=prod,site=paris) but does not include it: add ../../../fleet/windows/prod-changes to resources in clusters/edge-paris/windows/kustomization.yaml, or change the cluster's labels [cluster edge-paris]",
      "clusters/edge-tokyo/windows/kustomization.yaml: warning fleet-window-unselected: cluster edge-tokyo includes fleet window prod-changes, whose selector ring=prod its labels region=apac,ring=lab,site=tokyo in fluxgate.yaml do not match: remove ../../../fleet/windows/prod-changes from clusters/edge-tokyo/windows/kustomization.yaml, or change the cluster's labels [cluster edge-tokyo]",
      "0 errors, 2 warnings in 3 clusters (9 Kustomizations rendered).",
      (await renderedWith()).trimEnd(),
      "",
    ].join("\n"),
  );
  assert.equal((await fluxgate("check", dir, "--kustomize", bin, "--strict")).code, 1);
  // --selector checks only the clusters it names.
  const eu = await fluxgate("check", dir, "--kustomize", bin, "--selector", "region=eu", "-o", "json");
  assert.deepEqual(
    (JSON.parse(eu.stdout) as { findings: Array<{ rule: string; cluster: string }> }).findings.map((f) => `${f.rule} ${f.cluster}`),
    ["fleet-window-not-included edge-paris"],
  );
});

test("a patch whose window is gone, and a patch kustomize cannot apply, are errors; SARIF lists the fleet rules", async () => {
  const dir = await copy("fleet");
  // Tokyo's patch stays after the cluster stopped including the fleet window: kustomize applies it to nothing, silently.
  await edit(dir, "clusters/edge-tokyo/windows/kustomization.yaml", (t) =>
    t.replace("  - ../../../fleet/windows/prod-changes\n", "  []\n").replace("resources:\n  []\n", "resources: []\n"),
  );
  // Berlin's patch names a field path the window does not have: the build fails.
  await edit(
    dir,
    "clusters/edge-berlin/windows/kustomization.yaml",
    (t) =>
      `${t}patches:\n  - target:\n      kind: ReconciliationWindow\n      name: prod-changes\n    patch: |\n      - op: replace\n        path: /spec/gate/gatedName\n        value: x\n`,
  );
  const r = await fluxgate("check", dir, "--kustomize", bin, "-o", "json");
  assert.equal(r.code, 1);
  const findings = (
    JSON.parse(r.stdout) as { findings: Array<{ rule: string; cluster: string; file: string; object: string; message: string; severity: string }> }
  ).findings;
  const fleet = findings.filter((f) => f.rule.startsWith("fleet-"));
  assert.deepEqual(
    fleet.map((f) => [f.rule, f.severity, f.cluster, f.file, f.object]),
    [
      ["fleet-patch-not-applied", "error", "edge-berlin", "clusters/edge-berlin/windows/kustomization.yaml", "ReconciliationWindow flux-system/prod-changes"],
      ["fleet-patch-not-applied", "error", "edge-tokyo", "clusters/edge-tokyo/windows/kustomization.yaml", "ReconciliationWindow flux-system/prod-changes"],
      ["fleet-window-not-included", "warning", "edge-tokyo", "clusters/edge-tokyo/windows/kustomization.yaml", "ReconciliationWindow flux-system/prod-changes"],
    ],
  );
  assert.match(
    fleet[0]?.message ?? "",
    /^the patch of fleet window prod-changes in clusters\/edge-berlin\/windows\/kustomization\.yaml does not apply: kustomize cannot build the cluster's windows: .*\/spec\/gate\/gatedName/,
  );
  assert.doesNotMatch(fleet[0]?.message ?? "", new RegExp(dir), "no temporary paths");
  assert.match(
    fleet[1]?.message ?? "",
    /patches ReconciliationWindow prod-changes, but the cluster's windows render none of that name \(no windows\): the patch changes nothing/,
  );

  const sarif = JSON.parse((await fluxgate("check", dir, "--kustomize", bin, "-o", "sarif")).stdout) as {
    runs: Array<{ tool: { driver: { rules: Array<{ id: string }> } }; results: Array<{ ruleId: string; level: string }> }>;
  };
  const ids = sarif.runs[0]?.tool.driver.rules.map((x) => x.id) ?? [];
  for (const id of ["fleet-patch-not-applied", "fleet-window-unselected", "fleet-window-not-included"]) assert.ok(ids.includes(id), id);
  assert.deepEqual(
    sarif.runs[0]?.results.filter((x) => x.ruleId.startsWith("fleet-")).map((x) => `${x.ruleId} ${x.level}`),
    ["fleet-patch-not-applied error", "fleet-patch-not-applied error", "fleet-window-not-included warning"],
  );
});
