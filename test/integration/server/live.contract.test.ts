// The LiveSource contract, held by KubeLive against a real kube-apiserver with fluxgate's CRDs, through a least-privilege ServiceAccount.

import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { ApiException, CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { KubeLive } from "../../../src/server/status/live.ts";
import { installCrds, serviceAccountKubeconfig, sharedControlPlane, type ServiceAccountAccess } from "../../harness/index.ts";
import { liveSourceContract } from "../../support/live.ts";

const plane = sharedControlPlane();

/** What the Config Service needs in a cluster: read windows and overrides, create and cancel overrides. */
const SERVE_RULES = [
  { apiGroups: ["fluxgate.io"], resources: ["reconciliationwindows", "windowoverrides"], verbs: ["get", "list"] },
  { apiGroups: ["fluxgate.io"], resources: ["windowoverrides"], verbs: ["create", "patch"] },
];

let identity: Promise<ServiceAccountAccess> | undefined;

/** CRDs, the flux-system namespace and the Config Service's ServiceAccount, once for all the tests of this file. */
function serviceAccount(): Promise<ServiceAccountAccess> {
  identity ??= (async () => {
    const cp = plane();
    const bases = new URL("../../../config/crd/bases/", import.meta.url).pathname;
    await installCrds(
      cp.kubeConfig,
      (await readdir(bases)).filter((f) => f.endsWith(".yaml")).map((f) => join(bases, f)),
    );
    await cp.kubeConfig
      .makeApiClient(CoreV1Api)
      .createNamespace({ body: { metadata: { name: "flux-system" } } })
      .catch((e: unknown) => {
        if (!(e instanceof ApiException && (e as ApiException<unknown>).code === 409)) throw e;
      });
    return await serviceAccountKubeconfig(cp, { namespace: "flux-system", name: "fluxgate-serve-contract", rules: SERVE_RULES });
  })();
  return identity;
}

liveSourceContract("KubeLive", async () => {
  const sa = await serviceAccount();
  const context = sa.kubeConfig.getCurrentContext();
  const admin = plane().kubeConfig.makeApiClient(CustomObjectsApi);
  return {
    live: new KubeLive(new Map([["edge-berlin", context]]), sa.kubeconfigPath),
    cluster: "edge-berlin",
    context,
    addWindow: async (window) => {
      await admin.createNamespacedCustomObject({
        group: "fluxgate.io",
        version: "v1alpha1",
        plural: "reconciliationwindows",
        namespace: "flux-system",
        body: window,
      });
    },
  };
});
