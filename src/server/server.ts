// Runs the Config Service on a socket: opens the repository and tokens, syncs with the remote on a timer, stops cleanly.

import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import { createApp, repositoryObserver, type Env, type Log } from "./app.ts";
import type { LiveSource } from "./live.ts";
import { ServeMetrics } from "./metrics.ts";
import type { RateLimitOptions } from "./ratelimit.ts";
import { Repository } from "./repository.ts";
import { TokenStore } from "./tokens.ts";

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
  /** The clock; tests fix it so commits and answers are the same at every run. */
  now?: () => number;
}

export interface RunningService {
  url: string;
  port: number;
  app: Hono<Env>;
  repository: Repository;
  close(): Promise<void>;
}

/** Starts the service and resolves once it listens. */
export async function startService(options: StartOptions): Promise<RunningService> {
  const metrics = new ServeMetrics();
  const repository = await Repository.open(options.repo, { observer: repositoryObserver(metrics, options.log), ...(options.now === undefined ? {} : { now: options.now }) });
  const tokens = options.tokensFile === null ? null : await TokenStore.open(options.tokensFile);
  const app = createApp({
    repository,
    tokens,
    anonymousRead: options.anonymousRead,
    live: options.live,
    metrics,
    version: options.version,
    log: options.log,
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
  });
  let running: ReturnType<typeof serve> | undefined;
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: options.host, port: options.port }, (info) => resolve(info));
    server.once("error", reject);
    running = server;
  });
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
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (timer !== null) clearInterval(timer);
        if (running === undefined) return resolve();
        const server = running as { close(cb: (e?: Error) => void): void; closeAllConnections?: () => void };
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections?.();
      }),
  };
}
