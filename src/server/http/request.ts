// Request helpers shared by the routes: JSON bodies, time ranges and ETags, each failing with a clear HttpError.

import type { Context } from "hono";
import { requestReason } from "../../api/index.ts";
import type { Env } from "../service.ts";
import { parseInstant as readInstant } from "../../policy/index.ts";
import { inContext } from "../../errors.ts";
import { HttpError } from "./errors.ts";

const DAY = 86_400_000;
const CALENDAR_BACK_MS = 14 * DAY;
const CALENDAR_AHEAD_DAYS = 92;

/** The JSON body of a request, which must be an object. */
export async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) throw new HttpError(415, 'send the body as JSON with "Content-Type: application/json"');
  let body: unknown;
  try {
    body = await c.req.json();
  } catch (e) {
    throw new HttpError(400, `the body is not valid JSON: ${(e as Error).message}`, { cause: e });
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new HttpError(400, "the body must be a JSON object");
  return body as Record<string, unknown>;
}

/** An RFC 3339 instant from a query parameter or body field (400 when it is not one). */
export function parseInstant(text: string, name: string): number {
  return inContext({ field: `${name}=${text}` }, () => readInstant(text));
}

/**
 * The `[from, to)` range of a request: `from` defaults to `now` (to the minute), `to` to `from` plus
 * `days`; at most `maxDays` long.
 */
export function rangeOf(c: Context, now: number, days: number, maxDays: number): { from: number; to: number } {
  const fromText = c.req.query("from");
  const toText = c.req.query("to");
  const from = fromText === undefined ? Math.floor(now / 60_000) * 60_000 : parseInstant(fromText, "from");
  const to = toText === undefined ? from + days * DAY : parseInstant(toText, "to");
  if (to <= from) throw new HttpError(400, `to=${toText ?? ""} must be after from`);
  if (to - from > maxDays * DAY) throw new HttpError(400, `the range from ${fromText ?? "now"} to ${toText ?? ""} is longer than ${maxDays} days`);
  return { from, to };
}

/** The entity tags of an If-Match or If-None-Match header: `*`, or the ids without quotes. */
export function entityTags(header: string | undefined): string[] | null {
  if (header === undefined) return null;
  return header
    .split(",")
    .map((t) =>
      t
        .trim()
        .replace(/^W\//, "")
        .replace(/^"(.*)"$/, "$1"),
    )
    .filter((t) => t !== "");
}

/** If-Match and If-None-Match against the ETag of what the request changes (null: it does not exist). */
export function checkPreconditions(c: Context<Env>, etag: string | null, what = "window"): void {
  const ifMatch = entityTags(c.req.header("if-match"));
  const ifNoneMatch = entityTags(c.req.header("if-none-match"));
  if (ifMatch !== null && !(etag !== null && (ifMatch.includes("*") || ifMatch.includes(etag)))) {
    throw new HttpError(
      412,
      etag === null
        ? `the ${what} does not exist any more (If-Match)`
        : `the ${what} changed since you read it (it is now at "${etag}"); read it again and redo your change`,
    );
  }
  if (ifNoneMatch !== null && etag !== null && (ifNoneMatch.includes("*") || ifNoneMatch.includes(etag))) {
    throw new HttpError(412, `the ${what} already exists (If-None-Match)`);
  }
}

/** The reason of a DELETE: `?reason=` or a JSON body `{"reason"}`; 400 when missing. */
export async function reasonOf(c: Context<Env>): Promise<string> {
  const fromBody = (c.req.header("content-type") ?? "").startsWith("application/json") ? (await jsonBody(c)).reason : undefined;
  return requestReason(c.req.query("reason") ?? fromBody, 'say why: ?reason=... or a JSON body {"reason": "..."}; it goes into the commit message');
}

/** The range of a calendar feed: `?from=` (default: two weeks before today) to `?to=` (default: 92 days after today; at most 400 days). */
export function calendarRange(c: Context<Env>, now: number): { from: number; to: number } {
  const day = Math.floor(now / 86_400_000) * 86_400_000;
  const from = c.req.query("from") === undefined ? day - CALENDAR_BACK_MS : parseInstant(c.req.query("from") as string, "from");
  const { to } = c.req.query("to") === undefined ? { to: day + CALENDAR_AHEAD_DAYS * 86_400_000 } : rangeOf(c, now, 0, 400);
  return { from, to };
}
