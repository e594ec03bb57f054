// The timelines (/clusters/{cluster}/timeline, /timeline): when each window and target may take changes over a range, computed in worker threads.

import { Hono, type Context } from "hono";
import { authorize } from "../http/auth.ts";
import { EncodedAnswers, keptJsonResponse } from "../http/encoded.ts";
import { clusterPage } from "../http/paging.ts";
import { rangeOf } from "../http/request.ts";
import { cluster } from "../model/lookup.ts";
import type { Env, Service } from "../service.ts";
import type { ClusterPage, Fleet } from "../model/model.ts";
import { clusterTimelineJson, fleetTimelineJson } from "../views/timeline.ts";

/** The longest range of a timeline, in days. */
export const TIMELINE_MAX_DAYS = 93;

/** The timeline routes, mounted under API_PREFIX. */
export function timelineRoutes(service: Service): Hono<Env> {
  const routes = new Hono<Env>();
  const { repository } = service;
  // The fleet timeline's pages, kept compressed per commit, range and page.
  const fleetTimelines = new EncodedAnswers();
  routes.get(`/clusters/:cluster/timeline`, async (c) => {
    authorize(c, "read");
    const k = cluster(await repository.fleet(), c.req.param("cluster"));
    const { from, to } = rangeOf(c, service.now(), 7, TIMELINE_MAX_DAYS);
    // Computed in a worker thread: a minute-level window over 93 days must not hold the event loop.
    return c.body(await clusterTimelineJson(k, from, to), 200, { "Content-Type": "application/json" });
  });

  routes.get(`/timeline`, async (c) => {
    authorize(c, "read");
    const fleet = await repository.fleet();
    const { from, to } = rangeOf(c, service.now(), 7, TIMELINE_MAX_DAYS);
    const page = clusterPage(c, fleet);
    // Each cluster's timeline is computed in a worker thread; the event loop only joins their bytes.
    return await fleetTimelineResponse(c, fleetTimelines, fleet, page, from, to);
  });
  return routes;
}

/** The answer of GET /timeline for a page: kept per commit, range and page (its bytes depend on nothing else). */
async function fleetTimelineResponse(c: Context, answers: EncodedAnswers, fleet: Fleet, page: ClusterPage, from: number, to: number): Promise<Response> {
  const key = [fleet.commit, from, to, page.selector ?? "", page.total, page.continue ?? "", page.clusters.map((k) => k.entry.name).join(",")].join("\0");
  return await keptJsonResponse(c, answers, key, () => fleetTimelineJson(fleet, page, from, to));
}
