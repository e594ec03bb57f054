// The controller's API client reuses its TLS connections instead of opening one per request.

import assert from "node:assert/strict";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { Agent } from "node:https";
import { test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { KubeClient } from "../../../src/kube/client.ts";
import { sendRaw } from "../../../src/kube/request.ts";
import { TARGET_RESOURCES, WINDOWS } from "../../../src/kube/resources.ts";
import { freshNamespace, installFluxgate, sharedControlPlane } from "../../harness/index.ts";

const plane = sharedControlPlane();
// gc() for the test that an answer can be collected: the flag makes a context created after it hold the function.
setFlagsFromString("--expose-gc");

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

test("an answer read over a kept-alive connection is not kept alive by it: the socket goes on, the answer can be collected", async () => {
  const cp = plane();
  const identity = await installFluxgate(cp);
  const namespace = await freshNamespace(cp);
  const cluster = identity.kubeConfig.getCurrentCluster();
  const token = identity.kubeConfig.getCurrentUser()?.token;
  assert.ok(cluster?.caData !== undefined && token !== undefined, "the identity has a CA and a token");
  const windows = `/apis/fluxgate.io/v1alpha1/namespaces/${namespace}/reconciliationwindows`;
  const overrides = `/apis/fluxgate.io/v1alpha1/namespaces/${namespace}/windowoverrides`;
  const request = (path: string, agent: Agent): Parameters<typeof sendRaw>[0] => ({
    method: "GET",
    server: new URL(cluster.server),
    path,
    headers: { Authorization: `Bearer ${token}`, Accept: "application/json" },
    body: undefined,
    agent,
    timeoutMs: 10_000,
    signal: new AbortController().signal,
  });
  // A CRD just installed answers 429 for a moment (its storage is initializing): waited out on a connection of its own, so
  // that the connection under test carries the answer watched below as its first request (the one its socket holds).
  const warmUp = new Agent({ keepAlive: false, ca: Buffer.from(cluster.caData, "base64") });
  for (const path of [windows, overrides]) {
    for (let i = 0; (await sendRaw(request(path, warmUp))).code === 429 && i < 100; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  warmUp.destroy();
  // As the informers' agents: one kept-alive TLS connection, which Node's agent gives a listener for TLS sessions.
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: Buffer.from(cluster.caData, "base64") });
  try {
    let collected!: WeakRef<object>;
    const opened = await socketsOpened(async () => {
      collected = await (async () => {
        const answer = await sendRaw(request(windows, agent));
        assert.equal(answer.code, 200, "the first request on the connection is the answer watched");
        return new WeakRef(answer);
      })();
      // The next request goes over the same connection: it lives on, as a watch does after its list.
      assert.equal((await sendRaw(request(overrides, agent))).code, 200);
    });
    assert.equal(opened, 1, "both requests went over one connection");
    assert.equal(Object.values(agent.freeSockets).flat().length, 1, "the connection is kept");
    const gc = runInNewContext("gc") as () => void;
    for (let i = 0; i < 3 && collected.deref() !== undefined; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
    }
    assert.equal(collected.deref(), undefined, "the first answer was collected while its connection is kept");
  } finally {
    agent.destroy();
  }
});
