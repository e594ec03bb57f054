// A controller identity with the least-privilege ClusterRole of config/rbac less one verb: the narrowed installs (a typo in a Helm value, a trimmed role) that
// the failure tests run against.

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { CoreV1Api, CustomObjectsApi, RbacAuthorizationV1Api, type KubernetesObject, type V1ClusterRole } from "@kubernetes/client-node";
import { parse } from "yaml";
import { fluxgateNamespace, serviceAccountToken, type ControlPlane, type ServiceAccountAccess } from "../harness/index.ts";

const repoRoot = join(import.meta.dirname, "..", "..");

/**
 * A ServiceAccount bound to a copy of config/rbac/role.yaml without `verb` on `resource` (the rule
 * keeps its other verbs), with a token kubeconfig. Waits until RBAC's authorizer has the binding.
 *
 * @example const sa = await narrowedControllerAccess(cp, "no-patch", { resource: "kustomizations", verb: "patch" });
 */
export async function narrowedControllerAccess(cp: ControlPlane, name: string, without: { resource: string; verb: string }): Promise<ServiceAccountAccess> {
  const role = parse(await readFile(join(repoRoot, "config", "rbac", "role.yaml"), "utf8")) as V1ClusterRole;
  let dropped = 0;
  const rules = (role.rules ?? []).map((r) => {
    if (!(r.resources ?? []).includes(without.resource) || !r.verbs.includes(without.verb)) return r;
    dropped++;
    return { ...r, verbs: r.verbs.filter((v) => v !== without.verb) };
  });
  if (dropped === 0) throw new Error(`config/rbac/role.yaml grants no ${without.verb} on ${without.resource}: nothing to narrow`);
  const roleName = `fluxgate-test-${name}`;
  const rbac = cp.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  await cp.kubeConfig.makeApiClient(CoreV1Api).createNamespacedServiceAccount({ namespace: fluxgateNamespace, body: { metadata: { name: roleName } } });
  await rbac.createClusterRole({ body: { metadata: { name: roleName }, rules } });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: roleName },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: roleName },
      subjects: [{ kind: "ServiceAccount", name: roleName, namespace: fluxgateNamespace }],
    },
  });
  // The authorizer reads bindings from a cache: wait until it allows what the role grants.
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const user = `system:serviceaccount:${fluxgateNamespace}:${roleName}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const review = (await custom.createClusterCustomObject({
      group: "authorization.k8s.io",
      version: "v1",
      plural: "subjectaccessreviews",
      body: {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: {
          user,
          groups: ["system:serviceaccounts", "system:authenticated"],
          resourceAttributes: { group: "fluxgate.io", resource: "reconciliationwindows", verb: "list" },
        },
      },
    })) as KubernetesObject & { status?: { allowed?: boolean } };
    if (review.status?.allowed === true) break;
    if (Date.now() > deadline) throw new Error(`RBAC still refuses ${user} 30 s after its binding was created`);
    await sleep(100);
  }
  return await serviceAccountToken(cp, { namespace: fluxgateNamespace, name: roleName, expirationSeconds: 3600 });
}
