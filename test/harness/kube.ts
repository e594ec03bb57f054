// Test helpers over a running control plane: a fresh namespace per test, least-privilege kubeconfigs, polling.
import { ApiException, CoreV1Api, RbacAuthorizationV1Api } from "@kubernetes/client-node";
import type { KubeConfig, V1PolicyRule } from "@kubernetes/client-node";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { ControlPlane } from "../../src/devenv/control-plane.ts";
import { HarnessError, WaitTimeoutError } from "../../src/devenv/errors.ts";
import { tokenKubeConfig, writeKubeConfig } from "../../src/devenv/kubeconfig.ts";

/**
 * Creates a namespace with a unique name (`<prefix>-<random>`) and returns the name. There is no
 * namespace controller, so namespaces are not deleted: they go away with the control plane.
 */
export async function freshNamespace(cp: Pick<ControlPlane, "kubeConfig">, prefix = "test"): Promise<string> {
  const name = `${prefix}-${randomBytes(4).toString("hex")}`;
  await cp.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
  return name;
}

export interface ServiceAccountAccessOptions {
  readonly namespace: string;
  readonly name: string;
  /** Rules of a Role in `namespace` bound to the ServiceAccount; nothing else is granted. */
  readonly rules?: readonly V1PolicyRule[];
  /** Token lifetime (the API server's minimum is 600 s). */
  readonly expirationSeconds?: number;
}

export interface ServiceAccountAccess {
  readonly kubeconfigPath: string;
  readonly kubeConfig: KubeConfig;
  /** The authenticated username: system:serviceaccount:<namespace>:<name>. */
  readonly username: string;
}

/**
 * Creates a ServiceAccount (and a Role + RoleBinding when `rules` are given), gets a token for it from
 * the TokenRequest API and writes a kubeconfig using that token to `<dir>/kubeconfigs/`.
 *
 * @example
 * const sa = await serviceAccountKubeconfig(cp, { namespace, name: "reader", rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }] });
 */
export async function serviceAccountKubeconfig(
  cp: Pick<ControlPlane, "kubeConfig" | "server" | "dir">,
  options: ServiceAccountAccessOptions,
): Promise<ServiceAccountAccess> {
  const { namespace, name } = options;
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  if (options.rules !== undefined) {
    const rbac = cp.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules: [...options.rules] } });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
        subjects: [{ kind: "ServiceAccount", name, namespace }],
      },
    });
  }
  return serviceAccountToken(cp, options);
}

/**
 * Gets a token for the existing ServiceAccount `namespace/name` from the TokenRequest API and writes a
 * kubeconfig using it to `<dir>/kubeconfigs/`. Grants nothing: the account has what RBAC gives it.
 */
export async function serviceAccountToken(
  cp: Pick<ControlPlane, "kubeConfig" | "server" | "dir">,
  options: Omit<ServiceAccountAccessOptions, "rules">,
): Promise<ServiceAccountAccess> {
  const { namespace, name } = options;
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const request = await core.createNamespacedServiceAccountToken({
    name,
    namespace,
    body: { spec: { audiences: [], expirationSeconds: options.expirationSeconds ?? 3600 } },
  });
  const token = request.status?.token;
  if (token === undefined || token === "") {
    throw new HarnessError("NoToken", `the TokenRequest for ${namespace}/${name} returned no token`);
  }
  const caData = cp.kubeConfig.getCurrentCluster()?.caData;
  if (caData === undefined) throw new HarnessError("NoCa", "the admin kubeconfig has no certificate-authority-data");
  const username = `system:serviceaccount:${namespace}:${name}`;
  const kubeConfig = tokenKubeConfig(cp.server, caData, username, token);
  const kubeconfigPath = join(cp.dir, "kubeconfigs", `${namespace}-${name}.yaml`);
  await writeKubeConfig(kubeconfigPath, kubeConfig);
  return { kubeconfigPath, kubeConfig, username };
}

export interface WaitOptions {
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
}

/**
 * Polls `probe` until it returns a value other than undefined and returns that value; throws a
 * WaitTimeoutError naming `what` (and the last error, if the probe threw) after the timeout.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: WaitOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? `; last error: ${lastError.message}` : "";
      throw new WaitTimeoutError(`timed out after ${timeoutMs / 1000}s waiting for ${what}${detail}`, { cause: lastError });
    }
    await sleep(options.intervalMs ?? 250);
  }
}

/** The HTTP status of a client call: 200 when it succeeded, the API server's code when it failed. */
export async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (err) {
    if (err instanceof ApiException) return (err as ApiException<unknown>).code;
    throw err;
  }
  return 200;
}
