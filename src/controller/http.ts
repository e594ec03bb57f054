// The controller's probe and metrics endpoints: /healthz, /readyz and /metrics.

import { createServer, type Server } from "node:http";
import type { Metrics } from "./metrics.ts";

/** Parses ":8080" or "127.0.0.1:8080"; port 0 picks a free one. */
export function parseAddress(flag: string, value: string): { host: string | undefined; port: number } {
  const m = /^(.*):(\d{1,5})$/.exec(value);
  const port = m === null ? NaN : Number(m[2]);
  if (m === null || port > 65535) throw new Error(`${flag} ${value}: must be HOST:PORT or :PORT, e.g. ":8080"`);
  const host = m[1] === "" ? undefined : (m[1] as string).replace(/^\[(.*)\]$/, "$1");
  return { host, port };
}

/** Serves the given routes; resolves with the server once listening. */
export async function serve(
  address: { host: string | undefined; port: number },
  routes: Record<string, () => Promise<{ status: number; type: string; body: string }>>,
): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const route = routes[path];
    if (req.method !== "GET" || route === undefined) {
      res.writeHead(route === undefined ? 404 : 405, { "content-type": "text/plain" }).end(route === undefined ? "not found\n" : "method not allowed\n");
      return;
    }
    route().then(
      (r) => res.writeHead(r.status, { "content-type": r.type }).end(r.body),
      (err: unknown) => res.writeHead(500, { "content-type": "text/plain" }).end(`${err instanceof Error ? err.message : String(err)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(address.port, address.host, () => resolve());
  });
  return server;
}

export function metricsRoute(metrics: Metrics): () => Promise<{ status: number; type: string; body: string }> {
  return async () => ({ status: 200, type: metrics.registry.contentType, body: await metrics.registry.metrics() });
}
