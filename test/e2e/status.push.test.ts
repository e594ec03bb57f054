// Fleet status by push, end to end: the controller's events go through the real notification-controller and a generic-hmac Provider to fluxgate serve, with no
// kubeconfig of the cluster.

import { CoreV1Api, CustomObjectsApi, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from "@kubernetes/client-node";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "../../src/devenv/paths.ts";
import { addClusterKey } from "../../src/server/status/keys.ts";
import { pushManifestFile } from "../../src/gitops/push-manifests.ts";
import { startService } from "../../src/server/server.ts";
import { parseAllDocuments } from "yaml";
import { createRepository, freshNamespace, installFluxgate, pushCommit, sharedControlPlane, waitFor } from "../harness/index.ts";
import { tempDir, writeFleet } from "../support/server.ts";

const plane = sharedControlPlane({ flux: true });
const INTERVAL = "2s";

function configMap(value: string): Record<string, string> {
  return { "deploy/apps/configmap.yaml": ["apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: apps", "data:", `  value: "${value}"`, ""].join("\n") };
}

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
  const namespace = await freshNamespace(cp, "push");
  const repoUrl = await createRepository(cp, `push-${namespace}`);
  const first = await pushCommit(repoUrl, configMap("1"), "first");
  const objects = cp.kubeConfig.makeApiClient(KubernetesObjectApi);
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const apply = async (body: KubernetesObject): Promise<void> => {
    await objects.patch({ ...body, metadata: { ...body.metadata, namespace } }, undefined, undefined, "e2e", true, PatchStrategy.ServerSideApply);
  };

  // The Config Service: the example fleet, a key for edge-berlin and one for edge-tokyo, status in SQLite.
  const { dir, cleanup } = await tempDir("push-e2e");
  t.after(cleanup);
  const repo = join(dir, "fleet");
  await mkdir(repo);
  await writeFleet(repo);
  const keysFile = join(dir, "cluster-keys.yaml");
  const key = await addClusterKey(keysFile, { cluster: "edge-berlin", now: Date.now() });
  await addClusterKey(keysFile, { cluster: "edge-tokyo", now: Date.now() });
  const logged: Array<Record<string, unknown>> = [];
  const service = await startService({
    repo,
    host: "127.0.0.1",
    port: 0,
    tokensFile: null,
    anonymousRead: true,
    live: null,
    syncIntervalMs: 0,
    version: "0.0.0-test",
    log: (fields) => logged.push(fields),
    push: { keysFile, store: join(dir, "status.db"), staleAfterMs: 60_000 },
  });
  t.after(() => service.close());
  const status = async (cluster: string): Promise<{ reporting: string; lastHeard: string | null; targets: PushedTarget[] }> => {
    const r = await fetch(`${service.url}/api/v1/clusters/${cluster}/status`);
    assert.equal(r.status, 200);
    return ((await r.json()) as { pushed: { reporting: string; lastHeard: string | null; targets: PushedTarget[] } }).pushed;
  };

  // The cluster's side: the file "fluxgate init --status-url" writes to commit, and the Secret its comment says to create.
  await apply({ apiVersion: "v1", kind: "Secret", metadata: { name: "fluxgate-status" }, stringData: { token: key } } as KubernetesObject);
  for (const doc of parseAllDocuments(pushManifestFile("edge-berlin", service.url, namespace))) await apply(doc.toJS() as KubernetesObject);
  // A second Provider that posts as edge-tokyo with a key that is not edge-tokyo's.
  await apply({ apiVersion: "v1", kind: "Secret", metadata: { name: "wrong-key" }, stringData: { token: "fgk_not-edge-tokyos-key" } } as KubernetesObject);
  const NOTIFICATION = "notification.toolkit.fluxcd.io/v1beta3";
  await apply({
    apiVersion: NOTIFICATION,
    kind: "Provider",
    metadata: { name: "wrong-key" },
    spec: { type: "generic-hmac", address: `${service.url}/api/v1/clusters/edge-tokyo/events`, secretRef: { name: "wrong-key" } },
  } as KubernetesObject);
  await apply({
    apiVersion: NOTIFICATION,
    kind: "Alert",
    metadata: { name: "wrong-key" },
    spec: { providerRef: { name: "wrong-key" }, eventSeverity: "info", eventSources: [{ kind: "Kustomization", name: "*" }] },
  } as KubernetesObject);

  await apply({
    apiVersion: "source.toolkit.fluxcd.io/v1",
    kind: "GitRepository",
    metadata: { name: "fleet" },
    spec: { url: repoUrl, interval: INTERVAL, ref: { branch: "main" } },
  } as KubernetesObject);
  await apply({
    apiVersion: "kustomize.toolkit.fluxcd.io/v1",
    kind: "Kustomization",
    metadata: { name: "apps" },
    spec: {
      interval: INTERVAL,
      retryInterval: INTERVAL,
      path: "./deploy/apps",
      prune: true,
      targetNamespace: namespace,
      sourceRef: { kind: "GitRepository", name: "fleet" },
    },
  } as KubernetesObject);
  await waitFor(
    "apps to apply the first commit",
    async () =>
      (
        (await custom.getNamespacedCustomObject({
          group: "kustomize.toolkit.fluxcd.io",
          version: "v1",
          plural: "kustomizations",
          namespace,
          name: "apps",
        })) as { status?: { lastAppliedRevision?: string } }
      ).status?.lastAppliedRevision === `main@sha1:${first}`
        ? true
        : undefined,
    { timeoutMs: 90_000 },
  );

  const identity = await installFluxgate(cp);
  const controller = spawn(
    process.execPath,
    [
      join(repoRoot, "src", "cli", "main.ts"),
      "controller",
      ...["--kubeconfig", identity.kubeconfigPath, "--namespace", namespace, "--target-kinds", "Kustomization"],
      ...["--metrics-addr", "127.0.0.1:0", "--health-addr", "127.0.0.1:0", "--log-level", "error"],
      ...["--events-address", cp.eventsUrl, "--heartbeat-interval", "10s"],
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  const exited = new Promise<void>((resolve) => controller.once("exit", () => resolve()));
  try {
    // A window closed all year: fluxgate suspends apps and announces WindowClosed.
    const created = Date.now();
    await custom.createNamespacedCustomObject({
      group: "fluxgate.io",
      version: "v1alpha1",
      plural: "reconciliationwindows",
      namespace,
      body: {
        apiVersion: "fluxgate.io/v1alpha1",
        kind: "ReconciliationWindow",
        metadata: { name: "changes" },
        spec: { schedules: [{ start: "0 0 1 1 *", duration: "1m" }], targets: [{ kind: "Kustomization", name: "apps" }] },
      },
    });
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
    controller.kill("SIGTERM");
    await exited;
  }
});
