// The Config Service as a Hono app: authentication, limits, metrics, one error handler, the API, the dashboard and its docs.

import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { dashboardRoutes } from "./dashboard/assets.ts";
import { prettyJsonOffLoop } from "./engine/workers.ts";
import type { RepositoryObserver } from "./git/repository.ts";
import { authenticate } from "./http/auth.ts";
import { errorBody, HttpError, httpErrorOf } from "./http/errors.ts";
import { EventReceiver } from "./http/event-receiver.ts";
import type { NodeEvents } from "./http/node-receiver.ts";
import { RateLimiter, type RateLimitOptions } from "./http/ratelimit.ts";
import { ServeMetrics } from "./metrics.ts";
import { API_PREFIX } from "./paths.ts";
import { calendarRoutes } from "./routes/calendar.ts";
import { clusterRoutes } from "./routes/clusters.ts";
import { fleetClusterRoutes } from "./routes/fleet-clusters.ts";
import { fleetOverrideRoutes } from "./routes/fleet-overrides.ts";
import { fleetWindowRoutes } from "./routes/fleet-windows.ts";
import { freezeImportRoutes } from "./routes/freeze-import.ts";
import { healthRoutes } from "./routes/health.ts";
import { meRoutes } from "./routes/me.ts";
import { openApiRoutes } from "./routes/openapi.ts";
import { overrideRoutes } from "./routes/overrides.ts";
import { previewRoutes } from "./routes/preview.ts";
import { repositoryRoutes } from "./routes/repository.ts";
import { EVENTS_PATH, statusRoutes } from "./routes/status.ts";
import { timelineRoutes } from "./routes/timeline.ts";
import { windowRoutes } from "./routes/windows.ts";
import type { Env, Log, Service, ServiceOptions } from "./service.ts";

export type { Env, Log, Service, ServiceOptions } from "./service.ts";

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
export const DEFAULT_RATE_LIMIT: RateLimitOptions = { burst: 120, perSecond: 20 };

/** What each app's receiver needs to serve posts straight from Node's request (server.ts). */
const nodeEvents = new WeakMap<Hono<Env>, NodeEvents>();

/** The event receiver of an app built by createApp, for the server's own listener (http/node-receiver.ts). */
export function nodeEventsOf(app: Hono<Env>): NodeEvents | null {
  return nodeEvents.get(app) ?? null;
}

/**
 * Builds the service. Route tests call it in-process with `app.request(path, init)`.
 *
 * @example const app = createApp({ repository, tokens, anonymousRead: false, version: "0.1.0" }); await app.request("/api/v1/clusters", { headers: {
 * authorization: `Bearer ${token}` } });
 */
export function createApp(options: ServiceOptions): Hono<Env> {
  const service: Service = {
    repository: options.repository,
    live: options.live ?? null,
    push: options.push ?? null,
    now: options.now ?? Date.now,
    metrics: options.metrics ?? new ServeMetrics(),
    version: options.version,
    log: options.log ?? (() => undefined),
  };
  const limiter = new RateLimiter(options.rateLimit ?? DEFAULT_RATE_LIMIT);
  const app = new Hono<Env>();

  app.onError((err, c) => {
    const error = httpErrorOf(err);
    if (error.status >= 500)
      service.log({
        msg: "Request failed",
        level: "error",
        method: c.req.method,
        path: c.req.path,
        status: error.status,
        error: err instanceof Error ? (err.stack ?? err.message) : String(err),
      });
    if (error.status === 401 || error.status === 403) service.metrics.authFailures.inc({ status: String(error.status) });
    return c.json(errorBody(error), error.status as 400, error.headers);
  });
  app.notFound((c) => c.json(errorBody(new HttpError(404, `no such resource: ${c.req.method} ${c.req.path}`)), 404));

  app.use("*", async (c, next) => {
    const started = performance.now();
    await next();
    const route = c.req.routePath === "/*" || c.req.routePath === "*" ? "unmatched" : c.req.routePath;
    service.metrics.requests.inc({ method: c.req.method, route, status: String(c.res.status) });
    service.metrics.duration.observe({ method: c.req.method, route }, (performance.now() - started) / 1000);
  });

  app.use("/api/*", async (c: Context<Env>, next) => {
    // Clusters sign the events they push with their own key; the receiver checks it and limits each cluster.
    if (c.req.method === "POST" && EVENTS_PATH.test(c.req.path)) return next();
    await authenticate(c, options, limiter, service);
    return next();
  });

  app.use(
    "/api/*",
    bodyLimit({
      maxSize: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      onError: () => {
        throw new HttpError(413, `the request body is larger than ${options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES} bytes`);
      },
    }),
  );

  app.use("/api/*", prettyJsonOffLoop);
  app.route(
    "/",
    healthRoutes(service, (c) => authenticate(c, options, limiter, service)),
  );
  app.route("/", openApiRoutes(service));
  const receiver = new EventReceiver(service);
  app.route(API_PREFIX, meRoutes());
  app.route(API_PREFIX, repositoryRoutes(service));
  app.route(API_PREFIX, clusterRoutes(service));
  app.route(API_PREFIX, windowRoutes(service));
  app.route(API_PREFIX, overrideRoutes(service));
  app.route(API_PREFIX, timelineRoutes(service));
  app.route(API_PREFIX, calendarRoutes(service));
  app.route(API_PREFIX, statusRoutes(service, receiver));
  app.route(API_PREFIX, previewRoutes(service));
  app.route(API_PREFIX, fleetClusterRoutes(service));
  app.route(API_PREFIX, fleetWindowRoutes(service));
  app.route(API_PREFIX, fleetOverrideRoutes(service));
  app.route(API_PREFIX, freezeImportRoutes(service));

  app.route("/", dashboardRoutes<Env>());
  nodeEvents.set(app, { receiver, metrics: service.metrics, log: service.log, maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES });
  return app;
}

/** Counts the service's Git events in its metrics and logs failures. */
export function repositoryObserver(metrics: ServeMetrics, log: Log): RepositoryObserver {
  return {
    reset: (record) =>
      log({
        msg:
          record.cause === "force-push"
            ? "Reset the working copy to origin: origin no longer has commits it had (a force-push); they are kept under the backup ref, never pushed back"
            : "Reset the working copy to origin: it held commits origin never had (left by a write that was not pushed); they are kept under the backup ref, never pushed",
        cause: record.cause,
        from: record.from,
        to: record.to,
        dropped: record.dropped,
        backupRef: record.backupRef,
      }),
    commit: () => metrics.commits.inc(),
    retry: () => metrics.pushRetries.inc(),
    failure: (operation, error) => {
      metrics.gitFailures.inc({ operation });
      log({ msg: "Git operation failed", level: "error", operation, error: error instanceof Error ? error.message : String(error) });
    },
    queue: (length) => metrics.writeQueue.set(length),
    loaded: (_fleet, _ms, read, render) => {
      metrics.filesRead.inc(read.filesRead);
      metrics.kustomizeBuilds.inc(render?.builds ?? 0);
    },
    renderFailed: (error) =>
      log({
        msg: "Failed to render the clusters with kustomize; per-target lanes show the targets their directories declare",
        level: "error",
        error: error instanceof Error ? error.message : String(error),
      }),
  };
}
