// When fluxgate may not patch its target, on the real Flux controllers: the window says so at once, and the change kustomize-controller then applies while
// closed is reported with its true cause.

import assert from "node:assert/strict";
import { test } from "node:test";
import { installFluxgate, sharedControlPlane, waitFor } from "../harness/index.ts";
import { startTestController } from "../support/controller.ts";
import { narrowedControllerAccess } from "../support/rbac.ts";
import { applyFlux, createWindow, readWindow, startScenario, waitForValue } from "./scenario.ts";

const plane = sharedControlPlane({ flux: true });

interface Window {
  status?: {
    targets?: { open: number; closed: number };
    violations?: { name: string; revision: string; cause: string }[];
    conditions?: { type: string; status: string; reason: string; message: string }[];
  };
}

const ready = (w: Window): { status: string; reason: string; message: string } | undefined => w.status?.conditions?.find((c) => c.type === "Ready");

test("a controller without patch on kustomizations: TargetNotFollowing at once with the API server's answer; the revision kustomize-controller applies meanwhile is AppliedWhileClosed because spec.suspend was never set", async () => {
  const s = await startScenario(plane(), "gitops");
  await installFluxgate(s.cp);
  const sa = await narrowedControllerAccess(s.cp, `e2e-no-patch-${s.namespace}`, { resource: "kustomizations", verb: "patch" });
  await s.push({ conf: "v1", image: "nginx:1.27" }, "first");
  await applyFlux(s);
  await waitForValue("the first Deployment", s.image, "nginx:1.27", 120_000);
  // Closed now and for the whole test: open one hour on 1 January.
  await createWindow(s, "rw-window", { schedules: [{ start: "0 0 1 1 *", duration: "1h" }], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const c = await startTestController({ kubeConfig: sa.kubeConfig, namespaces: [s.namespace], targetKinds: ["Kustomization"], logs: "quiet" });
  try {
    const refused = await waitFor("TargetNotFollowing", async () => {
      const w = await readWindow<Window>(s, "rw-window");
      return ready(w)?.reason === "TargetNotFollowing" ? w : undefined;
    });
    assert.match(
      ready(refused)?.message ?? "",
      /apps-rw: spec\.suspend is false, the window wants true: fluxgate may not write it \(403\): .*cannot patch resource "kustomizations"/,
    );
    assert.deepEqual([refused.status?.targets?.open, refused.status?.targets?.closed], [1, 0], "observed, not intended");

    // Git moves on; nothing holds apps-rw, so kustomize-controller applies it.
    const head = await s.push({ conf: "v2", image: "nginx:1.28" }, "a change while the window is closed");
    await waitForValue("the change applied (nothing held it)", s.image, "nginx:1.28", 120_000);
    const violated = await waitFor("AppliedWhileClosed", async () => {
      const w = await readWindow<Window>(s, "rw-window");
      return ready(w)?.reason === "AppliedWhileClosed" ? w : undefined;
    });
    const v = violated.status?.violations?.find((x) => x.name === "apps-rw");
    assert.equal(v?.revision, `main@sha1:${head}`);
    assert.match(v?.cause ?? "", /^spec\.suspend was never set: fluxgate's write was refused: .*forbidden/);
    assert.doesNotMatch(v?.cause ?? "", /although spec\.suspend is true/);
  } finally {
    await c.stop();
  }
});
