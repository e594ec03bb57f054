// The calendar feeds (.ics) of a cluster, one of its targets, or the fleet: what calendar apps subscribe to.

import { Hono } from "hono";
import { inWorker } from "../engine/workers.ts";
import { authorize } from "../http/auth.ts";
import { KeptByBytes } from "../model/kept.ts";
import { HttpError } from "../http/errors.ts";
import { selectedClusters } from "../http/paging.ts";
import { calendarRange } from "../http/request.ts";
import { cluster } from "../model/lookup.ts";
import { checkObjectName } from "../model/names.ts";
import type { Env, Service } from "../service.ts";
import { fleetCalendarInput, type FleetCalendarOutcome } from "../views/fleet-calendar.ts";
import { clusterCalendar, targetCalendar } from "../views/ics.ts";
import { timelineSourceOf } from "../views/timeline.ts";

/** The calendar routes, mounted under API_PREFIX. */
export function calendarRoutes(service: Service): Hono<Env> {
  const routes = new Hono<Env>();
  const { repository } = service;
  // Fleet feeds already made, by commit and request (selector, window, range): a feed depends on
  // nothing else, so calendar apps polling the same address get the bytes made for the first of
  // them (its DTSTAMP says when that was). A refused feed is not kept.
  const calendars = new KeptByBytes<FleetCalendarOutcome>(64 * 1024 * 1024);
  routes.get(`/clusters/:cluster/calendar.ics`, async (c) => {
    authorize(c, "read");
    const k = cluster(await repository.fleet(), c.req.param("cluster"));
    const now = service.now();
    const { from, to } = calendarRange(c, now);
    const target = c.req.query("target");
    if (target === undefined) {
      const text = clusterCalendar(k, { now, from, to, version: service.version });
      return c.body(text, 200, { "Content-Type": "text/calendar; charset=utf-8", "Content-Disposition": `inline; filename="${k.entry.name}.ics"` });
    }
    // One target: when it may take changes, from all its windows and overrides (what the controller decides).
    const text = targetCalendar(timelineSourceOf(k), target, { now, from, to, version: service.version });
    if (text === null)
      throw new HttpError(
        404,
        `no window of cluster ${k.entry.name} selects target "${target.slice(0, 200)}": give KIND/NAMESPACE/NAME of a target in the cluster's timeline, e.g. Kustomization/flux-system/apps`,
      );
    return c.body(text, 200, {
      "Content-Type": "text/calendar; charset=utf-8",
      "Content-Disposition": `inline; filename="${k.entry.name}-${target.replace(/[^A-Za-z0-9._-]+/g, "-")}.ics"`,
    });
  });

  routes.get(`/fleet/calendar.ics`, async (c) => {
    authorize(c, "read");
    const fleet = await service.repository.fleet();
    const { clusters, selector } = selectedClusters(c, fleet);
    const window = c.req.query("window");
    if (window !== undefined) {
      checkObjectName(window, "window");
      if (!clusters.some((k) => k.windows.some((w) => w.name === window))) {
        const names = [...new Set(clusters.flatMap((k) => k.windows.map((w) => w.name)))].sort();
        throw new HttpError(
          404,
          `no ${selector === null ? "cluster" : `cluster matching ${selector}`} has a window "${window}" (windows: ${names.join(", ") || "none"})`,
        );
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
  return routes;
}
