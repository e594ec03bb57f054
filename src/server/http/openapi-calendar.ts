// The OpenAPI part of calendar imports: an .ics file's events as freezes of a cluster's window or a fleet window.

import { API_PREFIX } from "../paths.ts";
import { cluster, errors, ifMatch, json, nullable, obj, reads, reason, str, window, type Schema } from "./openapi-parts.ts";

const prune = {
  name: "prune",
  in: "query",
  schema: { type: "string", enum: ["true", "false"] },
  description: "true: also remove the freezes with a uid that the calendar no longer has (default false: they are kept and listed in kept)",
};

const calendarBody = {
  required: true,
  description:
    "An iCalendar file (RFC 5545), as Outlook or Google Calendar export it. Its size is bounded by the service's --max-body-bytes (64 KiB by default).",
  content: { "text/calendar": { schema: { type: "string" } } },
};

const imported = obj({
  uid: str,
  summary: str,
  kind: { type: "string", enum: ["one-off", "all-day", "recurring"] },
  freeze: { type: "object", description: "The freeze as written to spec.freezes (with reason and uid)" },
});
const dropped = obj({ uid: str, reason: nullable(str) });

/** The answer of an import: the commit, then what happened to each freeze. */
function answer(extra: Record<string, Schema>): Schema {
  return json(
    obj({
      commit: str,
      changed: { type: "boolean", description: "false when the calendar changes nothing (no commit)" },
      pushed: { type: "boolean" },
      attempts: { type: "integer" },
      ...extra,
      window: str,
      file: { type: "string", description: "The window file written" },
      timeZone: { type: "string", description: "The zone the events were converted to" },
      calendar: { ...nullable(str), description: "The calendar's name (X-WR-CALNAME), when it has one" },
      added: { type: "array", items: imported },
      updated: { type: "array", items: imported },
      removed: { type: "array", items: dropped, description: "Cancelled events (STATUS:CANCELLED), and with prune=true those gone from the calendar" },
      kept: { type: "array", items: dropped, description: "Freezes imported before whose events the calendar no longer has (prune=true removes them)" },
      unchanged: { type: "integer" },
    }),
  );
}

const REFUSED =
  "A refused event is named in problems (path: its number, SUMMARY and UID; message: why), every one at once, and nothing is committed: RECURRENCE-ID, RDATE, no UID or SUMMARY, an event longer than 366 days, a recurring event that is not exact in the window's zone (docs/schedules.md).";

/** The import paths. */
export function calendarImportPaths(): Record<string, Schema> {
  return {
    [`${API_PREFIX}/clusters/{cluster}/windows/{name}/freezes/import`]: {
      post: {
        operationId: "importWindowFreezes",
        summary: "Write a calendar's events as freezes of a cluster's window, updated by UID (one commit)",
        description: `Each event becomes one freeze with its SUMMARY as reason and its UID as uid; importing again replaces the freezes with the same uid. ${REFUSED}`,
        parameters: [cluster, window, reason, prune, ifMatch],
        requestBody: calendarBody,
        responses: { "200": answer({ cluster: str }), ...reads, ...errors(400, 404, 409, 412, 413, 415, 502, 503) },
      },
    },
    [`${API_PREFIX}/fleet/windows/{name}/freezes/import`]: {
      post: {
        operationId: "importFleetWindowFreezes",
        summary: "Write a calendar's events as freezes of a fleet window's base, updated by UID: one commit for every cluster that takes it",
        description: `One-off timed events are written with their UTC offset (the same instants on every cluster); a recurring event must be exact in the zone of every cluster that takes the window. ${REFUSED}`,
        parameters: [{ ...window, description: "Fleet window name" }, reason, prune, { ...ifMatch, description: "Change only this version of the base" }],
        requestBody: calendarBody,
        responses: {
          "200": answer({ clusters: { type: "integer", description: "Clusters that take the window" } }),
          ...reads,
          ...errors(400, 404, 409, 412, 413, 415, 502, 503),
        },
      },
    },
  };
}
