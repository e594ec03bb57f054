// ServiceAccounts of the test control plane: a token from the TokenRequest API, and a kubeconfig that authenticates with it.

import { Connection } from "../kube/connection.ts";
import type { KubeConfig, KubernetesObject, V1PolicyRule } from "../kube/types.ts";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { ControlPlane } from "./control-plane.ts";
import { HarnessError } from "./errors.ts";
import { tokenKubeConfig, writeKubeConfig } from "./kubeconfig.ts";

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
  const connection = new Connection(cp.kubeConfig);
  try {
    await connection.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
    if (options.rules === undefined) return await serviceAccountToken(cp, options);
    const rbac = connection.rbac;
    await rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules: [...options.rules] } });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
        subjects: [{ kind: "ServiceAccount", name, namespace }],
      },
    });
    await untilGranted(connection, namespace, name, options.rules);
  } finally {
    connection.close();
  }
  return serviceAccountToken(cp, options);
}

/**
 * Waits until the API server's RBAC authorizer, which reads Roles and RoleBindings from a cache,
 * allows the ServiceAccount the first verb on the first resource (and name) of each rule (a SubjectAccessReview
 * a tenth of a second apart, at most 30 s): right after the binding is created, its first request
 * may still be refused.
 */
async function untilGranted(connection: Connection, namespace: string, name: string, rules: readonly V1PolicyRule[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  const user = `system:serviceaccount:${namespace}:${name}`;
  for (const rule of rules) {
    const resource = rule.resources?.[0];
    const verb = rule.verbs[0];
    if (resource === undefined || verb === undefined) continue;
    // A rule for named objects allows only those: the review names the first.
    const named = rule.resourceNames?.[0];
    const resourceAttributes = { namespace, verb, group: rule.apiGroups?.[0] ?? "", resource, ...(named === undefined ? {} : { name: named }) };
    for (;;) {
      const review = (await connection.objects.create({
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: { user, groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`, "system:authenticated"], resourceAttributes },
      } as KubernetesObject)) as KubernetesObject & { status?: { allowed?: boolean } };
      if (review.status?.allowed === true) break;
      if (Date.now() > deadline)
        throw new HarnessError("NotGranted", `RBAC still refuses ${user} ${verb} ${resource} in ${namespace} 30 s after its RoleBinding was created`);
      await sleep(100);
    }
  }
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
  const connection = new Connection(cp.kubeConfig);
  const request = await connection.core
    .createNamespacedServiceAccountToken({ name, namespace, body: { spec: { audiences: [], expirationSeconds: options.expirationSeconds ?? 3600 } } })
    .finally(() => connection.close());
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
