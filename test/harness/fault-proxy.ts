// A fault-injecting HTTPS proxy in front of kube-apiserver: passes requests through, answers errors for a while, cuts watches.
import { KubeConfig } from "@kubernetes/client-node";
import { readFile } from "node:fs/promises";
import { Agent, createServer, request, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { join } from "node:path";
import type { ControlPlane } from "../../src/devenv/control-plane.ts";

/** Methods that change something on the API server. */
export const WRITE_METHODS = ["POST", "PUT", "PATCH", "DELETE"] as const;

/** A fault the proxy injects while it lasts: an error answered instead of the API server's, or a delay. */
export interface Fault {
  /** HTTP code answered, with a Kubernetes Status body: 409 Conflict, 500 InternalError, ... */
  code?: number;
  /** Without `code`: hold matching requests this long, then pass them on (a slow network or server). */
  delayMs?: number;
  /** How long the fault lasts, from now. */
  ms: number;
  /** Methods it applies to; all when omitted. */
  methods?: readonly string[];
  /** Paths it applies to (the path without the query); all when omitted. */
  paths?: RegExp;
  /** Whether watch requests fail too (default false: open watches and new ones pass). */
  watches?: boolean;
}

/** One request the proxy saw. */
export interface ProxiedRequest {
  at: number;
  method: string;
  /** Path without the query. */
  path: string;
  watch: boolean;
  /** The code answered: the API server's, or the injected one. */
  code: number;
  injected: boolean;
  /** An injected answer's request body (its first 64 KiB), read before the answer: what the fault refused. */
  body?: string;
  /** The answer's Content-Encoding (gzip when the API server compressed it), once it came. */
  encoding?: string | undefined;
}

export interface FaultProxy {
  /** https://127.0.0.1:PORT */
  readonly url: string;
  /** Every request seen so far, in order of arrival (watches when they start). */
  readonly requests: readonly ProxiedRequest[];
  /** `base` (a kubeconfig of the control plane) pointing at the proxy instead, same credentials and CA. */
  kubeConfigFor(base: KubeConfig): KubeConfig;
  /** Answers `fault.code` to matching requests for `fault.ms`; faults added later win over earlier ones. */
  inject(fault: Fault): void;
  /** Ends every fault now. */
  clear(): void;
  /** Destroys every open watch connection, as a dropped network connection would; returns how many. */
  cutWatches(): number;
  /** Watch connections open now. */
  readonly openWatches: number;
  close(): Promise<void>;
}

const REASONS: Record<number, string> = { 409: "Conflict", 429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable", 504: "Timeout" };

function statusBody(code: number): string {
  const reason = REASONS[code] ?? "InternalError";
  return JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: `injected fault: HTTP ${code} ${reason}`, reason, code });
}

/**
 * Starts a proxy in front of `cp`'s kube-apiserver. It serves TLS with the API server's own
 * certificate, so a kubeconfig from `kubeConfigFor` trusts it exactly as it trusts the API server.
 *
 * @example
 * const proxy = await startFaultProxy(cp);
 * const kc = proxy.kubeConfigFor(controllerKubeConfig);
 * proxy.inject({ code: 500, ms: 3_000, methods: WRITE_METHODS });
 */
export async function startFaultProxy(cp: Pick<ControlPlane, "server" | "dir">): Promise<FaultProxy> {
  const pki = join(cp.dir, "pki");
  const [cert, key] = await Promise.all([readFile(join(pki, "apiserver.crt")), readFile(join(pki, "apiserver.key"))]);
  const upstream = new URL(cp.server);
  const agent = new Agent({ keepAlive: true, ca: cert });
  const requests: ProxiedRequest[] = [];
  const watches = new Set<{ client: Socket; upstream: ReturnType<typeof request> }>();
  let faults: (Fault & { until: number })[] = [];

  const faultFor = (method: string, path: string, watch: boolean): (Fault & { until: number }) | undefined => {
    const now = Date.now();
    faults = faults.filter((f) => f.until > now);
    for (let i = faults.length - 1; i >= 0; i--) {
      const f = faults[i] as Fault & { until: number };
      if (watch && f.watches !== true) continue;
      if (f.paths !== undefined && !f.paths.test(path)) continue;
      if (f.methods === undefined || f.methods.includes(method)) return f;
    }
    return undefined;
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const method = req.method ?? "GET";
    const url = new URL(req.url ?? "/", upstream);
    const watch = url.searchParams.get("watch") === "true" || url.searchParams.get("watch") === "1";
    const seen: ProxiedRequest = { at: Date.now(), method, path: url.pathname, watch, code: 0, injected: false };
    requests.push(seen);
    const fault = faultFor(method, url.pathname, watch);
    if (fault?.code !== undefined) {
      const code = fault.code;
      seen.code = code;
      seen.injected = true;
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => {
        if (body.length < 65_536) body += chunk;
      });
      req.on("end", () => {
        seen.body = body.slice(0, 65_536);
        res.writeHead(code, { "content-type": "application/json" }).end(statusBody(code));
      });
      return;
    }
    if (fault?.delayMs !== undefined) {
      req.pause();
      setTimeout(() => forward(req, res, url, method, watch, seen), fault.delayMs);
      return;
    }
    forward(req, res, url, method, watch, seen);
  };

  const forward = (req: IncomingMessage, res: ServerResponse, url: URL, method: string, watch: boolean, seen: ProxiedRequest): void => {
    // The client went away while the request was held.
    if (req.destroyed) return;
    const headers = { ...req.headers, host: upstream.host };
    const out = request(url, { method, headers, agent }, (up) => {
      seen.code = up.statusCode ?? 0;
      seen.encoding = up.headers["content-encoding"];
      res.writeHead(up.statusCode ?? 502, up.headers);
      // A watch's headers come long before its first event: pass them on at once, as the API server does.
      res.flushHeaders();
      up.pipe(res);
      up.on("error", () => res.destroy());
    });
    out.on("error", () => {
      // The API server is down or went away mid-answer: answer what a load balancer would, or cut.
      if (res.headersSent) {
        res.destroy();
        return;
      }
      seen.code = 503;
      res.writeHead(503, { "content-type": "application/json" }).end(statusBody(503));
    });
    if (watch) {
      const entry = { client: req.socket, upstream: out };
      watches.add(entry);
      res.on("close", () => {
        watches.delete(entry);
        out.destroy();
      });
    }
    req.pipe(out);
    req.resume();
  };

  const server: Server = createServer({ cert, key }, handle);
  // A client that goes away mid-request is not the proxy's problem.
  server.on("clientError", (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `https://127.0.0.1:${port}`;

  return {
    url,
    requests,
    kubeConfigFor(base: KubeConfig): KubeConfig {
      const kc = new KubeConfig();
      kc.loadFromString(base.exportConfig());
      const cluster = kc.getCurrentCluster();
      if (cluster === null) throw new Error("the kubeconfig has no current cluster");
      kc.clusters = kc.clusters.map((c) => (c.name === cluster.name ? { ...c, server: url } : c));
      return kc;
    },
    inject(fault: Fault): void {
      faults.push({ ...fault, until: Date.now() + fault.ms });
    },
    clear(): void {
      faults = [];
    },
    cutWatches(): number {
      const n = watches.size;
      for (const w of watches) {
        w.client.destroy();
        w.upstream.destroy();
      }
      watches.clear();
      return n;
    },
    get openWatches(): number {
      return watches.size;
    },
    async close(): Promise<void> {
      for (const w of watches) w.client.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
