// Flux's event JSON as a generic-hmac Provider posts it, read into what the status store keeps.

import { z } from "zod";
import { EVENT_COMPONENT, EVENT_METADATA as KEY } from "../../api/constants.ts";
import { HttpError } from "./errors.ts";
import type { PushedEvent } from "../status/store.ts";

/** An event may be at most this far ahead of the service's clock: one from the future would hide every newer one. */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

const Short = z.string().max(253);

/** fluxcd/pkg's event v1beta1, as notification-controller forwards it; fields it may add later are ignored. */
const FluxEventSchema = z.object({
  involvedObject: z.object({ kind: z.string().min(1).max(63), namespace: Short.optional(), name: z.string().min(1).max(253), apiVersion: Short.optional() }),
  severity: z.enum(["info", "error", "trace"]),
  timestamp: z.string().min(1).max(64),
  message: z.string().max(4096),
  reason: z.string().min(1).max(128),
  metadata: z.record(z.string().max(253), z.string().max(1024)).optional(),
  reportingController: z.string().max(253).optional(),
});

/**
 * The metadata keys fluxgate's controller sends, as a Provider receives them: notification-controller
 * strips the involved object's API group (`kustomize.toolkit.fluxcd.io/state` arrives as `state`);
 * a prefixed key is read too, for events posted to the service directly.
 */
function metadataOf(raw: Record<string, string> | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(raw ?? {})) out.set(k.slice(k.lastIndexOf("/") + 1), v);
  return out;
}

/**
 * Reads a pushed body into an event of `cluster`; 400 naming the problem when it is not Flux's
 * event JSON or its time cannot be used.
 */
export function pushedEventOf(cluster: string, body: Uint8Array, receivedAt: number): PushedEvent | { heard: true } {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    throw new HttpError(400, "the body is not JSON: post Flux's event JSON (a Provider of type generic-hmac does)");
  }
  const parsed = FluxEventSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HttpError(400, `the body is not a Flux event: ${issue === undefined ? "invalid" : `${issue.path.join(".") || "body"}: ${issue.message}`}`, {
      problems: parsed.error.issues.slice(0, 10).map((i) => ({ path: i.path.join("."), message: i.message })),
    });
  }
  const e = parsed.data;
  // Flux's own controllers' events reach the receiver through the same Alert: they say the cluster is there, nothing more.
  if (e.reportingController !== undefined && e.reportingController !== EVENT_COMPONENT) return { heard: true };
  const eventAt = Date.parse(e.timestamp);
  if (!Number.isFinite(eventAt)) throw new HttpError(400, `timestamp ${JSON.stringify(e.timestamp.slice(0, 64))}: not an RFC 3339 time`);
  if (eventAt > receivedAt + MAX_CLOCK_SKEW_MS) {
    throw new HttpError(
      400,
      `timestamp ${e.timestamp} is more than ${MAX_CLOCK_SKEW_MS / 60_000} minutes ahead of this service's clock: check the cluster's clock`,
    );
  }
  const m = metadataOf(e.metadata);
  const text = (key: string): string | null => m.get(key) ?? null;
  return {
    cluster,
    kind: e.involvedObject.kind,
    namespace: e.involvedObject.namespace ?? "",
    name: e.involvedObject.name,
    eventAt,
    receivedAt,
    reason: e.reason,
    severity: e.severity === "error" ? "error" : "info",
    message: e.message,
    state: text(KEY.state),
    windows: text(KEY.windows),
    nextChange: text(KEY.nextChange),
    pendingRevision: text(KEY.pendingRevision),
    pendingSince: text(KEY.pendingSince),
    appliedRevision: text(KEY.revision),
    since: text(KEY.since),
    suspended: text(KEY.suspended),
    gated: text(KEY.gated),
    violation: text(KEY.violation),
    upcoming: text(KEY.upcoming),
    upcomingAt: text(KEY.upcomingAt),
    upcomingWindow: text(KEY.upcomingWindow),
  };
}
