// The repository the service reads and writes (/repository): its commit, branch, remote and sync state.

import { Hono } from "hono";
import { authorize } from "../http/auth.ts";
import type { Env, Service } from "../service.ts";

/** The repository route, mounted under API_PREFIX. */
export function repositoryRoutes(service: Service): Hono<Env> {
  const routes = new Hono<Env>();
  const { repository } = service;
  routes.get(`/repository`, async (c) => {
    authorize(c, "read");
    const fleet = await repository.fleet();
    return c.json({
      commit: fleet.commit,
      branch: repository.branch,
      remote: repository.hasRemote,
      lastSyncError: repository.lastSyncError,
      lastReset: repository.lastReset,
      types: fleet.repository.types,
      // The dashboard asks for pushed status only when there is some to ask for.
      receiver: service.push !== null,
    });
  });
  return routes;
}
