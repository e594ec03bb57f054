// The clusters of fluxgate.yaml (/clusters): a page of them, with their labels, optionally those a selector matches. The answer is JSON with one cluster a
// line (clusterListJson), so the dashboard parses a fleet's list a slice at a time (dashboard/client/api.ts, parseClusterList).

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
    const body = clusterListJson(
      page.selector === null ? {} : { selector: page.selector },
      page.clusters.map((k) => ({ name: k.entry.name, path: k.entry.path, timeZone: k.entry.timeZone, labels: k.entry.labels ?? {} })),
      { total: page.total, continue: page.continue },
    );
    return c.body(body, 200, { "Content-Type": "application/json" });
  });
  return routes;
}

/**
 * `{...head, "clusters": [...], ...tail}` as JSON with each cluster on a line of its own: `"clusters":[` ends the first line, `]` begins the last, a
 * cluster a line between (JSON writes a newline inside a string as `\n`, so every line break is one of these).
 */
export function clusterListJson(head: Record<string, unknown>, clusters: readonly unknown[], tail: Record<string, unknown>): string {
  const before = JSON.stringify(head);
  const after = JSON.stringify(tail);
  const open = before === "{}" ? `{"clusters":[` : `${before.slice(0, -1)},"clusters":[`;
  const close = after === "{}" ? "]}" : `],${after.slice(1)}`;
  return `${open}\n${clusters.map((k) => JSON.stringify(k)).join(",\n")}\n${close}`;
}
