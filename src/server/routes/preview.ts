// A preview of a window spec (/preview): is it valid, when does it open next, its timeline; computed in a worker thread.

import { Hono } from "hono";
import { previewInWorker } from "../engine/preview.ts";
import { authorize } from "../http/auth.ts";
import { bodyOf, PreviewBody } from "../http/bodies.ts";
import { HttpError } from "../http/errors.ts";
import { jsonBody, parseInstant } from "../http/request.ts";
import type { Env, Service } from "../service.ts";
import { TIMELINE_MAX_DAYS } from "./timeline.ts";

/** The preview route, mounted under API_PREFIX. */
export function previewRoutes(service: Service): Hono<Env> {
  const routes = new Hono<Env>();
  routes.post(`/preview`, async (c) => {
    authorize(c, "read");
    const body = bodyOf(PreviewBody, await jsonBody(c));
    const now = service.now();
    const from = body.from === undefined ? Math.floor(now / 60_000) * 60_000 : parseInstant(body.from, "from");
    const to = body.to === undefined ? from + 7 * 86_400_000 : parseInstant(body.to, "to");
    if (to <= from || to - from > TIMELINE_MAX_DAYS * 86_400_000) throw new HttpError(400, `to must be after from, at most ${TIMELINE_MAX_DAYS} days`);
    // The engine's work runs in a worker thread: a preview of a minute-level window over 93 days must not hold the event loop.
    const outcome = await previewInWorker({ spec: body.spec, from, to, count: body.count ?? 5, now });
    if (!outcome.ok) throw new HttpError(outcome.status, outcome.message, { problems: outcome.problems });
    return c.body(outcome.json, 200, { "Content-Type": "application/json" });
  });
  return routes;
}
