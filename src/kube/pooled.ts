// API clients that reuse their TLS connections: @kubernetes/client-node 1.x builds a new https.Agent for every request.

import { Agent } from "node:https";
import { createSecureContext, type SecureContext } from "node:tls";
import type { KubeConfig, RequestContext, SecurityAuthentication } from "@kubernetes/client-node";

/** Options that decide which TLS connection a request may share. */
const TLS_KEYS = ["ca", "cert", "key", "pfx", "passphrase", "rejectUnauthorized", "servername"] as const;

/** The options of an agent that make its connections' secure context (what tls.connect hands to createSecureContext when it is given none). */
const CONTEXT_KEYS = [
  "ca",
  "cert",
  "key",
  "pfx",
  "passphrase",
  "ciphers",
  "honorCipherOrder",
  "ecdhCurve",
  "clientCertEngine",
  "crl",
  "dhparam",
  "secureOptions",
  "secureProtocol",
  "sessionIdContext",
  "minVersion",
  "maxVersion",
  "sigalgs",
  "privateKeyEngine",
  "privateKeyIdentifier",
] as const;

/** The secure contexts made lately, by the options they were made of: a few (a client certificate rotated makes another). */
const contexts: Array<{ options: readonly unknown[]; context: SecureContext }> = [];
const CONTEXTS_KEPT = 4;

/**
 * One secure context for every agent with the same TLS material: each informer has its own agent (its watch holds a connection), and without a context given
 * each connection makes its own, its certificates and key parsed again (about a millisecond each, several at once as the controller starts).
 */
export function sharedSecureContext(options: Readonly<Record<string, unknown>>): SecureContext | undefined {
  const values = CONTEXT_KEYS.map((k) => options[k]);
  const found = contexts.find((c) => values.every((v, i) => same(v, c.options[i])));
  if (found !== undefined) return found.context;
  let context: SecureContext;
  try {
    context = createSecureContext(options);
  } catch {
    // Material that cannot be read (a key that is not PEM): none given, each connection fails as it did, with its request and the error that says why.
    return undefined;
  }
  contexts.push({ options: values, context });
  if (contexts.length > CONTEXTS_KEPT) contexts.shift();
  return context;
}

/**
 * The kubeconfig's authentication, with one keep-alive agent in place of the agent
 * client-node creates per request. Without it each request opens a TLS connection of its own
 * (a handshake, certificates parsed again, memory churned): at a transition of 1,000 targets
 * that is 1,000 handshakes. Tokens and headers still come from the kubeconfig on every request;
 * a new agent is made only when the TLS material changes (a rotated client certificate).
 */
export class PooledAuthentication implements SecurityAuthentication {
  private readonly kc: KubeConfig;
  private agent: Agent | undefined;
  private material: readonly unknown[] = [];

  constructor(kc: KubeConfig) {
    this.kc = kc;
  }

  getName(): string {
    return "pooled-kubeconfig";
  }

  async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await this.kc.applySecurityAuthentication(context);
    const fresh = context.getAgent();
    // Proxies (whose agents extend https.Agent and keep the proxy out of their options) and plain HTTP keep the agent client-node chose.
    if (!(fresh instanceof Agent) || fresh.constructor !== Agent) return;
    const options = fresh.options as Record<string, unknown>;
    const material = TLS_KEYS.map((k) => options[k]);
    if (this.agent === undefined || !material.every((v, i) => same(v, this.material[i]))) {
      this.close();
      const secureContext = sharedSecureContext(options);
      this.agent = new Agent({ ...fresh.options, keepAlive: true, ...(secureContext === undefined ? {} : { secureContext }) });
      this.material = material;
    }
    context.setAgent(this.agent);
  }

  /** Closes the idle pooled connections; requests still in flight finish (idle sockets never keep the process alive). */
  close(): void {
    for (const sockets of Object.values(this.agent?.freeSockets ?? {})) for (const s of sockets ?? []) s.destroy();
    this.agent = undefined;
  }
}

/** Equal TLS material: strings, Buffers (certificates read again from files each time) or lists of them. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => same(v, b[i]));
  return false;
}
