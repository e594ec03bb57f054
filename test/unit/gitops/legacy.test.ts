// Legacy CronJob windows: the suspends and resumes their containers run, however they are written.

import assert from "node:assert/strict";
import { test } from "node:test";
import { legacyActions } from "../../../src/gitops/windows.ts";

function cronJob(container: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: "batch/v1", kind: "CronJob", spec: { jobTemplate: { spec: { template: { spec: { containers: [container] } } } } } };
}

test("flux suspend and resume, as command, args or a shell script", () => {
  const direct = legacyActions(cronJob({ command: ["flux", "resume", "kustomization", "apps-rw", "apps-batch", "-n", "apps"] }), "flux-system");
  assert.deepEqual(
    direct.map((a) => [a.action, a.target.kind, a.target.namespace, a.target.name]),
    [
      ["open", "Kustomization", "apps", "apps-rw"],
      ["open", "Kustomization", "apps", "apps-batch"],
    ],
  );
  const script = legacyActions(
    cronJob({ command: ["/bin/sh", "-c"], args: ["set -e\n# close\n/usr/local/bin/flux suspend hr podinfo --namespace=podinfo && echo done"] }),
    "flux-system",
  );
  assert.deepEqual(
    script.map((a) => [a.action, a.target.kind, a.target.namespace, a.target.name]),
    [["close", "HelmRelease", "podinfo", "podinfo"]],
  );
  const all = legacyActions(cronJob({ args: ["flux", "suspend", "source", "git", "--all"] }), "flux-system");
  assert.deepEqual(
    all.map((a) => [a.action, a.target.kind, a.target.name, a.target.labelSelector]),
    [["close", "GitRepository", null, {}]],
  );
});

test("kubectl patch of spec.suspend, merge or JSON patch", () => {
  const merge = legacyActions(
    cronJob({ command: ["kubectl", "-n", "flux-system", "patch", "kustomization", "apps-rw", "--type", "merge", "-p", '{"spec":{"suspend":false}}'] }),
    "default",
  );
  assert.deepEqual(
    merge.map((a) => [a.action, a.target.namespace, a.target.name]),
    [["open", "flux-system", "apps-rw"]],
  );
  const json = legacyActions(
    cronJob({
      command: [
        "sh",
        "-c",
        `kubectl patch kustomizations.kustomize.toolkit.fluxcd.io/apps-rw --type=json -p='[{"op":"replace","path":"/spec/suspend","value":true}]'`,
      ],
    }),
    "flux-system",
  );
  assert.deepEqual(
    json.map((a) => [a.action, a.target.kind, a.target.name]),
    [["close", "Kustomization", "apps-rw"]],
  );
});

test("anything else is not a window", () => {
  assert.deepEqual(legacyActions(cronJob({ command: ["flux", "reconcile", "kustomization", "apps"] }), "x"), []);
  assert.deepEqual(legacyActions(cronJob({ command: ["kubectl", "patch", "deployment", "web", "-p", '{"spec":{"paused":true}}'] }), "x"), []);
  assert.deepEqual(legacyActions(cronJob({ command: ["echo", "flux suspend kustomization apps"] }), "x"), []);
});
