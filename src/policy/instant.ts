// Instants people type (flags, query parameters): RFC 3339 with an offset, read by the time engine.

import { parseLocalDateTime, ScheduleError, zoneRules } from "../schedule/index.ts";
import { DEFAULT_TIME_ZONE } from "../api/window.ts";

/**
 * Epoch ms of an RFC 3339 time with an offset (`Z` or `+01:00`; lower-case `t` and `z` are read
 * too). Throws a ScheduleError whose `detail` says what is wrong; the caller names the flag or field.
 *
 * @example parseInstant("2026-03-29T00:00:00Z") // 1774742400000
 */
export function parseInstant(text: string): number {
  if (!/(Z|[+-]\d{2}:\d{2})$/i.test(text.trim())) {
    throw new ScheduleError("give an RFC 3339 time with an offset, e.g. 2026-03-29T00:00:00Z or 2026-03-29T00:00:00+01:00");
  }
  return parseLocalDateTime(text.trim().replace(/z$/, "Z").replace("t", "T"), zoneRules(DEFAULT_TIME_ZONE));
}
