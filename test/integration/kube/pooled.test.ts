// The controller's API client reuses its TLS connections instead of opening one per request.

import assert from "node:assert/strict";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { test } from "node:test";
import { KubeClient } from "../../../src/kube/client.ts";
import { TARGET_RESOURCES, WINDOWS } from "../../../src/kube/resources.ts";
import { freshNamespace, installFluxgate, sharedControlPlane } from "../../harness/index.ts";

const plane = sharedControlPlane();

/** Counts the client sockets opened while `fn` runs. */
async function socketsOpened(fn: () => Promise<void>): Promise<number> {
  let opened = 0;
  const onSocket = (): void => void opened++;
  subscribe("net.client.socket", onSocket);
  try {
    await fn();
  } finally {
    unsubscribe("net.client.socket", onSocket);
  }
  return opened;
}

test("50 requests one after the other share one connection; 16 at once open at most 16", async () => {
  const cp = plane();
  const identity = await installFluxgate(cp);
  const namespace = await freshNamespace(cp);
  const client = new KubeClient(identity.kubeConfig);
  const kustomizations = TARGET_RESOURCES.Kustomization;
  assert.ok(kustomizations !== undefined);
  try {
    const sequential = await socketsOpened(async () => {
      for (let i = 0; i < 50; i++) assert.equal(await client.get(WINDOWS, namespace, `absent-${i}`), undefined);
    });
    assert.ok(sequential <= 1, `${sequential} connections for 50 sequential requests`);
    const parallel = await socketsOpened(async () => {
      for (let round = 0; round < 5; round++) await Promise.all(Array.from({ length: 16 }, (_, i) => client.get(kustomizations, namespace, `absent-${i}`)));
    });
    assert.ok(parallel <= 16, `${parallel} connections for 5 rounds of 16 parallel requests`);
  } finally {
    client.close();
  }
});
