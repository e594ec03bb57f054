// Who the caller is (/me: the token's name, role and permissions) and the calendar token made from their token (/calendar-token).

import { Hono } from "hono";
import { authorize } from "../http/auth.ts";
import { HttpError } from "../http/errors.ts";
import { allows, calendarTokenFor } from "../http/tokens.ts";
import type { Env } from "../service.ts";

/** The caller's routes, mounted under API_PREFIX. */
export function meRoutes(): Hono<Env> {
  const routes = new Hono<Env>();
  routes.get(`/me`, (c) => {
    const me = c.get("identity");
    const permissions = (["read", "write-windows", "write-overrides", "deliver-directly"] as const).filter((p) => allows(me.role, p));
    return c.json({ name: me.name, role: me.role, anonymous: me.anonymous, permissions });
  });

  routes.get(`/calendar-token`, (c) => {
    const me = authorize(c, "read");
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "")?.[1];
    if (me.anonymous || presented === undefined)
      throw new HttpError(401, "a calendar token is made from your token: sign in with one", { headers: { "WWW-Authenticate": 'Bearer realm="fluxgate"' } });
    return c.json({
      token: calendarTokenFor(presented),
      scope: "calendar",
      note: "reads the .ics calendar feeds and nothing else; it stops working when the token it was made from is replaced",
    });
  });
  return routes;
}
