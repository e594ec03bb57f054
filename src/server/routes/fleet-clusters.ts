// The fleet routes of the API: a page of clusters with their state in one call (what a fleet dashboard draws a page from), and the fleet's calendar feed.

import type { Hono } from "hono";
import { overrideStage } from "../../policy/index.ts";
import { HttpError } from "../http/errors.ts";
import { clusterPage, selectedClusters } from "../http/paging.ts";
import { inWorker } from "../engine/workers.ts";
import { KeptByBytes } from "../http/encoded.ts";
import { fleetCalendarInput, type FleetCalendarOutcome } from "../views/fleet-calendar.ts";
import { liveStatus, type LiveStatus } from "../status/live.ts";
import type { ClusterModel } from "../model/model.ts";
import { fleetPushStatus, type ClusterPushView } from "../status/view.ts";
import { checkObjectName } from "../model/names.ts";
import { authorize, calendarRange } from "./clusters.ts";
import type { Env, Service } from "../service.ts";
import { ClusterStates, type WindowStateView } from "../views/window-states.ts";

/** The default page of GET /fleet/clusters. */
export const FLEET_PAGE = 50;

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

/** Registers the fleet routes. */
export function fleetRoutes(app: Hono<Env>, service: Service): void {
  const api = "/api/v1";
  // Each cluster's window states, kept per commit until one of them changes.
  const states = new ClusterStates();

  app.get(`${api}/fleet/clusters`, async (c) => {
    authorize(c, "read");
    const fleet = await service.repository.fleet();
    const page = clusterPage(c, fleet, FLEET_PAGE);
    const now = service.now();
    const push = service.push;
    const pushed = push === null ? null : fleetPushStatus(page.clusters.map((k) => k.entry.name), await push.store.fleet(), now, push.staleAfterMs).clusters;
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
    return c.json({ commit: fleet.commit, ...(page.selector === null ? {} : { selector: page.selector }), total: page.total, continue: page.continue, clusters });
  });

  // Fleet feeds already made, by commit and request (selector, window, range): a feed depends on
  // nothing else, so calendar apps polling the same address get the bytes made for the first of
  // them (its DTSTAMP says when that was). A refused feed is not kept.
  const calendars = new KeptByBytes<FleetCalendarOutcome>(64 * 1024 * 1024);
  app.get(`${api}/fleet/calendar.ics`, async (c) => {
    authorize(c, "read");
    const fleet = await service.repository.fleet();
    const { clusters, selector } = selectedClusters(c, fleet);
    const window = c.req.query("window");
    if (window !== undefined) {
      checkObjectName(window, "window");
      if (!clusters.some((k) => k.windows.some((w) => w.name === window))) {
        const names = [...new Set(clusters.flatMap((k) => k.windows.map((w) => w.name)))].sort();
        throw new HttpError(404, `no ${selector === null ? "cluster" : `cluster matching ${selector}`} has a window "${window}" (windows: ${names.join(", ") || "none"})`);
      }
    }
    const now = service.now();
    const { from, to } = calendarRange(c, now);
    const title = `fluxgate windows of ${selector === null ? "the fleet" : `the clusters ${selector}`}${window === undefined ? "" : `, window ${window}`}`;
    // Grouped here in slices; evaluated and written in a worker thread: a large fleet's feed must not hold the event loop.
    const key = JSON.stringify([fleet.commit, selector, window ?? null, from, to]);
    const outcome = await calendars.get(
      key,
      async () => inWorker("calendar", await fleetCalendarInput(clusters, { now, from, to, version: service.version, title, window })),
      (made) => (made.ok ? made.ics.byteLength : null),
    );
    if (!outcome.ok) throw new HttpError(400, outcome.message);
    return c.body(outcome.ics, 200, { "Content-Type": "text/calendar; charset=utf-8", "Content-Disposition": 'inline; filename="fleet.ics"' });
  });
}
