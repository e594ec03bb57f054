// What the Config Service's routes are given: Hono's typed context, the service's parts, and its options.

import type { LiveSource } from "./status/live.ts";
import type { ServeMetrics } from "./metrics.ts";
import type { ClusterKeys } from "./status/keys.ts";
import type { StatusStore } from "./status/store.ts";
import type { RateLimitOptions } from "./http/ratelimit.ts";
import type { Repository } from "./git/repository.ts";
import type { Identity, TokenStore } from "./http/tokens.ts";

/** Hono's typed context: the caller's identity is set for every /api request. */
export interface Env {
  Variables: { identity: Identity };
}

/** Writes one log entry: `msg`, `level: "error"` for a failure (else info), and fields (the CLI writes them as src/kube/log.ts does). */
export type Log = (fields: Record<string, unknown>) => void;

export interface ServiceOptions {
  repository: Repository;
  /** Null when no tokens file is given: then only anonymous reads (with anonymousRead) work. */
  tokens: TokenStore | null;
  /** Let callers without a token read (GET) the API. */
  anonymousRead: boolean;
  live?: LiveSource | null;
  /** The event receiver and pushed status (--cluster-keys); null or absent: off. */
  push?: Push | null;
  now?: () => number;
  metrics?: ServeMetrics;
  rateLimit?: RateLimitOptions;
  /** Largest request body accepted, in bytes. */
  maxBodyBytes?: number;
  version: string;
  log?: Log;
}

/** What the routes use. */
export interface Service {
  repository: Repository;
  live: LiveSource | null;
  push: Push | null;
  now: () => number;
  metrics: ServeMetrics;
  version: string;
  log: Log;
}

/** What `fluxgate serve --cluster-keys F` adds: the event receiver and the status it keeps. */
export interface Push {
  keys: ClusterKeys;
  store: StatusStore;
  /** A cluster silent for longer is shown as stale. */
  staleAfterMs: number;
  /** Events a cluster may post (burst, then per second); EVENT_RATE of http/event-receiver.ts when absent. */
  rate?: RateLimitOptions;
}
