// Notice before a change, end to end: WindowOpensSoon, with the revision that will go out, reaches a Slack-like webhook and fluxgate serve's pushed status
// through the real notification-controller.

import { CustomObjectsApi, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from "@kubernetes/client-node";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { parseAllDocuments } from "yaml";
import { repoRoot } from "../../src/devenv/paths.ts";
import { pushManifestFile } from "../../src/gitops/push-manifests.ts";
import { startService } from "../../src/server/server.ts";
import { addClusterKey } from "../../src/server/status/keys.ts";
import { createRepository, freshNamespace, installFluxgate, pushCommit, sharedControlPlane, waitFor } from "../harness/index.ts";
import { tempDir, writeFleet } from "../support/server.ts";

const plane = sharedControlPlane({ flux: true });
const INTERVAL = "2s";
/** The window opens this long after the test creates it; it announces NOTICE before. */
const OPENS_IN_MS = 60_000;
const NOTICE = "30s";
const NOTICE_MS = 30_000;

/** What a Provider of type generic posts: Flux's event, its metadata without the API group. */
interface Notification {
  involvedObject: { kind?: string; namespace?: string; name?: string };
  severity: string;
  timestamp: string;
  message: string;
  reason: string;
  metadata?: Record<string, string>;
  receivedAt: number;
}

/** A local HTTP endpoint standing in for Slack or Teams. */
async function startReceiver(): Promise<{ url: string; received: Notification[]; close: () => void }> {
  const received: Notification[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (c: string) => (body += c));
    req.on("end", () => {
      received.push({ ...(JSON.parse(body) as Omit<Notification, "receivedAt">), receivedAt: Date.now() });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, close: () => server.close() };
}

function configMap(value: string): Record<string, string> {
  return { "deploy/apps/configmap.yaml": ["apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: apps", "data:", `  value: "${value}"`, ""].join("\n") };
}

/** A local date-time in UTC with seconds, as a freeze's from/to take it. */
function local(t: number): string {
  return new Date(t).toISOString().slice(0, 19);
}

interface PushedView {
  targets: Array<{ name: string; upcoming: { transition: string; at: string; window: string | null; message: string } | null }>;
  upcoming: Array<{ window: string | null; transition: string; at: string; targets: number }>;
}

test("WindowOpensSoon goes out at its notice's moment through notification-controller, naming the revision that will go out, and lands in the pushed status", async (t) => {
  const cp = plane();
  assert.ok(cp.eventsUrl !== undefined, "the control plane runs notification-controller");
  const namespace = await freshNamespace(cp, "notice");
  const repoUrl = await createRepository(cp, `notice-${namespace}`);
  const first = await pushCommit(repoUrl, configMap("1"), "first");
  const objects = cp.kubeConfig.makeApiClient(KubernetesObjectApi);
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const apply = async (body: KubernetesObject): Promise<void> => {
    await objects.patch({ ...body, metadata: { ...body.metadata, namespace } }, undefined, undefined, "e2e", true, PatchStrategy.ServerSideApply);
  };
  const read = async (plural: string, group: string, name: string): Promise<{ status?: Record<string, unknown> }> =>
    (await custom.getNamespacedCustomObject({ group, version: "v1", plural, namespace, name })) as { status?: Record<string, unknown> };

  // The Config Service receiving edge-berlin's pushed events (generic-hmac), as in a fleet.
  const { dir, cleanup } = await tempDir("notice-e2e");
  t.after(cleanup);
  const repo = join(dir, "fleet");
  await mkdir(repo);
  await writeFleet(repo);
  const keysFile = join(dir, "cluster-keys.yaml");
  const key = await addClusterKey(keysFile, { cluster: "edge-berlin", now: Date.now() });
  const service = await startService({
    repo,
    host: "127.0.0.1",
    port: 0,
    tokensFile: null,
    anonymousRead: true,
    live: null,
    syncIntervalMs: 0,
    version: "0.0.0-test",
    log: () => undefined,
    push: { keysFile, store: join(dir, "status.db"), staleAfterMs: 60_000 },
  });
  t.after(() => service.close());
  await apply({ apiVersion: "v1", kind: "Secret", metadata: { name: "fluxgate-status" }, stringData: { token: key } } as KubernetesObject);
  for (const doc of parseAllDocuments(pushManifestFile("edge-berlin", service.url, namespace))) await apply(doc.toJS() as KubernetesObject);

  // The team's chat: a generic Provider and an Alert on the apps Kustomization, as for Slack or Teams.
  const receiver = await startReceiver();
  t.after(receiver.close);
  const NOTIFICATION = "notification.toolkit.fluxcd.io/v1beta3";
  await apply({ apiVersion: NOTIFICATION, kind: "Provider", metadata: { name: "chat" }, spec: { type: "generic", address: receiver.url } } as KubernetesObject);
  await apply({
    apiVersion: NOTIFICATION,
    kind: "Alert",
    metadata: { name: "chat" },
    spec: { providerRef: { name: "chat" }, eventSeverity: "info", eventSources: [{ kind: "Kustomization", name: "apps" }] },
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
      (await read("kustomizations", "kustomize.toolkit.fluxcd.io", "apps")).status?.["lastAppliedRevision"] === `main@sha1:${first}` ? true : undefined,
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
      ...["--events-address", cp.eventsUrl],
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  const exited = new Promise<void>((resolve) => controller.once("exit", () => resolve()));
  try {
    // Open around the clock but for a freeze that ends a minute from now (whole seconds): the window opens then, announced 30 s before.
    const opensAt = Math.ceil((Date.now() + OPENS_IN_MS) / 1000) * 1000;
    const noticeAt = opensAt - NOTICE_MS;
    const opensAtText = new Date(opensAt).toISOString().replace(".000Z", "Z");
    await custom.createNamespacedCustomObject({
      group: "fluxgate.io",
      version: "v1alpha1",
      plural: "reconciliationwindows",
      namespace,
      body: {
        apiVersion: "fluxgate.io/v1alpha1",
        kind: "ReconciliationWindow",
        metadata: { name: "changes" },
        spec: {
          schedules: [{ start: "0 0 * * *", duration: "24h" }],
          freezes: [{ from: local(opensAt - 3_600_000), to: local(opensAt), reason: "e2e freeze" }],
          notice: NOTICE,
          targets: [{ kind: "Kustomization", name: "apps" }],
        },
      },
    });
    // Frozen: apps is suspended; a commit arrives and waits.
    await waitFor("WindowClosed for apps at the chat", async () => Promise.resolve(receiver.received.find((n) => n.reason === "WindowClosed")), {
      timeoutMs: 20_000,
    });
    const second = await pushCommit(repoUrl, configMap("2"), "second");
    await waitFor(
      "the GitRepository to offer the second commit",
      async () =>
        ((await read("gitrepositories", "source.toolkit.fluxcd.io", "fleet")).status?.["artifact"] as { revision?: string } | undefined)?.revision ===
        `main@sha1:${second}`
          ? true
          : undefined,
      { timeoutMs: 30_000 },
    );
    assert.ok(Date.now() < noticeAt, "the second commit arrived before the notice's moment (the machine was too slow for this test's timing)");
    assert.deepEqual(
      receiver.received.filter((n) => n.reason === "WindowOpensSoon"),
      [],
      "nothing announced before the notice's moment",
    );

    const soon = await waitFor("WindowOpensSoon at the chat", async () => Promise.resolve(receiver.received.find((n) => n.reason === "WindowOpensSoon")), {
      timeoutMs: OPENS_IN_MS + 10_000,
    });
    t.diagnostic(`WindowOpensSoon received ${((soon.receivedAt - noticeAt) / 1000).toFixed(1)} s after the notice's moment`);
    assert.ok(soon.receivedAt >= noticeAt, "not before the notice's moment");
    assert.ok(soon.receivedAt < opensAt, "before the window opens");
    assert.equal(soon.severity, "info");
    assert.deepEqual(soon.involvedObject.name, "apps");
    assert.match(soon.message, /^Window changes opens \w{3} \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(in (under a minute|30s)\): /);
    assert.ok(soon.message.endsWith(`: ${namespace}/apps: main@sha1:${second}`), soon.message);
    assert.equal(soon.metadata?.["upcoming"], "Open");
    assert.equal(soon.metadata?.["upcomingAt"], opensAtText);
    assert.equal(soon.metadata?.["upcomingWindow"], "changes");
    assert.equal(soon.metadata?.["pendingRevision"], `main@sha1:${second}`);

    // The Config Service keeps it per target and per window until the window opens.
    const pushed = await waitFor(
      "the notice in edge-berlin's pushed status",
      async () => {
        const r = (await (await fetch(`${service.url}/api/v1/clusters/edge-berlin/status`)).json()) as { pushed: PushedView };
        return r.pushed.upcoming.length > 0 ? r.pushed : undefined;
      },
      { timeoutMs: 20_000 },
    );
    assert.deepEqual(pushed.upcoming, [{ window: "changes", transition: "Open", at: opensAtText, targets: 1 }]);
    assert.deepEqual(pushed.targets.find((x) => x.name === "apps")?.upcoming, {
      transition: "Open",
      at: opensAtText,
      window: "changes",
      message: soon.message,
    });
    const fleet = (await (await fetch(`${service.url}/api/v1/fleet/status`)).json()) as { clusters: Array<{ cluster: string; upcoming: unknown }> };
    assert.deepEqual(fleet.clusters.find((c) => c.cluster === "edge-berlin")?.upcoming, [
      { window: "changes", transition: "Open", at: opensAtText, targets: 1 },
    ]);

    // The window opens; the revision announced goes out; the notice was sent once.
    await waitFor("WindowOpened at the chat", async () => Promise.resolve(receiver.received.find((n) => n.reason === "WindowOpened")), {
      timeoutMs: NOTICE_MS + 20_000,
    });
    await waitFor("ChangesApplied of the second commit", () =>
      Promise.resolve(receiver.received.find((n) => n.reason === "ChangesApplied" && n.metadata?.["revision"] === `main@sha1:${second}`)),
    );
    assert.equal(receiver.received.filter((n) => n.reason === "WindowOpensSoon").length, 1);
    const after = (await (await fetch(`${service.url}/api/v1/clusters/edge-berlin/status`)).json()) as { pushed: PushedView };
    assert.deepEqual(after.pushed.upcoming, [], "once the window has opened, the notice is history");
  } finally {
    controller.kill("SIGTERM");
    await exited;
  }
});
