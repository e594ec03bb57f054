// The event posted to notification-controller: Flux's event format, with metadata keys it keeps.

import assert from "node:assert/strict";
import { test } from "node:test";
import { fluxEventOf } from "../../../src/controller/events.ts";

const kustomization = { apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", namespace: "flux-system", name: "apps", uid: "u-1" };

test("metadata keys carry the involved object's API group, which notification-controller keeps and strips", () => {
  const event = fluxEventOf(kustomization, "Normal", "ChangesApplied", "Applied revision main@sha1:cccc", new Date("2026-11-23T07:00:00.123Z"), "fluxgate-0", {
    revision: "main@sha1:cccc",
  });
  assert.deepEqual(event, {
    involvedObject: kustomization,
    severity: "info",
    timestamp: "2026-11-23T07:00:00Z",
    message: "Applied revision main@sha1:cccc",
    reason: "ChangesApplied",
    metadata: { "kustomize.toolkit.fluxcd.io/revision": "main@sha1:cccc" },
    reportingController: "fluxgate",
    reportingInstance: "fluxgate-0",
  });
});

test("a Warning is severity error; a HelmRelease's metadata takes the helm group; no metadata, no field", () => {
  const release = { apiVersion: "helm.toolkit.fluxcd.io/v2", kind: "HelmRelease", namespace: "apps", name: "podinfo" };
  const warning = fluxEventOf(release, "Warning", "SuspendReverted", "reverted", new Date(0), "i", { window: "nightly" });
  assert.equal(warning.severity, "error");
  assert.deepEqual(warning.metadata, { "helm.toolkit.fluxcd.io/window": "nightly" });
  assert.equal("metadata" in fluxEventOf(release, "Normal", "WindowOpened", "m", new Date(0), "i"), false);
});

test("an object without an API group gets the event group, the other prefix notification-controller keeps", () => {
  const event = fluxEventOf({ apiVersion: "v1", kind: "ConfigMap", name: "x" }, "Normal", "R", "m", new Date(0), "i", { a: "b" });
  assert.deepEqual(event.metadata, { "event.toolkit.fluxcd.io/a": "b" });
});
