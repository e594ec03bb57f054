// Runs the Config Service on a socket: opens the repository and tokens, syncs with the remote on a timer, stops cleanly.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import type { Hono } from "hono";
import { createApp, nodeEventsOf, repositoryObserver, type Env, type Log } from "./app.ts";
import type { LiveSource } from "./status/live.ts";
import { ServeMetrics } from "./metrics.ts";
import type { RateLimitOptions } from "./http/ratelimit.ts";
import type { TargetRenderer } from "./model/rendered-targets.ts";
import type { KustomizeRunner } from "../gitops/kustomize.ts";
import { Repository } from "./git/repository.ts";
import { ClusterKeys } from "./status/keys.ts";
import { serveEvent, type NodeEvents } from "./http/node-receiver.ts";
import { openStore } from "./status/open.ts";
import type { Push } from "./service.ts";
import { TokenStore } from "./http/tokens.ts";

export interface StartOptions {
  repo: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  tokensFile: string | null;
  anonymousRead: boolean;
  live: LiveSource | null;
  /** How often to fetch from origin (ms); 0 turns it off. */
  syncIntervalMs: number;
  rateLimit?: RateLimitOptions;
  maxBodyBytes?: number;
  version: string;
  log: Log;
  /** Runs once the socket listens, before the repository and tokens are opened: whatever a start writes goes here. */
  prepare?: () => Promise<void>;
  /**
   * The event receiver: the cluster keys file, the status store (a SQLite file or a PostgreSQL URL), the stale threshold and each cluster's rate (EVENT_RATE
   * when absent); null: off.
   */
  push?: { keysFile: string; store: string; staleAfterMs: number; rate?: RateLimitOptions } | null;
  /** The clock; tests fix it so commits and answers are the same at every run. */
  now?: () => number;
  /** Lists the targets the clusters render with kustomize (--render-targets); without it, those their directories declare. */
  targets?: TargetRenderer;
  /** Renders the clusters' fleet windows; without it they are not known (RepositoryOptions.kustomize). */
  kustomize?: KustomizeRunner | null;
}

export interface RunningService {
  url: string;
  port: number;
  app: Hono<Env>;
  repository: Repository;
  close(): Promise<void>;
}

/**
 * Starts the service and resolves once it listens. The socket is bound first: a start that fails
 * (the port is taken) has written nothing; `prepare` (which may write files, e.g. tokens) runs only
 * once the server can serve, and until the app is ready requests are answered 503.
 */
export async function startService(options: StartOptions): Promise<RunningService> {
  let ready: Hono<Env> | null = null;
  // Posts to the event receiver are served from Node's request itself, once the app is ready: a
  // fleet-wide transition brings one from every cluster within a second (http/node-receiver.ts).
  let events: NodeEvents | null = null;
  const appListener = getRequestListener(
    (request, env) =>
      ready === null
        ? Response.json({ error: { status: 503, message: "the service is starting" } }, { status: 503, headers: { "Retry-After": "1" } })
        : ready.fetch(request, env),
    { hostname: options.host },
  );
  let running: Server | undefined;
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    const server = createServer((req, res) => {
      if (events !== null && serveEvent(events, req, res)) return;
      void appListener(req, res);
    });
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve(server.address() as AddressInfo));
    running = server;
  });
  const stop = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (running === undefined) return resolve();
      running.close((e) => (e ? reject(e) : resolve()));
      running.closeAllConnections();
    });
  let app: Hono<Env>;
  let repository: Repository;
  let push: Push | null = null;
  try {
    await options.prepare?.();
    const metrics = new ServeMetrics();
    repository = await Repository.open(options.repo, {
      observer: repositoryObserver(metrics, options.log),
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.targets === undefined ? {} : { targets: options.targets }),
      kustomize: options.kustomize ?? null,
    });
    const tokens = options.tokensFile === null ? null : await TokenStore.open(options.tokensFile);
    if (options.push !== undefined && options.push !== null) {
      const keys = await ClusterKeys.open(options.push.keysFile);
      push = {
        keys,
        store: await openStore(options.push.store),
        staleAfterMs: options.push.staleAfterMs,
        ...(options.push.rate === undefined ? {} : { rate: options.push.rate }),
      };
    }
    app = createApp({
      repository,
      tokens,
      anonymousRead: options.anonymousRead,
      live: options.live,
      push,
      metrics,
      version: options.version,
      log: options.log,
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
      ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    });
  } catch (e) {
    await stop().catch(() => undefined);
    await push?.store.close().catch(() => undefined);
    throw e;
  }
  ready = app;
  events = nodeEventsOf(app);
  const timer =
    options.syncIntervalMs > 0 && repository.hasRemote
      ? setInterval(() => {
          repository.sync().catch(() => undefined);
        }, options.syncIntervalMs)
      : null;
  timer?.unref();
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    app,
    repository,
    close: async () => {
      if (timer !== null) clearInterval(timer);
      await stop();
      await push?.store.close();
    },
  };
}
