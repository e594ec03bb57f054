// Status: a cluster's (live and pushed, each target from the newest), the fleet's pushed status and its waiting changes, and the event receiver (POST /clusters/{cluster}/events,
// signed by the cluster's key).

import { Hono } from "hono";
import { InputError, inContext } from "../../errors.ts";
import { matchesSelector, parseSelector } from "../../policy/index.ts";
import { HttpError } from "../http/errors.ts";
import { ConflictError, RemoteFailure } from "../model/errors.ts";
import type { Env, Service } from "../service.ts";
import { liveStatus, type LiveStatus, type PushedStatusView } from "../status/live.ts";
import type { ClusterModel } from "../model/model.ts";
import { liveTargets, newestSource, newestTargets, pushedTargetViews, upcomingWindows, type StatusSources, type TargetStatusView } from "../status/newest.ts";
import type { PushedCluster } from "../status/store.ts";
import { authorize, authorizeRead } from "../http/auth.ts";
import type { EventReceiver } from "../http/event-receiver.ts";
import { RECEIVER_OFF } from "../http/event-receiver.ts";
import { cluster } from "../model/lookup.ts";
import { API_PREFIX } from "../paths.ts";
import { fleetPushStatus, reportingOf } from "../status/view.ts";
import { fleetWaiting } from "../status/waiting.ts";

/** The receiver's path: callers of it authenticate with a signature, not a bearer token. */
export const EVENTS_PATH = new RegExp(`^${API_PREFIX}/clusters/[^/]+/events$`);

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
    return {
      cluster: name,
      live: false,
      message,
      pushed,
      targets: newestTargets(pushedTargets, null),
      sources: { live: null, pushed: lastHeard === null ? null : { lastHeard }, newest: newestSource(null, lastHeard) },
    };
  }
  const readAt = service.now();
  let objects;
  try {
    objects = await service.live.read(name);
  } catch (e) {
    // Without pushed status the failure is the answer; with it, the cluster's own word stands in.
    if (service.push === null || !(e instanceof ConflictError || e instanceof RemoteFailure)) throw e;
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
    sources: {
      live: { context, readAt: new Date(readAt).toISOString(), error: null },
      pushed: lastHeard === null ? null : { lastHeard },
      newest: newestSource(readAt, lastHeard),
    },
  };
}

/**
 * Each cluster with a context, read live within FLEET_LIVE_TIMEOUT_MS, its targets from the newest source; a cluster that cannot be read is left to what it
 * pushed.
 */
async function liveOfFleet(
  service: Service,
  names: readonly string[],
  pushed: readonly PushedCluster[],
): Promise<Map<string, { targets: TargetStatusView[]; readAt: number }>> {
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
  return {
    cluster,
    reporting: reportingOf(pushed, service.now(), push.staleAfterMs),
    lastHeard: pushed?.lastHeard ?? null,
    targets: pushedTargetViews(pushed?.targets ?? [], service.now(), push.staleAfterMs),
    upcoming: upcomingWindows(pushed?.targets ?? [], service.now()),
  };
}

/**
 * The status routes (a cluster's status, the fleet's pushed status) and the receiver's route,
 * mounted under API_PREFIX. The server's own listener also gives `receiver` the posts it reads
 * straight from Node's request (http/node-receiver.ts).
 */
export function statusRoutes(service: Service, receiver: EventReceiver): Hono<Env> {
  const routes = new Hono<Env>();
  const { repository } = service;
  routes.get(`/clusters/:cluster/status`, async (c) => {
    authorize(c, "read");
    // Live (a context) and pushed status, and each target from the newest of them.
    return c.json(await clusterStatus(service, cluster(await repository.fleet(), c.req.param("cluster"))));
  });

  routes.post("/clusters/:cluster/events", async (c) => {
    const name = c.req.param("cluster");
    await receiver.known(name);
    const body = new Uint8Array(await c.req.arrayBuffer());
    return c.json(await receiver.receive(name, body, c.req.header("x-signature")), 202);
  });

  routes.get("/fleet/status", async (c) => {
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

  routes.get("/fleet/waiting", async (c) => {
    authorizeRead(c);
    const push = service.push;
    if (push === null) throw new HttpError(404, RECEIVER_OFF);
    const fleet = await service.repository.fleet();
    const text = c.req.query("selector");
    const selector = text === undefined ? null : inContext({ field: "selector", as: InputError }, () => parseSelector(text, "selector"));
    const clusters = fleet.clusters
      .filter((k) => selector === null || matchesSelector(selector, k.entry.labels ?? {}))
      .map((k) => ({ name: k.entry.name, timeZone: k.entry.timeZone }));
    const waiting = fleetWaiting(clusters, await push.store.fleet(), service.now(), push.staleAfterMs);
    return c.json({ ...(text === undefined ? {} : { selector: text }), ...waiting });
  });
  return routes;
}
