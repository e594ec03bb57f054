// What a failed API request says: its HTTP code and the Kubernetes Status in its body, decoded in one place.

import { ApiException } from "@kubernetes/client-node";

/** The parts of a Kubernetes Status the messages use. */
export interface ApiStatus {
  /** The HTTP code; undefined when the request did not reach the API server. */
  code: number | undefined;
  /** The Status reason (NotFound, AlreadyExists, Conflict, ...), or "" when the body has none. */
  reason: string;
  /** The Status message, or the body's text, or "" when there is neither. */
  message: string;
  /** The name of the object the Status is about (details.name), or "". */
  name: string;
}

/** The HTTP status of a failed request or watch; undefined when it did not reach the API server. */
export function statusCodeOf(error: unknown): number | undefined {
  if (error instanceof ApiException) return (error as ApiException<unknown>).code;
  // A refused watch is a plain Error with the status as statusCode.
  const code = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof code === "number" ? code : undefined;
}

function bodyOf(body: unknown): { message?: unknown; reason?: unknown; details?: { name?: unknown } } | undefined {
  if (typeof body === "object" && body !== null) return body;
  if (typeof body !== "string") return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === "object" && parsed !== null) return parsed;
  } catch {
    // Not JSON: a proxy's or load balancer's page.
  }
  return { message: body.trim() };
}

/**
 * Decodes a failed request: the code and what the API server's Status says.
 *
 * @example apiStatusOf(e) // { code: 404, reason: "NotFound", message: 'reconciliationwindows.fluxgate.io "w" not found', name: "w" }
 */
export function apiStatusOf(error: unknown): ApiStatus {
  const code = statusCodeOf(error);
  const body = error instanceof ApiException ? bodyOf((error as ApiException<unknown>).body) : undefined;
  const text = (v: unknown): string => (typeof v === "string" ? v : "");
  const fallback = error instanceof ApiException || code === undefined ? "" : error instanceof Error ? error.message : "";
  return { code, reason: text(body?.reason), message: text(body?.message) || fallback, name: text(body?.details?.name) };
}

/** True when a 404 names a missing object, not a resource the API server does not serve. */
export function isObjectNotFound(error: unknown): boolean {
  const status = apiStatusOf(error);
  return status.code === 404 && status.reason === "NotFound" && status.name !== "";
}
