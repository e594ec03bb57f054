// What an override means in time: when it starts, when it ends (its until, or a cancellation), whether it has expired, its default name.

import { CANCELLED_AT, CANCELLED_BY, OVERRIDE_REQUESTED_AT } from "../api/constants.ts";
import { MAX_OVERRIDE_MS } from "../api/override.ts";
import { ValidationError } from "../api/validate.ts";
import { InputError, inContext } from "../errors.ts";
import { parseDuration } from "../schedule/index.ts";
import { parseInstant } from "./instant.ts";

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** An override's metadata and `spec.until` as they are read (from the API server, or from a file in Git, which has no creation time). */
export interface OverrideTimingInput {
  /** `metadata.creationTimestamp`: absent for a file in Git. */
  creationTimestamp?: string | Date | undefined;
  annotations?: Readonly<Record<string, unknown>> | undefined;
  /** `spec.until`, already validated by the schema. */
  until: string;
}

/** When an override decides: `[start, end)`, with what ended it early if anything did. */
export interface OverrideTiming {
  /** When it was asked for (epoch ms); see overrideStart. */
  start: number;
  /** False when neither a creation time nor the requested-at annotation says when it was asked for. */
  startKnown: boolean;
  /** `spec.until` (epoch ms). */
  until: number;
  /** When it stops deciding: `until`, or its cancellation when earlier. */
  end: number;
  /** When and by whom `fluxgate overrides cancel` ended it, when it did. */
  cancelled: { at: number; by: string } | null;
}

function annotation(annotations: OverrideTimingInput["annotations"], key: string): string | undefined {
  const v = annotations?.[key];
  return typeof v === "string" ? v : undefined;
}

function readTime(text: string | undefined, key: string): number | undefined {
  if (text === undefined) return undefined;
  const at = RFC3339.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(at)) {
    throw new ValidationError([
      { path: `metadata.annotations[${key}]`, message: `must be an RFC 3339 date-time with a zone, e.g. "2026-12-01T18:00:00Z"; got "${text}"` },
    ]);
  }
  return at;
}

/**
 * When an override starts: when it was asked for. That is the earlier of its creation in the
 * cluster and its `fluxgate.io/requested-at` annotation (which the Config Service writes, since a
 * file in Git has no creation time and Flux creates it in the cluster some time after the commit),
 * whichever of the two it has. With neither (a file in Git written by hand and not read from a
 * cluster), it starts at `now`, the time it is read: the earliest a cluster can create it.
 *
 * @example overrideStart({ annotations: { "fluxgate.io/requested-at": "2026-11-23T10:00:00Z" }, until: "2026-11-23T12:00:00Z" }, now) // { start:
 * 1795428000000, known: true }
 */
export function overrideStart(input: OverrideTimingInput, now: number): { start: number; known: boolean } {
  const requested = readTime(annotation(input.annotations, OVERRIDE_REQUESTED_AT), OVERRIDE_REQUESTED_AT);
  const createdText = input.creationTimestamp instanceof Date ? input.creationTimestamp.toISOString() : input.creationTimestamp;
  const createdAt = createdText === undefined ? NaN : Date.parse(createdText);
  const created = Number.isNaN(createdAt) ? undefined : createdAt;
  if (requested !== undefined && created !== undefined) return { start: Math.min(requested, created), known: true };
  const known = requested ?? created;
  if (known !== undefined) return { start: known, known: true };
  return { start: Math.min(now, Date.parse(input.until)), known: false };
}

/** The cancellation an override's annotations record, or null; a cancellation time that cannot be read makes the override invalid. */
export function cancellationOf(annotations: OverrideTimingInput["annotations"]): { at: number; by: string } | null {
  const at = readTime(annotation(annotations, CANCELLED_AT), CANCELLED_AT);
  return at === undefined ? null : { at, by: annotation(annotations, CANCELLED_BY) ?? "unknown" };
}

/**
 * When an override stops deciding (epoch ms): its `until`, or its cancellation when earlier; a
 * cancellation before it began leaves it nothing (`start`, an empty interval).
 *
 * @example effectiveEnd(0, 7_200_000, { at: 3_600_000, by: "alice" }) // 3_600_000
 */
export function effectiveEnd(start: number, until: number, cancelled: { at: number } | null): number {
  return cancelled === null ? until : Math.max(start, Math.min(until, cancelled.at));
}

/**
 * An override's interval, the same for the controller and the Config Service. Throws a
 * ValidationError when `until` is not after its start or more than 7 days after it (overrides are
 * short by design), or when an annotation it reads cannot be read.
 */
export function overrideTiming(input: OverrideTimingInput, now: number): OverrideTiming {
  const { start, known } = overrideStart(input, now);
  const until = Date.parse(input.until);
  if (known && until - start > MAX_OVERRIDE_MS) {
    throw new ValidationError([
      { path: "spec.until", message: `is more than 7 days after the override was asked for (${new Date(start).toISOString()}): overrides are short by design` },
    ]);
  }
  if (known && until <= start) {
    throw new ValidationError([{ path: "spec.until", message: `is not after the override was asked for (${new Date(start).toISOString()})` }]);
  }
  const cancelled = cancellationOf(input.annotations);
  return { start, startKnown: known, until, end: effectiveEnd(start, until, cancelled), cancelled };
}

/** Where an override is in its life at `now`: before its start, in force, or over (expired, or cancelled when a cancellation ended it early). */
export function overrideStage(
  timing: Pick<OverrideTiming, "start" | "end"> & Partial<Pick<OverrideTiming, "until" | "cancelled">>,
  now: number,
): "pending" | "active" | "expired" | "cancelled" {
  if (now >= timing.end)
    return timing.cancelled !== undefined && timing.cancelled !== null && timing.until !== undefined && timing.cancelled.at < timing.until
      ? "cancelled"
      : "expired";
  return now < timing.start ? "pending" : "active";
}

/** Whether an override is over at `now` (expired, or cancelled): what the API calls `expired` and what the clean-up of expired overrides removes. */
export function overrideOver(timing: Parameters<typeof overrideStage>[0], now: number): boolean {
  const stage = overrideStage(timing, now);
  return stage === "expired" || stage === "cancelled";
}

/** The limit of an override's length, in the words every surface uses. */
export const OVERRIDE_LIMIT = "an override lasts at most 7 days (168h)";

/**
 * The one rule of an override's end, for every surface (CLI, Config Service, fleet overrides): asked
 * for at `now`, it must be in the future and at most 7 days after the second the override is
 * recorded at (its creation, or fluxgate.io/requested-at, both to the second — the controller counts
 * from there). Null when `end` fits; else why not, and the latest end allowed.
 *
 * @example overrideEndProblem(Date.parse("2026-11-30T10:00:00Z"), Date.parse("2026-11-23T10:00:00.700Z")) // null: exactly 7 days
 */
export function overrideEndProblem(end: number, now: number): { problem: "not in the future" | "too long"; latest: number } | null {
  const latest = Math.floor(now / 1000) * 1000 + MAX_OVERRIDE_MS;
  if (end <= now) return { problem: "not in the future", latest };
  if (end > latest) return { problem: "too long", latest };
  return null;
}

/** How a request asks for an override's end: `until` (RFC 3339) or `duration` from now (a Go duration), one of the two. */
export interface OverrideEndRequest {
  until?: string | undefined;
  duration?: string | undefined;
}

/**
 * The end (epoch ms) of an override asked for at `now` with `until` or `duration` (from `now`, to
 * the second): in the future and at most 7 days ahead. An InputError at the field that gave it
 * (`until` or `duration`) otherwise; the one rule of the Config Service's requests for overrides.
 *
 * @example requestedOverrideEnd({ duration: "4h" }, Date.parse("2026-11-23T10:00:00Z")) // Date.parse("2026-11-23T14:00:00Z")
 */
export function requestedOverrideEnd(request: OverrideEndRequest, now: number): number {
  const nowSecond = Math.floor(now / 1000) * 1000;
  const refuse = (field: string, message: string): never => {
    throw new InputError(`${field}: ${message}`, { reason: "InvalidOverride", problems: [{ path: field, message }] });
  };
  const { duration, until: untilText } = request;
  if (duration !== undefined) {
    const ms = inContext({ field: "duration" }, () => parseDuration(duration));
    if (ms <= 0) refuse("duration", `${duration} must be longer than zero`);
    if (overrideEndProblem(nowSecond + ms, now)?.problem === "too long")
      refuse("duration", `${duration} is more than 7 days: ${OVERRIDE_LIMIT}, short by design`);
    return nowSecond + ms;
  }
  if (untilText === undefined) return refuse("until", 'give exactly one of until (RFC 3339) and duration (e.g. "2h")');
  const until = inContext({ field: "until", separator: ` ${untilText}: ` }, () => parseInstant(untilText));
  const wrong = overrideEndProblem(until, now);
  if (wrong?.problem === "not in the future") refuse("until", `${untilText} must be in the future`);
  if (wrong?.problem === "too long") refuse("until", `${untilText} is more than 7 days ahead: ${OVERRIDE_LIMIT}, short by design`);
  return until;
}

const pad = (n: number): string => String(n).padStart(2, "0");

/**
 * The default name of an override: the window, the action and the UTC time, within the 253
 * characters a name may have.
 *
 * @example overrideName("weekday-changes", "Open", Date.parse("2026-11-22T11:09:35Z")) // "weekday-changes-open-20261122-110935"
 */
export function overrideName(window: string, action: "Open" | "Freeze", now: number): string {
  const d = new Date(now);
  const suffix = `-${action.toLowerCase()}-${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}-${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;
  return `${window.slice(0, 253 - suffix.length).replace(/[-.]+$/, "")}${suffix}`;
}
