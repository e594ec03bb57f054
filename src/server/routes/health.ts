// The service's own routes: health (/healthz, /readyz) for probes, and /metrics for Prometheus (with a token that may read).

import { Hono, type Context } from "hono";
import { matchesSelector } from "../../policy/index.ts";
import { authorizeRead, noQuery } from "../http/auth.ts";
import { selectorQuery } from "../http/paging.ts";
import type { Env, Service } from "../service.ts";
import { WindowStates } from "../views/window-states.ts";

/** The health and metrics routes, mounted at the root; `authenticate` sets the caller of /metrics as the API's middleware does. */
export function healthRoutes(service: Service, authenticate: (c: Context<Env>) => Promise<void>): Hono<Env> {
  const routes = new Hono<Env>();
  routes.get("/favicon.ico", (c) => c.body(null, 204));
  // Health routes take no parameters: a probe misconfigured with some gets told, not a silent 200.
  routes.use("/healthz", noQuery);
  routes.use("/readyz", noQuery);
  routes.get("/healthz", (c) => c.text("ok\n"));
  routes.get("/readyz", async (c) => {
    const repository = service.repository;
    try {
      const fleet = await repository.fleet();
      // Unreachable origin: reads would serve a stale commit and writes fail, so the service says it is not ready.
      const ready = repository.lastSyncError === null;
      const body = { ready, commit: fleet.commit, lastSyncError: repository.lastSyncError, lastReset: repository.lastReset };
      return ready ? c.json(body) : c.json({ ...body, message: `cannot sync with origin: ${repository.lastSyncError}` }, 503);
    } catch (e) {
      return c.json(
        { ready: false, message: e instanceof Error ? e.message : String(e), lastSyncError: repository.lastSyncError, lastReset: repository.lastReset },
        503,
      );
    }
  });
  const states = new WindowStates();
  routes.get("/metrics", async (c) => {
    // The metrics name every cluster: they need a token that may read, as the API does.
    await authenticate(c);
    authorizeRead(c);
    const metrics = service.metrics;
    // ?selector= keeps the per-cluster series of the clusters whose labels match (a Prometheus per region, say).
    const query = selectorQuery(c);
    let clusters: Set<string> | null = query === null ? null : new Set();
    metrics.writeQueue.set(service.repository.queueLength);
    try {
      const fleet = await service.repository.fleet();
      states.update(metrics.windows, fleet, service.now());
      if (query !== null) clusters = new Set(fleet.clusters.filter((k) => matchesSelector(query.selector, k.entry.labels ?? {})).map((k) => k.entry.name));
    } catch {
      // The metrics still answer when the repository cannot be read; /readyz says why.
    }
    return c.body(await metrics.text(clusters), 200, { "Content-Type": metrics.registry.contentType });
  });
  return routes;
}
