// Installing fluxgate with Flux itself: the install sources in Git, what an install must have made, the controller process on the installed identity, and a
// window it enforces.

import { spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import {
  ApiextensionsV1Api,
  AppsV1Api,
  AuthorizationV1Api,
  CustomObjectsApi,
  RbacAuthorizationV1Api,
  type KubeConfig,
  type V1Deployment,
} from "@kubernetes/client-node";
import assert from "node:assert/strict";
import type { ControlPlane } from "../harness/index.ts";
import { controllerServiceAccount, createRepository, fluxgateNamespace, fluxNamespace, pushCommit, serviceAccountToken, waitFor } from "../harness/index.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const cliMain = join(root, "src", "cli", "main.ts");

export const KUSTOMIZATIONS = { group: "kustomize.toolkit.fluxcd.io", version: "v1", plural: "kustomizations" };
export const HELMRELEASES = { group: "helm.toolkit.fluxcd.io", version: "v2", plural: "helmreleases" };
export const GITREPOSITORIES = { group: "source.toolkit.fluxcd.io", version: "v1", plural: "gitrepositories" };
export const WINDOWS = { group: "fluxgate.io", version: "v1alpha1", plural: "reconciliationwindows" };
export const CRD_NAMES = ["reconciliationwindows.fluxgate.io", "windowoverrides.fluxgate.io"];

/** A Flux object as far as these tests read it. */
export interface FluxObject {
  metadata?: { name?: string; deletionTimestamp?: unknown; finalizers?: string[] };
  spec?: { suspend?: boolean };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(join(root, dir), { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(root, join(e.parentPath, e.name)));
}

/**
 * Creates a repository on the control plane's Git server holding this working tree's `config/` and
 * `charts/` (what a user's Flux pulls fluxgate from), and returns its URL.
 */
export async function pushInstallSources(cp: ControlPlane, name: string): Promise<string> {
  const repoUrl = await createRepository(cp, name);
  const files: Record<string, string> = {};
  for (const dir of ["config", "charts"]) for (const f of await filesUnder(dir)) files[f] = await readFile(join(root, f), "utf8");
  await pushCommit(repoUrl, files, "fluxgate install sources");
  return repoUrl;
}

/** Creates a GitRepository `name` in flux-system that follows the main branch of `url`. */
export async function createGitRepository(cp: ControlPlane, name: string, url: string, interval: string): Promise<void> {
  await cp.kubeConfig.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    ...GITREPOSITORIES,
    namespace: fluxNamespace,
    body: { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", metadata: { name }, spec: { url, interval, ref: { branch: "main" } } },
  });
}

/** True once the Flux object is Ready=True; before, throws its conditions, which a timed-out waitFor reports. */
export function readyTrue(obj: FluxObject): true {
  const ready = obj.status?.conditions?.find((c) => c.type === "Ready");
  if (ready?.status === "True") return true;
  throw new Error(`not Ready yet: ${JSON.stringify(obj.status?.conditions ?? [])}`);
}

/** Waits until both fluxgate CRDs are Established (usable). */
export async function waitForCrds(kc: KubeConfig): Promise<void> {
  const api = kc.makeApiClient(ApiextensionsV1Api);
  for (const name of CRD_NAMES) {
    await waitFor(`CRD ${name} to be Established`, async () => {
      const crd = await api.readCustomResourceDefinition({ name });
      return crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") === true ? true : undefined;
    });
  }
}

/**
 * Checks what an install must have made, as far as a control plane without nodes allows: the
 * Deployment, the controller's ServiceAccount and RBAC (asked of the API server as that account)
 * and the CRDs Established. Returns the Deployment.
 */
export async function assertInstalled(cp: ControlPlane): Promise<V1Deployment> {
  await waitForCrds(cp.kubeConfig);
  const deployment = await cp.kubeConfig.makeApiClient(AppsV1Api).readNamespacedDeployment({ namespace: fluxgateNamespace, name: "fluxgate-controller" });
  assert.equal(deployment.spec?.template.spec?.serviceAccountName, controllerServiceAccount);
  const rbac = cp.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  await rbac.readClusterRole({ name: "fluxgate-controller" });
  await rbac.readClusterRoleBinding({ name: "fluxgate-controller" });
  await rbac.readNamespacedRole({ namespace: fluxgateNamespace, name: "fluxgate-leader-election" });
  const sar = cp.kubeConfig.makeApiClient(AuthorizationV1Api);
  const user = `system:serviceaccount:${fluxgateNamespace}:${controllerServiceAccount}`;
  const can = async (group: string, resource: string, verb: string, namespace?: string): Promise<boolean> =>
    (
      await sar.createSubjectAccessReview({
        body: {
          spec: { user, groups: ["system:serviceaccounts"], resourceAttributes: { group, resource, verb, ...(namespace !== undefined ? { namespace } : {}) } },
        },
      })
    ).status?.allowed === true;
  assert.ok(await can("kustomize.toolkit.fluxcd.io", "kustomizations", "patch", "anywhere"), "the installed account may patch Kustomizations");
  assert.ok(await can("coordination.k8s.io", "leases", "update", fluxgateNamespace), "the installed account may hold its Lease");
  assert.ok(!(await can("", "secrets", "get", "anywhere")), "the installed account may not read Secrets");
  return deployment;
}

/** A `fluxgate controller` process started as the installed Deployment would start it. */
export interface ControllerProcess {
  readonly logs: Record<string, unknown>[];
  /** SIGTERM, as the kubelet stops a pod, and wait for the exit. */
  stop(): Promise<void>;
}

/**
 * Runs the `fluxgate controller` process with the container arguments and environment of the
 * installed Deployment (addresses moved to free local ports), authenticated with a token of the
 * installed ServiceAccount from the TokenRequest API: RBAC as installed, nothing more. Resolves once
 * it leads (or, without --leader-elect, once it started).
 */
export async function startInstalledController(cp: ControlPlane, deployment: V1Deployment): Promise<ControllerProcess> {
  const container = deployment.spec?.template.spec?.containers.find((c) => c.name === "controller");
  const args = (container?.args ?? []).map((a) =>
    a.startsWith("--metrics-addr=") ? "--metrics-addr=127.0.0.1:0" : a.startsWith("--health-addr=") ? "--health-addr=127.0.0.1:0" : a,
  );
  assert.equal(args[0], "controller", `the Deployment runs \`fluxgate controller\`: ${JSON.stringify(container?.args)}`);
  const literalEnv = Object.fromEntries((container?.env ?? []).flatMap((v) => (v.value !== undefined ? [[v.name, v.value]] : [])));
  const identity = await serviceAccountToken(cp, { namespace: fluxgateNamespace, name: controllerServiceAccount, expirationSeconds: 3600 });
  const child = spawn(process.execPath, [cliMain, ...args, "--kubeconfig", identity.kubeconfigPath], {
    // The downward API gives the pod these; the Lease namespace comes from POD_NAMESPACE.
    env: { ...process.env, ...literalEnv, POD_NAMESPACE: fluxgateNamespace, POD_NAME: "fluxgate-controller-e2e" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const logs: Record<string, unknown>[] = [];
  let buffer = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ msg: line });
      }
    }
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const wanted = args.includes("--leader-elect") ? "Started leading" : "Started controller";
  try {
    await waitFor(
      `the controller process to log "${wanted}"`,
      () =>
        Promise.resolve(
          child.exitCode !== null || child.signalCode !== null
            ? Promise.reject(new Error(`exited ${child.exitCode ?? child.signalCode}: ${JSON.stringify(logs.slice(-5))}`))
            : logs.find((l) => l.msg === wanted),
        ),
      { timeoutMs: 30_000 },
    );
  } catch (err) {
    child.kill("SIGKILL");
    throw err;
  }
  return {
    logs,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The target and window of an enforcement check, in `namespace`. */
export interface Enforced {
  readonly namespace: string;
  readonly target: string;
  readonly window: string;
}

export async function getKustomization(kc: KubeConfig, namespace: string, name: string): Promise<FluxObject> {
  return (await kc.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({ ...KUSTOMIZATIONS, namespace, name })) as FluxObject;
}

/**
 * Creates a target Kustomization (declaring no `suspend`, as its manifest in Git would) and a
 * window that is closed all year but one minute, and waits until the controller suspended it.
 */
export async function enforceClosedWindow(kc: KubeConfig, namespace: string): Promise<Enforced> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const e: Enforced = { namespace, target: "apps-rw", window: "closed" };
  await custom.createNamespacedCustomObject({
    ...KUSTOMIZATIONS,
    namespace,
    body: {
      apiVersion: "kustomize.toolkit.fluxcd.io/v1",
      kind: "Kustomization",
      metadata: { name: e.target },
      spec: { interval: "10m", path: "./deploy", prune: true, sourceRef: { kind: "GitRepository", name: "apps" } },
    },
  });
  await custom.createNamespacedCustomObject({
    ...WINDOWS,
    namespace,
    body: {
      apiVersion: "fluxgate.io/v1alpha1",
      kind: "ReconciliationWindow",
      metadata: { name: e.window },
      spec: { schedules: [{ start: "0 0 1 1 *", duration: "1m" }], targets: [{ kind: "Kustomization", name: e.target }] },
    },
  });
  await waitFor(
    "the closed window to suspend its target",
    async () => ((await getKustomization(kc, namespace, e.target)).spec?.suspend === true ? true : undefined),
    { timeoutMs: 30_000 },
  );
  return e;
}

/** The target's spec.suspend as the API server has it: undefined when no manager sets it. */
export async function suspendOf(kc: KubeConfig, e: Enforced): Promise<boolean | undefined> {
  return (await getKustomization(kc, e.namespace, e.target)).spec?.suspend;
}

/** Deletes every window of `e.namespace` and waits until they are gone (their finalizer released the targets). */
export async function deleteWindows(kc: KubeConfig, e: Enforced): Promise<void> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  await custom.deleteNamespacedCustomObject({ ...WINDOWS, namespace: e.namespace, name: e.window });
  await waitFor(
    "the window to be gone",
    async () => {
      const list = (await custom.listNamespacedCustomObject({ ...WINDOWS, namespace: e.namespace })) as { items: unknown[] };
      return list.items.length === 0 ? true : undefined;
    },
    { timeoutMs: 30_000 },
  );
}

/** Whether reading the object answers 404. */
export async function gone(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return false;
  } catch (err) {
    if ((err as { code?: number }).code === 404) return true;
    throw err;
  }
}
