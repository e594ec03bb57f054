// Installs fluxgate from config/ into a test control plane (real kustomize, server-side apply) and hands out the controller's least-privilege identity.
import { Connection, PatchStrategy } from "../kube/connection.ts";
import { loadAllYaml, type KubeConfig, type KubernetesObject } from "../kube/types.ts";
import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import type { ControlPlane } from "./control-plane.ts";
import { harnessFieldManager, installCrds } from "./crds.ts";
import { HarnessError } from "./errors.ts";
import { serviceAccountToken, type ServiceAccountAccess } from "./service-accounts.ts";
import { repoRoot } from "./paths.ts";
import { ensureTool } from "./tools.ts";

/** Namespace and ServiceAccount of the controller, as config/rbac and config/manager declare them. */
export const fluxgateNamespace = "fluxgate-system";
export const controllerServiceAccount = "fluxgate-controller";

/** Runs the real `kustomize build` on `dir` (relative to the repository root) and returns the YAML. */
export async function kustomizeBuild(dir: string): Promise<string> {
  const kustomize = await ensureTool("kustomize");
  try {
    const { stdout } = await promisify(execFile)(kustomize.path, ["build", join(repoRoot, dir)], { maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? "";
    throw new HarnessError("KustomizeFailed", `kustomize build ${dir} failed: ${stderr.trim() || String(err)}`, { cause: err });
  }
}

/**
 * Server-side-applies every object in the multi-document `yaml` (forcing ownership, so applying twice
 * is harmless) and returns what the server stored.
 */
export async function applyManifests(kc: KubeConfig, yaml: string): Promise<KubernetesObject[]> {
  const connection = new Connection(kc);
  try {
    const applied: KubernetesObject[] = [];
    // loadAllYaml, not a plain parse: it keeps x-kubernetes-* fields, which the client would otherwise drop.
    for (const object of loadAllYaml(yaml) as (KubernetesObject | null)[]) {
      if (object === null) continue;
      applied.push(await connection.objects.patch(object, undefined, undefined, harnessFieldManager, true, PatchStrategy.ServerSideApply));
    }
    return applied;
  } finally {
    connection.close();
  }
}

/**
 * Installs fluxgate's CRDs (config/crd), the controller's namespace, ServiceAccount and RBAC
 * (config/rbac) — not the Deployment — and returns a kubeconfig that authenticates as the
 * controller's ServiceAccount, with exactly the permissions config/rbac grants. Idempotent.
 *
 * @example
 * const controller = await installFluxgate(cp);
 * await runController({ kubeconfig: controller.kubeconfigPath, ... });
 */
export async function installFluxgate(cp: Pick<ControlPlane, "kubeConfig" | "server" | "dir">): Promise<ServiceAccountAccess> {
  const bases = join(repoRoot, "config", "crd", "bases");
  const crdFiles = (await readdir(bases)).filter((f) => f.endsWith(".yaml")).map((f) => join(bases, f));
  await installCrds(cp.kubeConfig, crdFiles);
  await applyManifests(cp.kubeConfig, await readFile(join(repoRoot, "config", "manager", "namespace.yaml"), "utf8"));
  // The identity Role lives in flux-system, which Flux creates; a bare control plane has no Flux yet.
  await applyManifests(cp.kubeConfig, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: flux-system\n");
  await applyManifests(cp.kubeConfig, await kustomizeBuild("config/rbac"));
  return serviceAccountToken(cp, { namespace: fluxgateNamespace, name: controllerServiceAccount, expirationSeconds: 4 * 3600 });
}
