// PooledAuthentication: one keep-alive agent while the TLS material stays the same, a new one when it changes; tokens on every request.

import assert from "node:assert/strict";
import { Agent } from "node:https";
import { test } from "node:test";
import { HttpMethod, KubeConfig, RequestContext } from "@kubernetes/client-node";
import { PooledAuthentication } from "../../../src/kube/pooled.ts";

function kubeConfig(token: string, ca: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server: "https://127.0.0.1:6443", caData: Buffer.from(ca).toString("base64"), skipTLSVerify: false }],
    users: [{ name: "u", token }],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x",
  });
  return kc;
}

async function applied(auth: PooledAuthentication): Promise<RequestContext> {
  const context = new RequestContext("https://127.0.0.1:6443/api", HttpMethod.GET);
  await auth.applySecurityAuthentication(context);
  return context;
}

test("requests share one keep-alive agent and still carry the kubeconfig's token", async () => {
  const auth = new PooledAuthentication(kubeConfig("secret-token", "CA ONE"));
  const a = await applied(auth);
  const b = await applied(auth);
  assert.ok(a.getAgent() instanceof Agent);
  assert.equal(a.getAgent(), b.getAgent(), "the same agent");
  assert.equal((a.getAgent() as Agent & { keepAlive?: boolean }).keepAlive, true);
  assert.equal(b.getHeaders().Authorization, "Bearer secret-token");
});

test("new TLS material (a rotated CA or certificate) gets a new agent", async () => {
  const kc = kubeConfig("t", "CA ONE");
  const auth = new PooledAuthentication(kc);
  const before = (await applied(auth)).getAgent();
  kc.clusters[0] = { ...kc.clusters[0]!, caData: Buffer.from("CA TWO").toString("base64") };
  const after = (await applied(auth)).getAgent();
  assert.notEqual(after, before);
  assert.equal((await applied(auth)).getAgent(), after);
});

test("a kubeconfig with a proxy keeps client-node's proxy agent: the connection goes through the proxy", async () => {
  const kc = kubeConfig("t", "CA ONE");
  kc.clusters[0] = { ...kc.clusters[0]!, proxyUrl: "http://127.0.0.1:3128" };
  const auth = new PooledAuthentication(kc);
  const agent = (await applied(auth)).getAgent();
  assert.ok(agent !== undefined);
  assert.notEqual(agent.constructor, Agent, "not replaced by a direct keep-alive agent");
  assert.match(agent.constructor.name, /Proxy/);
});
