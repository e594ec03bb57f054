// Fleet status by push, end to end: the controller's events go through the real notification-controller and a generic-hmac Provider to fluxgate serve, with no
// kubeconfig of the cluster.

import { PatchStrategy, type KubernetesObject } from "@kubernetes/client-node";
import assert from "node:assert/strict";
import { test } from "node:test";
import { sharedControlPlane, waitFor } from "../harness/index.ts";
import { alert, configMapFile, pushStatusTo, startEventsController, startFluxApps, startPushService } from "../support/flux-e2e.ts";

const plane = sharedControlPlane({ flux: true });

interface PushedTarget {
  name: string;
  state: string | null;
  lastTransition: string | null;
  suspended: boolean | null;
  holding: boolean | null;
  diverged: boolean;
  windows: string | null;
  nextChange: string | null;
  lastReason: string;
  lastEventAt: string;
}

test("a window transition reaches fluxgate serve through notification-controller, signed, within seconds; heartbeats keep the cluster reporting; a wrong key stores nothing", async (t) => {
  const cp = plane();
  assert.ok(cp.eventsUrl !== undefined, "the control plane runs notification-controller");
  const apps = await startFluxApps(cp, "push", { "deploy/apps/configmap.yaml": configMapFile("apps", "1") }, { apps: "./deploy/apps" });
  const { namespace, objects, core } = apps;

  // The Config Service: the example fleet, a key for edge-berlin and one for edge-tokyo, status in SQLite.
  const { service, keys } = await startPushService(t, "push-e2e", ["edge-berlin", "edge-tokyo"]);
  const status = async (cluster: string): Promise<{ reporting: string; lastHeard: string | null; targets: PushedTarget[] }> => {
    const r = await fetch(`${service.url}/api/v1/clusters/${cluster}/status`);
    assert.equal(r.status, 200);
    return ((await r.json()) as { pushed: { reporting: string; lastHeard: string | null; targets: PushedTarget[] } }).pushed;
  };

  // The cluster's side: the file "fluxgate init --status-url" writes to commit, and the Secret its comment says to create.
  await pushStatusTo(apps, "edge-berlin", keys.get("edge-berlin") ?? "", service.url);
  // A second Provider that posts as edge-tokyo with a key that is not edge-tokyo's.
  await apps.apply({ apiVersion: "v1", kind: "Secret", metadata: { name: "wrong-key" }, stringData: { token: "fgk_not-edge-tokyos-key" } } as KubernetesObject);
  await alert(apps, "wrong-key", { type: "generic-hmac", address: `${service.url}/api/v1/clusters/edge-tokyo/events`, secretRef: { name: "wrong-key" } }, [
    { kind: "Kustomization", name: "*" },
  ]);

  const controller = await startEventsController(cp, namespace, ["--heartbeat-interval", "10s"]);
  try {
    // A window closed all year: fluxgate suspends apps and announces WindowClosed.
    const created = Date.now();
    await apps.createWindow("changes", { schedules: [{ start: "0 0 1 1 *", duration: "1m" }], targets: [{ kind: "Kustomization", name: "apps" }] });
    const closed = await waitFor(
      "edge-berlin's pushed status to show apps closed",
      async () => (await status("edge-berlin")).targets.find((x) => x.name === "apps" && x.state === "closed" && x.lastReason === "WindowClosed"),
      { timeoutMs: 30_000 },
    );
    const seconds = (Date.now() - created) / 1000;
    t.diagnostic(`window created to WindowClosed in fluxgate serve's status: ${seconds.toFixed(1)} s`);
    assert.ok(seconds < 15, `took ${seconds.toFixed(1)} s`);
    assert.equal(closed.windows, "changes");
    assert.equal(closed.nextChange, `${new Date().getUTCFullYear() + 1}-01-01T00:00:00Z`);
    assert.equal((await status("edge-berlin")).reporting, "reporting");
    // Beside the decision, what the target does: suspended by fluxgate's write, so held, as decided.
    assert.deepEqual([closed.suspended, closed.holding, closed.diverged], [true, true, false]);
    assert.equal(closed.lastTransition, `${new Date().getUTCFullYear()}-01-01T00:01:00Z`);

    // Heartbeats: the same picture again, every 10 s, with no transition.
    const beat = await waitFor(
      "a Heartbeat of apps",
      async () => (await status("edge-berlin")).targets.find((x) => x.name === "apps" && x.lastReason === "Heartbeat"),
      { timeoutMs: 40_000 },
    );
    assert.equal(beat.state, "closed", "a heartbeat carries the whole picture");
    assert.ok(Date.parse(beat.lastEventAt) > Date.parse(closed.lastEventAt));

    // A parent sets spec.suspend back to false: the fleet view says the closed target is not held.
    await objects.patch(
      {
        apiVersion: "kustomize.toolkit.fluxcd.io/v1",
        kind: "Kustomization",
        metadata: { name: "apps", namespace },
        spec: { suspend: false },
      } as KubernetesObject,
      undefined,
      undefined,
      "e2e-parent",
      true,
      PatchStrategy.ServerSideApply,
    );
    const reverted = await waitFor(
      "edge-berlin's pushed status to show the reverted suspend",
      async () => (await status("edge-berlin")).targets.find((x) => x.name === "apps" && x.lastReason === "SuspendReverted"),
      { timeoutMs: 30_000 },
    );
    assert.deepEqual([reverted.state, reverted.suspended, reverted.holding, reverted.diverged], ["closed", false, false, true]);
    const fleet = (await (await fetch(`${service.url}/api/v1/fleet/status`)).json()) as { clusters: Array<{ cluster: string; diverged: number }> };
    assert.equal(fleet.clusters.find((c) => c.cluster === "edge-berlin")?.diverged, 1);
    // fluxgate set it back; the next heartbeat says so, and the target is held again.
    const healed = await waitFor(
      "a heartbeat showing apps suspended again",
      async () => (await status("edge-berlin")).targets.find((x) => x.name === "apps" && x.lastReason === "Heartbeat" && x.suspended === true),
      { timeoutMs: 40_000 },
    );
    assert.deepEqual([healed.state, healed.holding, healed.diverged], ["closed", true, false]);

    // The Provider with the wrong key was refused every time: nothing of edge-tokyo is stored.
    await waitFor(
      "notification-controller's posts as edge-tokyo to be refused",
      async () => {
        const metrics = await (await fetch(`${service.url}/metrics`)).text();
        return /fluxgate_serve_auth_failures_total\{status="401"\} [1-9]/.test(metrics) ? true : undefined;
      },
      { timeoutMs: 30_000 },
    );
    assert.equal((await status("edge-tokyo")).reporting, "never");
    assert.equal((await status("edge-tokyo")).targets.length, 0);
    const events = await core.listNamespacedEvent({ namespace });
    assert.ok(
      events.items.some((e) => e.reason === "WindowClosed"),
      "the controller recorded the transition in Kubernetes too",
    );
  } finally {
    await controller.stop();
  }
});
