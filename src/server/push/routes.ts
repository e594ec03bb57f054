// The event receiver (POST /clusters/{cluster}/events, signed by the cluster's key) and the fleet's pushed status.

import type { Context, Hono } from "hono";
import { InputError, inContext } from "../../errors.ts";
import { matchesSelector, parseSelector } from "../../policy/index.ts";
import { HttpError } from "../errors.ts";
import { RateLimiter } from "../ratelimit.ts";
import type { Env, Service } from "../service.ts";
import { pushedEventOf } from "./event.ts";
import type { PushedStatusView } from "../live.ts";
import { fleetPushStatus, reportingOf } from "./view.ts";

/** Events a cluster may post in a burst (a fleet-wide transition: one per target) and per second after it. */
export const EVENT_RATE = { burst: 300, perSecond: 20 };

/** The receiver's path: callers of it authenticate with a signature, not a bearer token. */
export const EVENTS_PATH = /^\/api\/v1\/clusters\/[^/]+\/events$/;

const OFF = 'the event receiver is off: start "fluxgate serve" with --cluster-keys FILE (add a key with "fluxgate serve cluster-key add")';

/** A cluster's pushed status as GET /clusters/{cluster}/status shows it, or null when the receiver is off. */
export async function pushedStatusOf(service: Service, cluster: string): Promise<PushedStatusView> {
  const push = service.push;
  if (push === null) return null;
  const pushed = await push.store.cluster(cluster);
  return { cluster, reporting: reportingOf(pushed, service.now(), push.staleAfterMs), lastHeard: pushed?.lastHeard ?? null, targets: pushed?.targets ?? [] };
}

export function pushRoutes(app: Hono<Env>, service: Service, authorizeRead: (c: Context<Env>) => void): void {
  const limiter = new RateLimiter(service.push?.rate ?? EVENT_RATE);

  app.post("/api/v1/clusters/:cluster/events", async (c) => {
    const push = service.push;
    if (push === null) throw new HttpError(404, OFF);
    const name = c.req.param("cluster");
    const fleet = await service.repository.fleet();
    if (!fleet.clusters.some((k) => k.entry.name === name)) throw new HttpError(404, `cluster "${name.slice(0, 80)}" is not in fluxgate.yaml`);
    const body = new Uint8Array(await c.req.arrayBuffer());
    // The signature is checked first: nothing of an unsigned request is parsed or stored, and it
    // counts against no cluster's rate (a stranger cannot use up a cluster's budget).
    if (!(await push.keys.verify(name, body, c.req.header("x-signature")))) {
      service.metrics.authFailures.inc({ status: "401" });
      const why = (await push.keys.has(name)) ? "the X-Signature header is missing or is not the HMAC-SHA256 of the body with the cluster's key" : `cluster ${name} has no key: add one with "fluxgate serve cluster-key add --cluster ${name}"`;
      throw new HttpError(401, why);
    }
    const wait = limiter.take(name, Date.now());
    if (wait > 0) {
      service.metrics.rateLimited.inc();
      throw new HttpError(429, `cluster ${name} sent too many events; try again in ${wait}s`, { headers: { "Retry-After": String(wait) } });
    }
    const receivedAt = service.now();
    const event = pushedEventOf(name, body, receivedAt);
    // Answered once the event is durable: notification-controller retries what is not acknowledged.
    if ("heard" in event) {
      await push.store.heard(name, receivedAt);
      return c.json({ cluster: name, outcome: "heard" }, 202);
    }
    return c.json({ cluster: name, outcome: await push.store.record(event) }, 202);
  });

  app.get("/api/v1/fleet/status", async (c) => {
    authorizeRead(c);
    const push = service.push;
    if (push === null) throw new HttpError(404, OFF);
    const fleet = await service.repository.fleet();
    // ?selector=ring=prod,region in (eu): the clusters whose fluxgate.yaml labels match.
    const text = c.req.query("selector");
    const selector = text === undefined ? null : inContext({ field: "selector", as: InputError }, () => parseSelector(text, "selector"));
    const names = fleet.clusters.filter((k) => selector === null || matchesSelector(selector, k.entry.labels ?? {})).map((k) => k.entry.name);
    return c.json({ ...(text === undefined ? {} : { selector: text }), ...fleetPushStatus(names, await push.store.fleet(), service.now(), push.staleAfterMs) });
  });
}
