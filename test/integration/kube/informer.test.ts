// The informer's first list against a real API server: one request for the latest version, whole, which kube-apiserver answers from its
// watch cache once that has caught up with etcd.

import assert from "node:assert/strict";
import { test } from "node:test";
import { KubeClient } from "../../../src/kube/client.ts";
import { Informer } from "../../../src/kube/informer.ts";
import { CONFIGMAPS } from "../../../src/kube/resources.ts";
import type { KubernetesObject } from "../../../src/kube/types.ts";
import { freshNamespace, sharedControlPlane } from "../../harness/index.ts";

/** A ConfigMap of the test's namespace. */
function configMap(name: string, namespace: string, i: number): KubernetesObject & { data: Record<string, string> } {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data: { i: String(i) } };
}

const plane = sharedControlPlane();

test("the first list of 12 objects is one request though later lists take 5 a page, and holds every object written before it; then a watch", async () => {
  const cp = plane();
  const namespace = await freshNamespace(cp);
  const client = new KubeClient(cp.kubeConfig);
  for (let i = 0; i < 12; i++) {
    await client.apply(CONFIGMAPS, configMap(`page-${i}`, namespace, i), "fluxgate-test");
  }
  const requests: string[] = [];
  const added: string[] = [];
  const informer = new Informer<KubernetesObject>(cp.kubeConfig, CONFIGMAPS, (obj, change) => added.push(`${change} ${obj.metadata?.name ?? ""}`), {
    namespace,
    pageSize: 5,
    onRequest: (verb, code) => requests.push(`${verb} ${code ?? ""}`.trim()),
  });
  try {
    assert.equal(await informer.start(), true);
    // In pages of 5, as later lists come, it was three requests.
    assert.deepEqual(
      requests.filter((r) => r.startsWith("list")),
      ["list 200"],
      "one list",
    );
    const names = informer
      .list()
      .map((o) => o.metadata?.name ?? "")
      .filter((n) => n.startsWith("page-"));
    assert.equal(names.length, 12, `every object listed: ${names.join(", ")}`);
    assert.ok(requests.includes("watch"), `then a watch: ${requests.join(", ")}`);
    // The watch from the list's version brings what changes after it.
    await client.apply(CONFIGMAPS, configMap("page-12", namespace, 12), "fluxgate-test");
    const deadline = Date.now() + 10_000;
    while (!added.includes("add page-12")) {
      if (Date.now() > deadline) throw new Error(`the watch brought no add of page-12: ${added.join(", ")}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await informer.stop();
  }
});
