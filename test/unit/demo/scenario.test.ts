// The demo's scenario: a compressed schedule that opens at the next whole minute, and objects the API accepts.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseAllDocuments } from "yaml";
import { validateWindow } from "../../../src/api/index.ts";
import {
  nextOpening,
  reconciliationWindow,
  repositoryFiles,
  confVersionOf,
  kustomization,
  FIRST,
  SECOND,
  GATED_SOURCE,
  RW,
  RT,
} from "../../../src/demo/scenario.ts";
import { Evaluator } from "../../../src/schedule/index.ts";

const now = Date.parse("2026-11-22T11:21:40Z");

test("the first opening is the first whole minute at least the margin ahead", () => {
  assert.equal(nextOpening(now, 35_000, 30, 5).at, Date.parse("2026-11-22T11:23:00Z"));
  assert.equal(nextOpening(now, 20_000, 30, 5).at, Date.parse("2026-11-22T11:22:00Z"), "11:22:00 is exactly 20s ahead");
  assert.equal(nextOpening(Date.parse("2026-11-22T11:59:50Z"), 35_000, 30, 5).cron, "1-59/5 * * * *", "past the hour: minute 01");
});

test("the window is closed now, open for 30s at the opening, and opens again 5 minutes later", () => {
  const opening = nextOpening(now, 35_000, 30, 5);
  assert.equal(opening.cron, "3-59/5 * * * *");
  for (const mode of ["Suspend", "Gate"] as const) {
    const { compiled } = validateWindow(reconciliationWindow("demo", mode, opening), now);
    const evaluator = new Evaluator([compiled], []);
    const state = (t: number): string => evaluator.stateAt(t).state;
    assert.equal(state(now), "closed", mode);
    assert.equal(state(opening.at - 1), "closed");
    assert.equal(state(opening.at), "open");
    assert.equal(state(opening.at + 29_999), "open");
    assert.equal(state(opening.at + 30_000), "closed");
    assert.equal(state(opening.at + 5 * 60_000), "open");
  }
});

test("Gate mode names the upstream and the gated copy apps-rw uses", () => {
  const window = reconciliationWindow("demo", "Gate", nextOpening(now, 35_000, 30, 5)) as { spec: Record<string, any> };
  assert.deepEqual(window.spec.gate, { upstream: { kind: "GitRepository", name: "gitops" }, gatedName: GATED_SOURCE });
  assert.deepEqual(window.spec.targets, [{ kind: "Kustomization", name: RW }]);
  const rw = kustomization("demo", RW, GATED_SOURCE) as { spec: Record<string, any> };
  assert.deepEqual(rw.spec.sourceRef, { kind: "GitRepository", name: GATED_SOURCE });
  assert.deepEqual(rw.spec.dependsOn, [{ name: RT }]);
  assert.equal((kustomization("demo", RT, "gitops") as { spec: Record<string, any> }).spec.dependsOn, undefined);
});

test("the repository holds nginx-rt (ConfigMap) and nginx-rw (Deployment, Service), and one commit changes both", () => {
  const kinds = (v: typeof FIRST): Record<string, string[]> =>
    Object.fromEntries(
      Object.entries(repositoryFiles(v)).map(([path, text]) => [path, parseAllDocuments(text).map((d) => (d.toJS() as { kind: string }).kind)]),
    );
  assert.deepEqual(kinds(FIRST), {
    "apps/nginx-rt/kustomization.yaml": ["Kustomization"],
    "apps/nginx-rt/configmap.yaml": ["ConfigMap"],
    "apps/nginx-rw/kustomization.yaml": ["Kustomization"],
    "apps/nginx-rw/deployment.yaml": ["Deployment"],
    "apps/nginx-rw/service.yaml": ["Service"],
  });
  const cm = parseAllDocuments(repositoryFiles(SECOND)["apps/nginx-rt/configmap.yaml"] as string)[0]?.toJS() as { data: Record<string, string> };
  assert.equal(confVersionOf(cm.data["nginx.conf"]), "v2");
  assert.match(repositoryFiles(SECOND)["apps/nginx-rw/deployment.yaml"] as string, /image: nginx:1\.28\n/);
});
