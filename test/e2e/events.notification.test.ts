// fluxgate's events reach a Provider through the real notification-controller and an Alert on the target Kustomization.

import { CoreV1Api, CustomObjectsApi, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from "@kubernetes/client-node";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "../../src/devenv/paths.ts";
import { createRepository, freshNamespace, installFluxgate, pushCommit, sharedControlPlane, waitFor } from "../harness/index.ts";

const plane = sharedControlPlane({ flux: true });
const INTERVAL = "2s";

/** What a Provider of type generic posts: Flux's event, after notification-controller has filtered and rewritten its metadata. */
interface Notification {
  path: string;
  component: string | undefined;
  event: {
    involvedObject: { apiVersion?: string; kind?: string; namespace?: string; name?: string };
    severity: string;
    timestamp: string;
    message: string;
    reason: string;
    metadata?: Record<string, string>;
    reportingController: string;
  };
}

/** A local HTTP endpoint standing in for Slack or Teams: records every notification it is sent. */
async function startReceiver(): Promise<{ url: string; received: Notification[]; close: () => void }> {
  const received: Notification[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (c: string) => (body += c));
    req.on("end", () => {
      const headers: IncomingHttpHeaders = req.headers;
      const component = headers["gotk-component"];
      received.push({ path: req.url ?? "", component: Array.isArray(component) ? component[0] : component, event: JSON.parse(body) as Notification["event"] });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, close: () => server.close() };
}

function configMap(name: string, value: string): string {
  return ["apiVersion: v1", "kind: ConfigMap", "metadata:", `  name: ${name}`, "data:", `  value: "${value}"`, ""].join("\n");
}

function files(value: string): Record<string, string> {
  return { "deploy/apps/configmap.yaml": configMap("apps", value), "deploy/infra/configmap.yaml": configMap("infra", value) };
}

/** notification-controller's JSON log lines (it runs with --log-encoding=json). */
async function notificationLog(dir: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(join(dir, "logs", "notification-controller.log"), "utf8");
  return text
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

test("events on a governed Kustomization reach a generic Provider through notification-controller; an unselected Kustomization's do not", async () => {
  const cp = plane();
  assert.ok(cp.eventsUrl !== undefined, "the control plane runs notification-controller");
  const namespace = await freshNamespace(cp, "e2e");
  const repoUrl = await createRepository(cp, `fleet-${namespace}`);
  const first = await pushCommit(repoUrl, files("1"), "first");
  const objects = cp.kubeConfig.makeApiClient(KubernetesObjectApi);
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const apply = async (body: KubernetesObject): Promise<void> => {
    await objects.patch({ ...body, metadata: { ...body.metadata, namespace } }, undefined, undefined, "e2e", true, PatchStrategy.ServerSideApply);
  };
  const kustomization = (name: string): KubernetesObject & { spec: object } => ({
    apiVersion: "kustomize.toolkit.fluxcd.io/v1",
    kind: "Kustomization",
    metadata: { name, labels: { team: name } },
    spec: {
      interval: INTERVAL,
      retryInterval: INTERVAL,
      path: `./deploy/${name}`,
      prune: true,
      targetNamespace: namespace,
      sourceRef: { kind: "GitRepository", name: "fleet" },
    },
  });
  const applied = async (name: string): Promise<string | undefined> =>
    (
      (await custom.getNamespacedCustomObject({ group: "kustomize.toolkit.fluxcd.io", version: "v1", plural: "kustomizations", namespace, name })) as {
        status?: { lastAppliedRevision?: string };
      }
    ).status?.lastAppliedRevision;

  await apply({
    apiVersion: "source.toolkit.fluxcd.io/v1",
    kind: "GitRepository",
    metadata: { name: "fleet" },
    spec: { url: repoUrl, interval: INTERVAL, ref: { branch: "main" } },
  } as KubernetesObject);
  await apply(kustomization("apps"));
  await apply(kustomization("infra"));
  for (const name of ["apps", "infra"]) {
    await waitFor(`${name} to apply the first commit`, async () => ((await applied(name)) === `main@sha1:${first}` ? true : undefined), { timeoutMs: 90_000 });
  }

  // Two Providers on one receiver, told apart by path; two Alerts selecting the apps Kustomization,
  // by name and by label (the label needs notification-controller to look the involved object up).
  const receiver = await startReceiver();
  const NOTIFICATION = "notification.toolkit.fluxcd.io/v1beta3";
  for (const [name, path, source] of [
    ["by-name", "/by-name", { kind: "Kustomization", name: "apps" }],
    ["by-label", "/by-label", { kind: "Kustomization", name: "*", matchLabels: { team: "apps" } }],
  ] as const) {
    await apply({
      apiVersion: NOTIFICATION,
      kind: "Provider",
      metadata: { name },
      spec: { type: "generic", address: `${receiver.url}${path}` },
    } as KubernetesObject);
    await apply({
      apiVersion: NOTIFICATION,
      kind: "Alert",
      metadata: { name },
      spec: { providerRef: { name }, eventSeverity: "info", eventSources: [source] },
    } as KubernetesObject);
  }

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
    // A window closed all year governs both Kustomizations: fluxgate suspends them (WindowClosed).
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
          schedules: [{ start: "0 0 1 1 *", duration: "1m" }],
          targets: [
            { kind: "Kustomization", name: "apps" },
            { kind: "Kustomization", name: "infra" },
          ],
        },
      },
    });
    const notified = (path: string, reason: string) => (): Promise<Notification | undefined> =>
      Promise.resolve(receiver.received.find((n) => n.path === path && n.event.reason === reason && n.event.involvedObject.name === "apps"));

    const closed = await waitFor("WindowClosed for apps at the receiver", notified("/by-name", "WindowClosed"), { timeoutMs: 30_000 });
    assert.equal(closed.component, "fluxgate", "the generic Provider names the reporting controller in gotk-component");
    assert.deepEqual(
      { ...closed.event.involvedObject, uid: undefined, resourceVersion: undefined },
      { apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", namespace, name: "apps", uid: undefined, resourceVersion: undefined },
    );
    assert.equal(closed.event.severity, "info");
    assert.equal(closed.event.reportingController, "fluxgate");
    assert.match(closed.event.message, /^Suspended by window changes: Closed/);
    // Metadata arrives with the object's group prefix stripped: the target's picture, for a fleet view.
    assert.deepEqual(
      { ...closed.event.metadata, pendingRevision: undefined, pendingSince: undefined, since: undefined, gated: undefined, violation: undefined },
      {
        window: "changes",
        state: "closed",
        nextChange: `${new Date().getUTCFullYear() + 1}-01-01T00:00:00Z`,
        suspended: "true",
        pendingRevision: undefined,
        pendingSince: undefined,
        since: undefined,
        gated: undefined,
        violation: undefined,
      },
    );
    assert.match(closed.event.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // The same event fluxgate recorded in Kubernetes.
    const recorded = (await core.listNamespacedEvent({ namespace })).items.find((e) => e.reason === "WindowClosed" && e.involvedObject.name === "apps");
    assert.equal(recorded?.message, closed.event.message);
    await waitFor("WindowClosed for apps through the label selector", notified("/by-label", "WindowClosed"));

    // A commit waits; a break-glass override opens the window: WindowOpened, then Flux applies it: ChangesApplied.
    const second = await pushCommit(repoUrl, files("2"), "second");
    await custom.createNamespacedCustomObject({
      group: "fluxgate.io",
      version: "v1alpha1",
      plural: "windowoverrides",
      namespace,
      body: {
        apiVersion: "fluxgate.io/v1alpha1",
        kind: "WindowOverride",
        metadata: { name: "hotfix" },
        spec: {
          windowRef: { name: "changes" },
          action: "Open",
          until: new Date(Date.now() + 600_000).toISOString().replace(/\.\d{3}Z$/, "Z"),
          reason: "e2e hotfix",
        },
      },
    });
    const opened = await waitFor("WindowOpened for apps at the receiver", notified("/by-name", "WindowOpened"), { timeoutMs: 30_000 });
    assert.match(opened.event.message, /^Resumed by window changes: /);
    assert.equal(opened.event.severity, "info");
    const changes = await waitFor("ChangesApplied for apps at the receiver", notified("/by-name", "ChangesApplied"), { timeoutMs: 60_000 });
    assert.equal(changes.event.message, `Applied revision main@sha1:${second} (was main@sha1:${first}) under window changes`);
    assert.equal(changes.event.metadata?.revision, `main@sha1:${second}`);
    assert.equal(changes.event.metadata?.state, "open");
    assert.equal(changes.event.metadata?.pendingRevision, "", "nothing waits once it is applied");

    // infra's events were forwarded too, and notification-controller dropped them: no Alert selects infra.
    const discardedFor = async (name: string): Promise<number> =>
      (await notificationLog(cp.dir)).filter(
        (l) =>
          l.msg === "discarding event, no alerts found for the involved object" &&
          (l.eventInvolvedObject as { name?: string; namespace?: string } | undefined)?.name === name &&
          (l.eventInvolvedObject as { namespace?: string }).namespace === namespace,
      ).length;
    await waitFor(
      "notification-controller to discard infra's WindowClosed, WindowOpened and ChangesApplied",
      async () => ((await discardedFor("infra")) >= 3 ? true : undefined),
      {
        timeoutMs: 60_000,
      },
    );
    assert.equal(await discardedFor("apps"), 0);
    for (const reason of ["WindowOpened", "ChangesApplied"]) await waitFor(`${reason} for apps through the label selector`, notified("/by-label", reason));
    await waitFor("infra to apply the second commit", async () => ((await applied("infra")) === `main@sha1:${second}` ? true : undefined));
    assert.deepEqual(
      receiver.received.filter((n) => n.event.involvedObject.name !== "apps").map((n) => `${n.path} ${n.event.reason} ${n.event.involvedObject.name ?? ""}`),
      [],
      "no notification for a Kustomization no Alert selects",
    );
    assert.deepEqual(
      receiver.received.map((n) => `${n.path} ${n.event.reason}`).sort(),
      [
        "/by-label ChangesApplied",
        "/by-label WindowClosed",
        "/by-label WindowOpened",
        "/by-name ChangesApplied",
        "/by-name WindowClosed",
        "/by-name WindowOpened",
      ],
      "each of apps' events once through each Alert",
    );
  } finally {
    controller.kill("SIGTERM");
    await exited;
    receiver.close();
  }
});
