// The reason a change carries (a freeze, an override, a commit of the Config Service): required, at most 1,024 characters, one rule for every surface.

import { z } from "zod";
import { MAX_REASON_LENGTH } from "./constants.ts";
import { ValidationError } from "./validate.ts";

/**
 * 1024 as "1,024", without Intl: this runs as the module loads, and the process's first use of
 * Intl loads ICU's data, about 20 ms of every start of the controller (docs/performance-history.md).
 */
const grouped = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/** What a reason longer than MAX_REASON_LENGTH is told, after its field. */
export const REASON_TOO_LONG = `is longer than ${grouped(MAX_REASON_LENGTH)} characters`;

/** The reason of a request that changes something: not blank, at most MAX_REASON_LENGTH characters (trimmed). */
export const ReasonSchema = z.string().trim().min(1, "is required: say why, it goes into the commit message").max(MAX_REASON_LENGTH, REASON_TOO_LONG);

/**
 * A reason read from anywhere but a body's schema (`?reason=`, a patch's member): the text, trimmed,
 * as ReasonSchema takes it; a ValidationError at `field` otherwise, `missing` saying how to give one.
 *
 * @example requestReason(c.req.query("reason"), 'say why: ?reason=...') // "Incident 88"
 */
export function requestReason(value: unknown, missing: string, field = "reason"): string {
  if (typeof value !== "string" || value.trim() === "") throw new ValidationError(missing, { problems: [{ path: field, message: "is required" }] });
  const parsed = ReasonSchema.safeParse(value);
  if (!parsed.success)
    throw new ValidationError(`${field}: ${REASON_TOO_LONG} (this one has ${value.trim().length.toLocaleString("en-US")})`, {
      problems: [{ path: field, message: REASON_TOO_LONG }],
    });
  return parsed.data;
}
