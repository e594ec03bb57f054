// A Gate window whose target does not take its artifact from the gated source holds nothing: said at once, and what slips through is reported, on real Flux.

import assert from "node:assert/strict";
import { test } from "node:test";
import { installFluxgate, sharedControlPlane, waitFor } from "../harness/index.ts";
import { applyFlux, createWindow, readWindow, startController, startScenario, waitForValue } from "./scenario.ts";

const plane = sharedControlPlane({ flux: true });

interface WindowObject {
  status?: {
    conditions?: { type: string; status: string; reason: string; message: string }[];
    pending?: { name: string; appliedRevision?: string; pendingRevision: string }[];
    violations?: { name: string; revision: string; cause: string }[];
  };
}

test("Gate window, target wired to the upstream: SourceNotGated at once, the change that goes out while closed is AppliedWhileClosed", async () => {
  // apps-rw takes its artifact from the upstream `gitops`, not from the gated `gitops-gated`: the mistake.
  const s = await startScenario(plane(), "gitops");
  await installFluxgate(s.cp);
  await s.push({ conf: "v1", image: "nginx:1.27" }, "first");
  await applyFlux(s);
  await waitForValue("the first Deployment", s.image, "nginx:1.27", 120_000);
  await createWindow(s, "gated", {
    schedules: [{ start: "0 0 1 1 *", duration: "1h" }],
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
    mode: "Gate",
    gate: { upstream: { kind: "GitRepository", name: "gitops" }, gatedName: "gitops-gated" },
  });
  const c = await startController(s);
  const window = (): Promise<WindowObject> => readWindow<WindowObject>(s, "gated");
  try {
    const unwired = await waitFor("Ready=False SourceNotGated", async () =>
      (await window()).status?.conditions?.find((x) => x.type === "Ready" && x.reason === "SourceNotGated"),
    );
    assert.equal(unwired.status, "False");
    assert.match(unwired.message, /Kustomization\/e2e-[^/]+\/apps-rw: its sourceRef is GitRepository\/gitops; set it to GitRepository\/gitops-gated/);
    const warning = await waitFor("the SourceNotGated event on the target", async () =>
      (await s.core.listNamespacedEvent({ namespace: s.namespace })).items.find((e) => e.reason === "SourceNotGated" && e.involvedObject.name === "apps-rw"),
    );
    assert.equal(warning.type, "Warning");

    // A commit while closed goes straight out (nothing holds it): reported as a violation, not as a normal change.
    const second = await s.push({ conf: "v2", image: "nginx:1.28" }, "nginx 1.28 while the window is closed");
    await waitForValue("the Deployment (not held: wired wrong)", s.image, "nginx:1.28", 60_000);
    const violation = await waitFor("the violation in the window's status", async () => (await window()).status?.violations?.find((v) => v.name === "apps-rw"));
    assert.equal(violation.revision, `main@sha1:${second}`);
    assert.match(violation.cause, /its sourceRef is GitRepository\/gitops, not the gated source GitRepository\/gitops-gated/);
    const ready = (await window()).status?.conditions?.find((x) => x.type === "Ready");
    assert.equal(ready?.reason, "AppliedWhileClosed");
    const events = (await s.core.listNamespacedEvent({ namespace: s.namespace })).items;
    assert.ok(events.some((e) => e.reason === "AppliedWhileClosed" && e.type === "Warning" && (e.message ?? "").includes(second)));
    // What it applied is not also listed as waiting.
    const pending = (await window()).status?.pending?.find((p) => p.name === "apps-rw");
    assert.notEqual(pending?.pendingRevision, `main@sha1:${second}`, "a revision is never both applied and pending");
  } finally {
    await c.stop();
  }
});
