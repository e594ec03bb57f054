// The clusters of fluxgate.yaml (/clusters): a page of them, with their labels, optionally those a selector matches.

import { Hono } from "hono";
import { authorize } from "../http/auth.ts";
import { clusterPage } from "../http/paging.ts";
import type { Env, Service } from "../service.ts";

/** The cluster listing, mounted under API_PREFIX. */
export function clusterRoutes(service: Service): Hono<Env> {
  const routes = new Hono<Env>();
  const { repository } = service;
  routes.get(`/clusters`, async (c) => {
    authorize(c, "read");
    const page = clusterPage(c, await repository.fleet());
    return c.json({
      ...(page.selector === null ? {} : { selector: page.selector }),
      clusters: page.clusters.map((k) => ({ name: k.entry.name, path: k.entry.path, timeZone: k.entry.timeZone, labels: k.entry.labels ?? {} })),
      total: page.total,
      continue: page.continue,
    });
  });
  return routes;
}
