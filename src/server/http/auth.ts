// Who is calling and what they may do: the bearer token (or a calendar token for .ics feeds), the rate limit, the role's permissions.

import { createHash } from "node:crypto";
import type { Context } from "hono";
import { HttpError } from "./errors.ts";
import type { RateLimiter } from "./ratelimit.ts";
import { allows, isCalendarToken, rolesFor, type Identity, type Permission } from "./tokens.ts";
import { API_PREFIX } from "../paths.ts";
import type { Env, Service, ServiceOptions } from "../service.ts";

const ANONYMOUS: Identity = { name: "anonymous", role: "viewer", email: "anonymous@fluxgate.invalid", anonymous: true };

/** The peer's address from @hono/node-server's bindings; in-process requests have none. */
function clientAddress(bindings: unknown): string {
  const incoming = (bindings as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? "local";
}

/**
 * Sets the caller's identity from the Authorization header (or, for calendar feeds, `?access_token=`,
 * which also takes a calendar token), after the rate limit; 401 when a token is needed and missing.
 */
export async function authenticate(c: Context<Env>, options: ServiceOptions, limiter: RateLimiter, service: Service): Promise<void> {
  // Calendar apps cannot send headers: the feed also takes the token as ?access_token= (RFC 6750 §2.3).
  const queryToken = c.req.path.endsWith("/calendar.ics") ? c.req.query("access_token") : undefined;
  const header = c.req.header("authorization") ?? (queryToken === undefined ? undefined : `Bearer ${queryToken}`);
  const key = header === undefined ? `ip:${clientAddress(c.env)}` : `token:${createHash("sha256").update(header).digest("hex").slice(0, 16)}`;
  const wait = limiter.take(key, Date.now());
  if (wait > 0) {
    service.metrics.rateLimited.inc();
    throw new HttpError(429, `too many requests; try again in ${wait}s`, { headers: { "Retry-After": String(wait) } });
  }
  if (header === undefined) {
    const read = c.req.method === "GET" || c.req.method === "HEAD" || (c.req.method === "POST" && c.req.path === `${API_PREFIX}/preview`);
    if (!(options.anonymousRead && read)) {
      throw new HttpError(401, 'this API needs a bearer token: send "Authorization: Bearer TOKEN" (create one with "fluxgate serve token add")', {
        headers: { "WWW-Authenticate": 'Bearer realm="fluxgate"' },
      });
    }
    c.set("identity", ANONYMOUS);
    return;
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const presented = match?.[1] ?? null;
  if (presented !== null && isCalendarToken(presented) && !c.req.path.endsWith("/calendar.ics")) {
    throw new HttpError(401, 'a calendar token only reads calendar feeds (.ics); use a token from "fluxgate serve token add" here', {
      headers: { "WWW-Authenticate": 'Bearer realm="fluxgate", error="insufficient_scope"' },
    });
  }
  const identity = presented === null || options.tokens === null ? null : await options.tokens.verify(presented);
  if (identity === null) {
    throw new HttpError(401, match === null ? 'the Authorization header must be "Bearer TOKEN"' : "the token is not valid: it is unknown or was replaced", {
      headers: { "WWW-Authenticate": 'Bearer realm="fluxgate", error="invalid_token"' },
    });
  }
  c.set("identity", identity);
}

export async function noQuery(c: Context<Env>, next: () => Promise<void>): Promise<void> {
  const names = Object.keys(c.req.queries());
  if (names.length > 0) throw new HttpError(400, `${c.req.path} takes no query parameters (got ${names.slice(0, 5).join(", ")})`);
  await next();
}

/** Refuses anonymous callers (without --anonymous-read) and roles that may not read. */
export function authorizeRead(c: Context<Env>): void {
  const identity = c.get("identity");
  if (!allows(identity.role, "read")) throw new HttpError(403, `token "${identity.name}" may not read`);
}

/** Refuses the request unless the caller's role grants `permission`. */
export function authorize(c: Context<Env>, permission: Permission): Identity {
  const identity = c.get("identity");
  if (!allows(identity.role, permission)) {
    const what: Record<Permission, string> = {
      read: "read",
      "write-windows": "change windows",
      "write-overrides": "create overrides",
      "deliver-directly": 'deliver overrides directly to a cluster ("delivery": "direct")',
    };
    const who = identity.anonymous ? "anonymous callers" : `token "${identity.name}" (role ${identity.role})`;
    throw new HttpError(
      identity.anonymous ? 401 : 403,
      `${who} may not ${what[permission]}; that needs a token with role ${rolesFor(permission).join(" or ")}`,
      {
        headers: identity.anonymous ? { "WWW-Authenticate": 'Bearer realm="fluxgate"' } : {},
      },
    );
  }
  return identity;
}
