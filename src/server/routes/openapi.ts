// The API's OpenAPI 3 document (/openapi.json), which the dashboard's docs page renders.

import { Hono } from "hono";
import { openApiDocument } from "../http/openapi.ts";
import type { Env, Service } from "../service.ts";

/** The OpenAPI route, mounted at the root. */
export function openApiRoutes(service: Service): Hono<Env> {
  const routes = new Hono<Env>();
  routes.get("/openapi.json", (c) => c.json(openApiDocument(service.version)));
  return routes;
}
