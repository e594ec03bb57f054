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

test("agents of the same TLS material share one secure context; other material gets its own", async () => {
  const secureContext = (context: RequestContext): unknown => ((context.getAgent() as Agent).options as { secureContext?: unknown }).secureContext;
  // Two clients of one kubeconfig each (an informer's, another's), the CA read into a Buffer of its own each time.
  const one = secureContext(await applied(new PooledAuthentication(kubeConfig("a", "CA SHARED"))));
  const two = secureContext(await applied(new PooledAuthentication(kubeConfig("b", "CA SHARED"))));
  assert.ok(one !== undefined, "a secure context is given to the agent");
  assert.equal(two, one, "the same secure context");
  const other = secureContext(await applied(new PooledAuthentication(kubeConfig("a", "CA OTHER"))));
  assert.ok(other !== undefined);
  assert.notEqual(other, one);
});

test("material that cannot make a secure context is left to each connection, which fails with its request as before", async () => {
  const kc = kubeConfig("t", "CA ONE");
  kc.users[0] = { name: "u", certData: Buffer.from("not a certificate").toString("base64"), keyData: Buffer.from("not a key").toString("base64") };
  const agent = (await applied(new PooledAuthentication(kc))).getAgent() as Agent;
  assert.equal((agent.options as { secureContext?: unknown }).secureContext, undefined);
  assert.equal((agent as Agent & { keepAlive?: boolean }).keepAlive, true);
});
