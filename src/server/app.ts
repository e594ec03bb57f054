// The Config Service as a Hono app: authentication, limits, metrics, one error handler, the API, the dashboard and its docs.

import { createHash } from "node:crypto";
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { dashboardRoutes } from "./dashboard/assets.ts";
import { prettyJsonOffLoop } from "./engine/workers.ts";
import { errorBody, HttpError, httpErrorOf } from "./http/errors.ts";
import { ServeMetrics } from "./metrics.ts";
import { openApiDocument } from "./http/openapi.ts";
import { RateLimiter, type RateLimitOptions } from "./http/ratelimit.ts";
import type { RepositoryObserver } from "./git/repository.ts";
import type { NodeEvents } from "./http/node-receiver.ts";
import { EVENTS_PATH, pushRoutes } from "./routes/status.ts";
import { apiRoutes } from "./routes/clusters.ts";
import { editRoutes } from "./routes/overrides.ts";
import { fleetRoutes } from "./routes/fleet-clusters.ts";
import { fleetEditRoutes } from "./routes/fleet-windows.ts";
import { selectorQuery } from "./http/paging.ts";
import { matchesSelector } from "../policy/index.ts";
import { allows, isCalendarToken, type Identity } from "./http/tokens.ts";
import { WindowStates } from "./views/window-states.ts";
import type { Env, Log, Service, ServiceOptions } from "./service.ts";

export type { Env, Log, Service, ServiceOptions } from "./service.ts";

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
export const DEFAULT_RATE_LIMIT: RateLimitOptions = { burst: 120, perSecond: 20 };

const ANONYMOUS: Identity = { name: "anonymous", role: "viewer", email: "anonymous@fluxgate.invalid", anonymous: true };

/** The peer's address from @hono/node-server's bindings; in-process requests have none. */
function clientAddress(bindings: unknown): string {
  const incoming = (bindings as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? "local";
}

/** What each app's receiver needs to serve posts straight from Node's request (server.ts). */
const nodeEvents = new WeakMap<Hono<Env>, NodeEvents>();

/** The event receiver of an app built by createApp, for the server's own listener (push/node-receiver.ts). */
export function nodeEventsOf(app: Hono<Env>): NodeEvents | null {
  return nodeEvents.get(app) ?? null;
}

/**
 * Builds the service. Route tests call it in-process with `app.request(path, init)`.
 *
 * @example const app = createApp({ repository, tokens, anonymousRead: false, version: "0.1.0" }); await app.request("/api/v1/clusters", { headers: { authorization: `Bearer ${token}` } });
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
    if (error.status >= 500) service.log({ msg: "Request failed", level: "error", method: c.req.method, path: c.req.path, status: error.status, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
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
  app.get("/favicon.ico", (c) => c.body(null, 204));
  // Health routes take no parameters: a probe misconfigured with some gets told, not a silent 200.
  app.use("/healthz", noQuery);
  app.use("/readyz", noQuery);
  app.get("/healthz", (c) => c.text("ok\n"));
  app.get("/readyz", async (c) => {
    const repository = service.repository;
    try {
      const fleet = await repository.fleet();
      // Unreachable origin: reads would serve a stale commit and writes fail, so the service says it is not ready.
      const ready = repository.lastSyncError === null;
      const body = { ready, commit: fleet.commit, lastSyncError: repository.lastSyncError, lastReset: repository.lastReset };
      return ready ? c.json(body) : c.json({ ...body, message: `cannot sync with origin: ${repository.lastSyncError}` }, 503);
    } catch (e) {
      return c.json({ ready: false, message: e instanceof Error ? e.message : String(e), lastSyncError: repository.lastSyncError, lastReset: repository.lastReset }, 503);
    }
  });
  const states = new WindowStates();
  app.get("/metrics", async (c) => {
    // The metrics name every cluster: they need a token that may read, as the API does.
    await authenticate(c, options, limiter, service);
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
  app.get("/openapi.json", (c) => c.json(openApiDocument(service.version)));

  apiRoutes(app, service);
  editRoutes(app, service);
  fleetRoutes(app, service);
  fleetEditRoutes(app, service);
  const receiver = pushRoutes(app, service, authorizeRead);
  dashboardRoutes(app);
  nodeEvents.set(app, { receiver, metrics: service.metrics, log: service.log, maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES });
  return app;
}

/**
 * Sets the caller's identity from the Authorization header (or, for calendar feeds, `?access_token=`,
 * which also takes a calendar token), after the rate limit; 401 when a token is needed and missing.
 */
async function authenticate(c: Context<Env>, options: ServiceOptions, limiter: RateLimiter, service: Service): Promise<void> {
  // Calendar apps cannot send headers: the feed also takes the token as ?access_token= (RFC 6750 §2.3).
  const queryToken = c.req.path.endsWith("/calendar.ics") ? c.req.query("access_token") : undefined;
  const header = c.req.header("authorization") ?? (queryToken === undefined ? undefined : `Bearer ${queryToken}`);
  const key = header === undefined ? `ip:${clientAddress(c.env)}` : `token:${createHash("sha256").update(header).digest("hex").slice(0, 16)}`;
  const wait = limiter.take(key, Date.now());
  if (wait > 0) {
    service.metrics.rateLimited.inc();
    throw new HttpError(429, `too many requests; try again in ${wait}s`, { headers: { "Retry-After": String(wait) } });
  }
  if (header === undefined) {
    const read = c.req.method === "GET" || c.req.method === "HEAD" || (c.req.method === "POST" && c.req.path === "/api/v1/preview");
    if (!(options.anonymousRead && read)) {
      throw new HttpError(401, 'this API needs a bearer token: send "Authorization: Bearer TOKEN" (create one with "fluxgate serve token add")', {
        headers: { "WWW-Authenticate": 'Bearer realm="fluxgate"' },
      });
    }
    c.set("identity", ANONYMOUS);
    return;
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const presented = match?.[1] ?? null;
  if (presented !== null && isCalendarToken(presented) && !c.req.path.endsWith("/calendar.ics")) {
    throw new HttpError(401, "a calendar token only reads calendar feeds (.ics); use a token from \"fluxgate serve token add\" here", {
      headers: { "WWW-Authenticate": 'Bearer realm="fluxgate", error="insufficient_scope"' },
    });
  }
  const identity = presented === null || options.tokens === null ? null : await options.tokens.verify(presented);
  if (identity === null) {
    throw new HttpError(401, match === null ? 'the Authorization header must be "Bearer TOKEN"' : "the token is not valid: it is unknown or was replaced", {
      headers: { "WWW-Authenticate": 'Bearer realm="fluxgate", error="invalid_token"' },
    });
  }
  c.set("identity", identity);
}

async function noQuery(c: Context<Env>, next: () => Promise<void>): Promise<void> {
  const names = Object.keys(c.req.queries());
  if (names.length > 0) throw new HttpError(400, `${c.req.path} takes no query parameters (got ${names.slice(0, 5).join(", ")})`);
  await next();
}

/** Refuses anonymous callers (without --anonymous-read) and roles that may not read. */
function authorizeRead(c: Context<Env>): void {
  const identity = c.get("identity");
  if (!allows(identity.role, "read")) throw new HttpError(403, `token "${identity.name}" may not read`);
}

/** Counts the service's Git events in its metrics and logs failures. */
export function repositoryObserver(metrics: ServeMetrics, log: Log): RepositoryObserver {
  return {
    reset: (record) =>
      log({
        msg: record.cause === "force-push"
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
    renderFailed: (error) =>
      log({ msg: "Failed to render the clusters with kustomize; per-target lanes show the targets their directories declare", level: "error", error: error instanceof Error ? error.message : String(error) }),
  };
}
