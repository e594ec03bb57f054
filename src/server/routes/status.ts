// The event receiver (POST /clusters/{cluster}/events, signed by the cluster's key) and the fleet's pushed status.

import type { Context, Hono } from "hono";
import { InputError, inContext } from "../../errors.ts";
import { matchesSelector, parseSelector } from "../../policy/index.ts";
import { HttpError } from "../http/errors.ts";
import type { Env, Service } from "../service.ts";
import { liveStatus, type LiveStatus, type PushedStatusView } from "../status/live.ts";
import type { ClusterModel } from "../model/model.ts";
import { liveTargets, newestSource, newestTargets, pushedTargetViews, type StatusSources, type TargetStatusView } from "../status/newest.ts";
import type { PushedCluster } from "../status/store.ts";
import { EventReceiver, EVENTS_ROUTE, RECEIVER_OFF } from "../http/event-receiver.ts";
import { fleetPushStatus, reportingOf } from "../status/view.ts";

/** The receiver's path: callers of it authenticate with a signature, not a bearer token. */
export const EVENTS_PATH = /^\/api\/v1\/clusters\/[^/]+\/events$/;

/** How long the fleet status waits for a cluster's live read before it answers with what the cluster pushed. */
export const FLEET_LIVE_TIMEOUT_MS = 2_000;

/**
 * GET /clusters/{cluster}/status: the live status (a context), what the cluster pushed, and each
 * target from the newest of them (`targets`, each saying its `source`). With the receiver on, a
 * live read that fails still answers, from what the cluster pushed, saying why (`sources.live.error`).
 */
export async function clusterStatus(service: Service, k: ClusterModel): Promise<LiveStatus & { targets: TargetStatusView[]; sources: StatusSources }> {
  const name = k.entry.name;
  const context = service.live?.contextOf(name) ?? null;
  const stored = service.push === null ? null : await service.push.store.cluster(name);
  const pushed = await pushedStatusOf(service, name, stored);
  const pushedTargets = stored?.targets ?? [];
  const lastHeard = stored?.lastHeard ?? null;
  if (service.live === null || context === null) {
    const message = `no live connection: start the service with --cluster-context ${name}=CONTEXT to see the cluster's windows, targets and pending revisions`;
    return { cluster: name, live: false, message, pushed, targets: newestTargets(pushedTargets, null), sources: { live: null, pushed: lastHeard === null ? null : { lastHeard }, newest: newestSource(null, lastHeard) } };
  }
  const readAt = service.now();
  let objects;
  try {
    objects = await service.live.read(name);
  } catch (e) {
    // Without pushed status the failure is the answer; with it, the cluster's own word stands in.
    if (service.push === null || !(e instanceof HttpError)) throw e;
    return {
      cluster: name,
      live: false,
      message: `the live read failed; showing what the cluster pushed: ${e.message}`,
      pushed,
      targets: newestTargets(pushedTargets, null),
      sources: { live: { context, readAt: null, error: e.message }, pushed: lastHeard === null ? null : { lastHeard }, newest: newestSource(null, lastHeard) },
    };
  }
  return {
    ...liveStatus(k, context, objects),
    pushed,
    targets: newestTargets(pushedTargets, { targets: liveTargets(objects, pushedTargets, readAt), readAt }),
    sources: { live: { context, readAt: new Date(readAt).toISOString(), error: null }, pushed: lastHeard === null ? null : { lastHeard }, newest: newestSource(readAt, lastHeard) },
  };
}

/** Each cluster with a context, read live within FLEET_LIVE_TIMEOUT_MS, its targets from the newest source; a cluster that cannot be read is left to what it pushed. */
async function liveOfFleet(service: Service, names: readonly string[], pushed: readonly PushedCluster[]): Promise<Map<string, { targets: TargetStatusView[]; readAt: number }>> {
  const live = service.live;
  const out = new Map<string, { targets: TargetStatusView[]; readAt: number }>();
  if (live === null) return out;
  await Promise.all(
    names
      .filter((n) => live.contextOf(n) !== null)
      .map(async (name) => {
        const readAt = service.now();
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), FLEET_LIVE_TIMEOUT_MS)));
        const objects = await Promise.race([live.read(name).catch(() => null), timeout]);
        clearTimeout(timer);
        if (objects === null) return;
        const pushedTargets = pushed.find((p) => p.cluster === name)?.targets ?? [];
        out.set(name, { targets: newestTargets(pushedTargets, { targets: liveTargets(objects, pushedTargets, readAt), readAt }), readAt });
      }),
  );
  return out;
}

/** A cluster's pushed status as GET /clusters/{cluster}/status shows it, or null when the receiver is off. */
export async function pushedStatusOf(service: Service, cluster: string, stored?: PushedCluster | null): Promise<PushedStatusView> {
  const push = service.push;
  if (push === null) return null;
  const pushed = stored === undefined ? await push.store.cluster(cluster) : stored;
  return { cluster, reporting: reportingOf(pushed, service.now(), push.staleAfterMs), lastHeard: pushed?.lastHeard ?? null, targets: pushedTargetViews(pushed?.targets ?? [], service.now(), push.staleAfterMs) };
}

/**
 * The receiver's route and the fleet's pushed status. Returns the receiver, which the server's own
 * listener also uses for posts it reads straight from Node's request (node-receiver.ts).
 */
export function pushRoutes(app: Hono<Env>, service: Service, authorizeRead: (c: Context<Env>) => void): EventReceiver {
  const receiver = new EventReceiver(service);

  app.post(EVENTS_ROUTE, async (c) => {
    const name = c.req.param("cluster");
    await receiver.known(name);
    const body = new Uint8Array(await c.req.arrayBuffer());
    return c.json(await receiver.receive(name, body, c.req.header("x-signature")), 202);
  });

  app.get("/api/v1/fleet/status", async (c) => {
    authorizeRead(c);
    const push = service.push;
    if (push === null) throw new HttpError(404, RECEIVER_OFF);
    const fleet = await service.repository.fleet();
    // ?selector=ring=prod,region in (eu): the clusters whose fluxgate.yaml labels match.
    const text = c.req.query("selector");
    const selector = text === undefined ? null : inContext({ field: "selector", as: InputError }, () => parseSelector(text, "selector"));
    const names = fleet.clusters.filter((k) => selector === null || matchesSelector(selector, k.entry.labels ?? {})).map((k) => k.entry.name);
    const pushed = await push.store.fleet();
    const live = await liveOfFleet(service, names, pushed);
    return c.json({ ...(text === undefined ? {} : { selector: text }), ...fleetPushStatus(names, pushed, service.now(), push.staleAfterMs, live) });
  });
  return receiver;
}
