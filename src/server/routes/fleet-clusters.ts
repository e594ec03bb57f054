// The fleet's page of clusters (/fleet/clusters): each with its windows' state, live and pushed status, in one call (what a fleet dashboard draws a page from).

import { Hono } from "hono";
import { overrideStage } from "../../policy/index.ts";
import { authorize } from "../http/auth.ts";
import { clusterPage, FLEET_PAGE } from "../http/paging.ts";
import type { ClusterModel } from "../model/model.ts";
import type { Env, Service } from "../service.ts";
import { liveStatus, type LiveStatus } from "../status/live.ts";
import { fleetPushStatus, type ClusterPushView } from "../status/view.ts";
import { ClusterStates, type WindowStateView } from "../views/window-states.ts";

/** How many clusters' live status are read at once. */
const LIVE_READS = 8;

/** A cluster of a GET /fleet/clusters page. */
export interface FleetClusterView {
  name: string;
  path: string;
  timeZone: string;
  labels: Record<string, string>;
  /** Each window's state now, as GET /clusters/{cluster}/windows gives it. */
  windows: WindowStateView[];
  /** The overrides in force now. */
  activeOverrides: number;
  /** What the cluster itself says (--cluster-context), or null without a context for it; `{ live: false, error }` when reading it failed. */
  live: LiveStatus | { live: false; error: string } | null;
  /** What the cluster pushed (--cluster-keys), or null when the service receives no events. */
  pushed: ClusterPushView | null;
}

/** Runs `fn` over `items`, at most `limit` at once, keeping their order. */
async function mapPooled<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i] as T);
      }
    }),
  );
  return out;
}

async function liveOf(service: Service, k: ClusterModel): Promise<FleetClusterView["live"]> {
  const live = service.live;
  const context = live?.contextOf(k.entry.name) ?? null;
  if (live === null || context === null) return null;
  try {
    return liveStatus(k, context, await live.read(k.entry.name));
  } catch (e) {
    return { live: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/** The fleet's page of clusters, mounted under API_PREFIX. */
export function fleetClusterRoutes(service: Service): Hono<Env> {
  const routes = new Hono<Env>();
  // Each cluster's window states, kept per commit until one of them changes.
  const states = new ClusterStates();

  routes.get(`/fleet/clusters`, async (c) => {
    authorize(c, "read");
    const fleet = await service.repository.fleet();
    const page = clusterPage(c, fleet, FLEET_PAGE);
    const now = service.now();
    const push = service.push;
    const pushed =
      push === null
        ? null
        : fleetPushStatus(
            page.clusters.map((k) => k.entry.name),
            await push.store.fleet(),
            now,
            push.staleAfterMs,
          ).clusters;
    const lives = await mapPooled(page.clusters, LIVE_READS, (k) => liveOf(service, k));
    const clusters = page.clusters.map((k, i): FleetClusterView => ({
      name: k.entry.name,
      path: k.entry.path,
      timeZone: k.entry.timeZone,
      labels: k.entry.labels ?? {},
      windows: states.windows(fleet.commit, k, now),
      activeOverrides: k.overrides.filter((o) => o.input !== null && overrideStage(o.input, now) === "active").length,
      live: lives[i] ?? null,
      pushed: pushed?.[i] ?? null,
    }));
    return c.json({
      commit: fleet.commit,
      ...(page.selector === null ? {} : { selector: page.selector }),
      total: page.total,
      continue: page.continue,
      clusters,
    });
  });
  return routes;
}
