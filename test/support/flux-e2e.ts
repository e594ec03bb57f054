// What the end-to-end tests with notification-controller share: a namespace whose Kustomizations apply a Git repository, a receiver standing in for Slack or
// Teams, fluxgate serve receiving a cluster's pushed status, and a fluxgate controller that sends its events to notification-controller.

import { CoreV1Api, CustomObjectsApi, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from "@kubernetes/client-node";
import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { repoRoot } from "../../src/devenv/paths.ts";
import { pushManifestFile } from "../../src/gitops/push-manifests.ts";
import { startService, type RunningService } from "../../src/server/server.ts";
import { addClusterKey } from "../../src/server/status/keys.ts";
import { createRepository, freshNamespace, installFluxgate, pushCommit, waitFor, type ControlPlane } from "../harness/index.ts";
import { anonymousServiceOptions, tempDir, writeFleet } from "./server.ts";

/** Short intervals keep the tests quick; Flux reacts to a new artifact without waiting for them anyway. */
export const INTERVAL = "2s";
export const NOTIFICATION = "notification.toolkit.fluxcd.io/v1beta3";

/** A ConfigMap manifest, the content each commit changes. */
export function configMapFile(name: string, value: string): string {
  return ["apiVersion: v1", "kind: ConfigMap", "metadata:", `  name: ${name}`, "data:", `  value: "${value}"`, ""].join("\n");
}

/** A namespace with a GitRepository `fleet` and Kustomizations applying its folders, each having applied the first commit. */
export interface FluxApps {
  readonly namespace: string;
  readonly repoUrl: string;
  /** The first commit, applied by every Kustomization. */
  readonly first: string;
  readonly objects: KubernetesObjectApi;
  readonly custom: CustomObjectsApi;
  readonly core: CoreV1Api;
  /** Server-side apply into the namespace, as manager "e2e". */
  apply(body: KubernetesObject): Promise<void>;
  /** A Flux object's status in the namespace. */
  status(plural: string, group: string, name: string): Promise<Record<string, unknown> | undefined>;
  /** The revision a Kustomization last applied. */
  appliedRevision(name: string): Promise<string | undefined>;
  /** Creates a ReconciliationWindow in the namespace. */
  createWindow(name: string, spec: object): Promise<void>;
}

/**
 * Starts apps in a fresh namespace: `files` as the first commit of a new repository and one Kustomization per entry of `paths`
 * (name → folder; labelled team=name), each waited on until it has applied the first commit.
 */
export async function startFluxApps(cp: ControlPlane, prefix: string, files: Record<string, string>, paths: Record<string, string>): Promise<FluxApps> {
  const namespace = await freshNamespace(cp, prefix);
  const repoUrl = await createRepository(cp, `${prefix}-${namespace}`);
  const first = await pushCommit(repoUrl, files, "first");
  const objects = cp.kubeConfig.makeApiClient(KubernetesObjectApi);
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const apply = async (body: KubernetesObject): Promise<void> => {
    await objects.patch({ ...body, metadata: { ...body.metadata, namespace } }, undefined, undefined, "e2e", true, PatchStrategy.ServerSideApply);
  };
  const status = async (plural: string, group: string, name: string): Promise<Record<string, unknown> | undefined> =>
    ((await custom.getNamespacedCustomObject({ group, version: "v1", plural, namespace, name })) as { status?: Record<string, unknown> }).status;
  const appliedRevision = async (name: string): Promise<string | undefined> => {
    const revision = (await status("kustomizations", "kustomize.toolkit.fluxcd.io", name))?.["lastAppliedRevision"];
    return typeof revision === "string" ? revision : undefined;
  };
  await apply({
    apiVersion: "source.toolkit.fluxcd.io/v1",
    kind: "GitRepository",
    metadata: { name: "fleet" },
    spec: { url: repoUrl, interval: INTERVAL, ref: { branch: "main" } },
  } as KubernetesObject);
  for (const [name, path] of Object.entries(paths))
    await apply({
      apiVersion: "kustomize.toolkit.fluxcd.io/v1",
      kind: "Kustomization",
      metadata: { name, labels: { team: name } },
      spec: { interval: INTERVAL, retryInterval: INTERVAL, path, prune: true, targetNamespace: namespace, sourceRef: { kind: "GitRepository", name: "fleet" } },
    } as KubernetesObject);
  for (const name of Object.keys(paths))
    await waitFor(`${name} to apply the first commit`, async () => ((await appliedRevision(name)) === `main@sha1:${first}` ? true : undefined), {
      timeoutMs: 90_000,
    });
  const createWindow = async (name: string, spec: object): Promise<void> => {
    await custom.createNamespacedCustomObject({
      group: "fluxgate.io",
      version: "v1alpha1",
      plural: "reconciliationwindows",
      namespace,
      body: { apiVersion: "fluxgate.io/v1alpha1", kind: "ReconciliationWindow", metadata: { name }, spec },
    });
  };
  return { namespace, repoUrl, first, objects, custom, core, apply, status, appliedRevision, createWindow };
}

/** A local HTTP endpoint standing in for Slack or Teams: records what `read` makes of each request it is sent. */
export async function startReceiver<T>(read: (req: IncomingMessage, body: string) => T): Promise<{ url: string; received: T[]; close: () => void }> {
  const received: T[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (c: string) => (body += c));
    req.on("end", () => {
      received.push(read(req, body));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, close: () => server.close() };
}

/** A Provider and an Alert of the same name: the Alert sends events of `sources` to the Provider. */
export async function alert(apps: FluxApps, name: string, provider: object, sources: object[]): Promise<void> {
  await apps.apply({ apiVersion: NOTIFICATION, kind: "Provider", metadata: { name }, spec: provider } as KubernetesObject);
  await apps.apply({
    apiVersion: NOTIFICATION,
    kind: "Alert",
    metadata: { name },
    spec: { providerRef: { name }, eventSeverity: "info", eventSources: sources },
  } as KubernetesObject);
}

/** fluxgate serve on the example fleet, taking pushed status from `clusters` (a key each, status in SQLite); closed after the test. */
export async function startPushService(
  t: { after: (fn: () => unknown) => void },
  prefix: string,
  clusters: readonly string[],
  log: (fields: Record<string, unknown>) => void = () => undefined,
): Promise<{ service: RunningService; keys: Map<string, string> }> {
  const { dir, cleanup } = await tempDir(prefix);
  t.after(cleanup);
  const repo = join(dir, "fleet");
  await mkdir(repo);
  await writeFleet(repo);
  const keysFile = join(dir, "cluster-keys.yaml");
  const keys = new Map<string, string>();
  for (const cluster of clusters) keys.set(cluster, await addClusterKey(keysFile, { cluster, now: Date.now() }));
  // The real clock: the controllers' events carry theirs.
  const service = await startService(
    anonymousServiceOptions(repo, { now: Date.now, log, push: { keysFile, store: join(dir, "status.db"), staleAfterMs: 60_000 } }),
  );
  t.after(() => service.close());
  return { service, keys };
}

/** The cluster's side of pushed status: the Secret with its key and the file `fluxgate init --status-url` writes. */
export async function pushStatusTo(apps: FluxApps, cluster: string, key: string, serviceUrl: string): Promise<void> {
  await apps.apply({ apiVersion: "v1", kind: "Secret", metadata: { name: "fluxgate-status" }, stringData: { token: key } } as KubernetesObject);
  for (const doc of parseAllDocuments(pushManifestFile(cluster, serviceUrl, apps.namespace))) await apps.apply(doc.toJS() as KubernetesObject);
}

/** `fluxgate controller` on the namespace's Kustomizations, sending its events to notification-controller; `stop` ends it. */
export async function startEventsController(cp: ControlPlane, namespace: string, extraArgs: readonly string[] = []): Promise<{ stop: () => Promise<void> }> {
  if (cp.eventsUrl === undefined) throw new Error("the control plane runs no notification-controller: start it with sharedControlPlane({ flux: true })");
  const identity = await installFluxgate(cp);
  const controller = spawn(
    process.execPath,
    [
      join(repoRoot, "src", "cli", "main.ts"),
      "controller",
      ...["--kubeconfig", identity.kubeconfigPath, "--namespace", namespace, "--target-kinds", "Kustomization"],
      ...["--metrics-addr", "127.0.0.1:0", "--health-addr", "127.0.0.1:0", "--log-level", "error"],
      ...["--events-address", cp.eventsUrl, ...extraArgs],
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  const exited = new Promise<void>((resolve) => controller.once("exit", () => resolve()));
  return {
    stop: async () => {
      controller.kill("SIGTERM");
      await exited;
    },
  };
}
