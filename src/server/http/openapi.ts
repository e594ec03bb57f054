// The OpenAPI 3.1 description of the API, with request schemas generated from the same zod schemas the server validates with.

import { API_PREFIX } from "../paths.ts";
import { ReconciliationWindowSpecSchema, WindowOverrideSpecSchema, WindowStatusSchema } from "../../api/index.ts";
import { OverrideBody, PreviewBody, PutBody } from "./bodies.ts";
import {
  cluster,
  endDelivery,
  errors,
  fromZod,
  ifMatch,
  interval,
  json,
  noQuery,
  nullable,
  obj,
  range,
  reads,
  reason,
  ref,
  str,
  time,
  window,
  deleted,
  type Schema,
} from "./openapi-parts.ts";
import { calendarImportPaths } from "./openapi-calendar.ts";
import { fleetPaths, fleetSchemas, page, paged } from "./openapi-fleet.ts";

/** Request examples: a cron window, and one given by RFC 5545 recurrence rules (a schedule and a freeze). */
const CRON_SPEC = {
  timeZone: "Europe/Berlin",
  schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }],
  freezes: [{ from: "2026-12-20T00:00", to: "2027-01-05T00:00", reason: "Holiday freeze" }],
  targets: [{ kind: "Kustomization", name: "apps-rw" }],
};
const RECURRENCE_SPEC = {
  timeZone: "Europe/Berlin",
  schedules: [{ recurrence: "FREQ=MONTHLY;BYDAY=2SU", at: "02:00", endAt: "06:00", exdates: ["2026-12-13"] }],
  freezes: [{ recurrence: "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU", dtstart: "2026-01-06", at: "00:00", duration: "24h", reason: "Release Tuesday" }],
  targets: [{ kind: "Kustomization", name: "apps-rw" }],
};

function schemas(): Record<string, Schema> {
  const put = fromZod(PutBody);
  (put.properties as Record<string, Schema>).spec = ref("ReconciliationWindowSpec");
  const preview = fromZod(PreviewBody);
  (preview.properties as Record<string, Schema>).spec = ref("ReconciliationWindowSpec");
  const cause = nullable(
    obj(
      {
        kind: { enum: ["allow", "freeze", "override-open", "override-freeze"] },
        window: { type: "string", description: "The window the rule belongs to" },
        label: str,
        reason: str,
      },
      ["kind", "window", "label"],
    ),
  );
  const segment = obj({ start: time, end: time, state: { enum: ["open", "closed", "frozen"] }, overridden: { type: "boolean" }, cause });
  return {
    ReconciliationWindowSpec: fromZod(ReconciliationWindowSpecSchema),
    WindowOverrideSpec: fromZod(WindowOverrideSpecSchema),
    Override: obj({
      name: str,
      path: str,
      etag: { type: "string", description: "Blob id of the override file; send it back in If-Match to end exactly this version." },
      valid: { type: "boolean" },
      problems: { type: "array", items: ref("FieldProblem") },
      window: nullable(str),
      action: nullable({ enum: ["Open", "Freeze"] }),
      reason: nullable(str),
      until: nullable(time),
      requestedAt: nullable(time),
      active: { type: "boolean", description: "Between its request and until" },
      expired: { type: "boolean", description: "Past until: kept in Git as a record until cleaned up" },
      requestedBy: nullable({ type: "string", description: "Who asked for it (annotation fluxgate.io/requested-by)" }),
      fleetOverride: nullable({
        type: "string",
        description:
          "The fleet override (fleet freeze) it is part of (label fluxgate.io/fleet-override, or the fleet folder's freeze file): ended everywhere with DELETE /api/v1/fleet/overrides/{name}; null for the cluster's own",
      }),
      fleetFolder: {
        type: "boolean",
        description:
          "A freeze of the fleet folder whose clusterSelector matches this cluster (path fleet/freezes/<name>.yaml): one object for every cluster it matches, ended only with DELETE /api/v1/fleet/overrides/{fleetOverride}",
      },
      windows: nullable({
        type: "array",
        items: str,
        description: 'A fleet folder freeze with a windowSelector (window is "*"): the windows of this cluster it picks; null otherwise',
      }),
    }),
    WindowOverride: {
      type: "object",
      description: "A WindowOverride manifest as committed",
      properties: { apiVersion: str, kind: { const: "WindowOverride" }, metadata: { type: "object" }, spec: ref("WindowOverrideSpec") },
      required: ["apiVersion", "kind", "metadata", "spec"],
    },
    WindowStatus: fromZod(WindowStatusSchema),
    PutWindowRequest: put,
    OverrideRequest: fromZod(OverrideBody),
    PreviewRequest: preview,
    FieldProblem: obj({ path: { type: "string", description: "Field path as users write it: spec.schedules[1].duration" }, message: str }),
    Error: obj({
      error: obj({ status: { type: "integer" }, message: str, problems: { type: "array", items: ref("FieldProblem") } }, ["status", "message"]),
    }),
    Cluster: obj({
      name: str,
      path: str,
      timeZone: str,
      labels: { type: "object", additionalProperties: str, description: "The cluster's labels in fluxgate.yaml" },
    }),
    ...fleetSchemas(),
    Window: obj({
      name: str,
      path: str,
      etag: { type: "string", description: "Blob id of the window file; send it back in If-Match." },
      valid: { type: "boolean" },
      problems: { type: "array", items: ref("FieldProblem") },
      timeZone: nullable(str),
      mode: nullable({ enum: ["Suspend", "Gate"] }),
      spec: {},
      state: { enum: ["open", "closed", "frozen", "invalid"] },
      overridden: { type: "boolean" },
      reason: str,
      cause,
      since: nullable(time),
      nextTransition: nullable(obj({ at: time, state: { enum: ["open", "closed", "frozen"] }, overridden: { type: "boolean" } })),
      nextOpen: nullable(time),
      nextClose: nullable(time),
      fleet: {
        ...nullable(ref("FleetOrigin")),
        description:
          "Null for a window of the cluster's own; for a fleet window, its base and the cluster's patch of it (then path and etag are the base's, spec is what kustomize renders for the cluster)",
      },
    }),
    WriteResult: obj(
      {
        commit: { type: "string", description: "The commit holding the change (HEAD when nothing changed)." },
        changed: { type: "boolean" },
        pushed: { type: "boolean" },
        attempts: { type: "integer" },
        created: { type: "boolean" },
        window: ref("Window"),
      },
      ["commit", "pushed", "attempts"],
    ),
    WindowTimeline: obj(
      {
        name: str,
        timeZone: nullable(str),
        valid: { type: "boolean" },
        allow: { type: "array", items: interval },
        freezes: { type: "array", items: obj({ start: time, end: time, label: str, reason: str }, ["start", "end", "label"]) },
        overrides: {
          type: "array",
          items: obj(
            { start: time, end: time, name: str, action: { enum: ["Open", "Freeze"] }, reason: str, by: { type: "string", description: "Who asked for it" } },
            ["start", "end", "name", "action", "reason"],
          ),
        },
        problems: { type: "array", items: ref("FieldProblem"), description: "Only for an invalid window: why" },
        open: { type: "array", items: interval },
        segments: { type: "array", items: segment },
      },
      ["name", "timeZone", "valid", "allow", "freezes", "overrides", "open", "segments"],
    ),
    TargetTimeline: obj(
      {
        kind: str,
        namespace: str,
        name: str,
        declared: { type: "boolean", description: "False for a target a window names that no file of the cluster's directory declares" },
        windows: { type: "array", items: str, description: "The windows that select it" },
        segments: {
          type: "array",
          description: "Its combined decision from all its windows and overrides, as the controller and fluxgate explain have it",
          items: obj(
            {
              start: time,
              end: time,
              effect: { enum: ["enforce", "gate", "hold"] },
              state: nullable({ enum: ["open", "closed", "frozen"] }),
              overridden: { type: "boolean" },
              cause,
            },
            ["start", "end", "effect", "state", "overridden", "cause"],
          ),
        },
      },
      ["kind", "namespace", "name", "declared", "windows", "segments"],
    ),
    ClusterTimeline: obj({
      cluster: str,
      timeZone: str,
      from: time,
      to: time,
      windows: { type: "array", items: ref("WindowTimeline") },
      targets: { type: "array", items: ref("TargetTimeline") },
    }),
    LiveStatus: {
      type: "object",
      description: "With live: false, just a message saying how to connect; with live: true, what the cluster reports.",
      properties: {
        cluster: str,
        live: { type: "boolean" },
        message: str,
        context: str,
        windows: { type: "array", items: obj({ name: str, generation: nullable({ type: "integer" }), status: nullable(ref("WindowStatus")) }) },
        overrides: { type: "array", items: { type: "object" } },
        pending: {
          type: "array",
          items: {
            type: "object",
            properties: { window: str, kind: str, namespace: str, name: str, appliedRevision: str, pendingRevision: str, waitingSince: time },
          },
        },
        drift: { type: "array", items: obj({ window: str, kind: { enum: ["changed", "not-applied", "not-in-git"] } }) },
        pushed: nullable(ref("PushedStatus")),
        targets: {
          type: "array",
          items: ref("TargetStatus"),
          description: "Each target from the newest source that knows it: live (read now through the context) or pushed (the cluster's newest event of it)",
        },
        sources: obj({
          live: nullable(
            obj({
              context: str,
              readAt: nullable(time),
              error: nullable({ type: "string", description: "Why the live read failed; the answer then comes from what the cluster pushed" }),
            }),
          ),
          pushed: nullable(obj({ lastHeard: time })),
          newest: nullable({ enum: ["live", "pushed"] }),
        }),
      },
      required: ["cluster", "live", "targets", "sources"],
    },
    TargetStatus: obj({
      kind: str,
      namespace: str,
      name: str,
      source: { enum: ["live", "pushed"], description: "Where the decision below comes from" },
      asOf: { ...time, description: "live: when the service read the cluster; pushed: the event's time" },
      other: nullable(obj({ source: { enum: ["live", "pushed"] }, asOf: time })),
      state: nullable({ type: "string", description: "open, closed, frozen; held (an invalid window holds it); ungoverned" }),
      windows: nullable(str),
      nextChange: nullable(time),
      lastTransition: nullable(time),
      pendingRevision: nullable(str),
      pendingSince: nullable(time),
      suspended: nullable({
        type: "boolean",
        description: "Observed, from pushed events only (live status does not read targets), and only when not older than the decided state",
      }),
      gated: nullable({ type: "boolean" }),
      violation: nullable(str),
      holding: nullable({ type: "boolean" }),
      diverged: {
        type: "boolean",
        description:
          "It does not do what was decided: closed or frozen yet not holding or a change went through, open yet held, or the controller said it does not follow",
      },
      problem: nullable({
        type: "string",
        description:
          "The cluster's controller's own sentence for why it does not follow: its pushed TargetNotFollowing event, or, read live, a window's Ready=False naming it",
      }),
    }),
    PushedStatus: {
      ...obj({
        cluster: str,
        reporting: { enum: ["never", "stale", "reporting"], description: "never: nothing received; stale: silent longer than --stale-after" },
        lastHeard: nullable(time),
        targets: { type: "array", items: ref("PushedTarget") },
        upcoming: {
          type: "array",
          items: ref("UpcomingWindow"),
          description: "The coming openings and freeze starts the cluster's windows announced (spec.notice), one per window, soonest first",
        },
      }),
      description: "What the cluster pushed (fluxgate serve --cluster-keys): each target as its newest event describes it. Null when the receiver is off.",
    },
    PushedTarget: obj({
      kind: str,
      namespace: str,
      name: str,
      state: nullable({ type: "string", description: "open or closed, as the cluster's controller decided" }),
      windows: nullable({ type: "string", description: "The windows governing the target, comma-separated" }),
      nextChange: nullable({ type: "string", description: "RFC 3339; empty when none is due" }),
      pendingRevision: nullable(str),
      pendingSince: nullable(time),
      appliedRevision: nullable(str),
      lastTransition: nullable({ ...time, description: "When the decided state began: the last transition" }),
      suspended: nullable({ type: "boolean", description: "Observed: the target's spec.suspend as the cluster's API server has it" }),
      gated: nullable({
        type: "boolean",
        description: "Observed, Gate mode (Kustomizations): whether it takes its artifact from the gated source; null outside Gate mode",
      }),
      violation: nullable({ type: "string", description: "Observed: the revision it applied while its windows were closed, until it may take changes again" }),
      lastReason: str,
      lastSeverity: { enum: ["info", "error"] },
      lastMessage: str,
      lastEventAt: time,
      holding: nullable({ type: "boolean", description: "Whether it holds new changes now, as observed: gated in Gate mode, else suspended" }),
      diverged: {
        type: "boolean",
        description:
          "It does not do what was decided: closed or frozen yet not holding or a change went through (violation), open yet held, or the controller said it does not follow",
      },
      problem: nullable({ type: "string", description: "The controller's sentence when its newest event is a TargetNotFollowing warning" }),
      upcoming: nullable({
        ...obj({
          transition: { enum: ["Open", "Frozen"], description: "The window opens, or a freeze starts" },
          at: time,
          window: nullable({ type: "string", description: "The window that announced it" }),
          message: { type: "string", description: "The notice: the revision that goes out for this target, or that nothing waits" },
        }),
        description: "The last notice of a coming change (WindowOpensSoon, FreezeStartsSoon), until it comes",
      }),
      stale: { type: "boolean", description: "No event of the target (heartbeats included) within --stale-after" },
    }),
    UpcomingWindow: obj({
      window: nullable({ type: "string", description: "The window that announced it" }),
      transition: { enum: ["Open", "Frozen"], description: "The window opens, or a freeze starts" },
      at: time,
      targets: { type: "integer", description: "Targets it was announced to" },
    }),
    FluxEvent: {
      type: "object",
      description: "Flux's event JSON (fluxcd/pkg event v1beta1) as a Provider of type generic-hmac posts it",
      properties: {
        involvedObject: { type: "object", properties: { kind: str, namespace: str, name: str, apiVersion: str }, required: ["kind", "name"] },
        severity: { enum: ["info", "error", "trace"] },
        timestamp: time,
        message: str,
        reason: str,
        metadata: {
          type: "object",
          additionalProperties: str,
          description:
            "fluxgate's keys: state, window, nextChange, pendingRevision, pendingSince, since, suspended, gated, violation, revision; a notice adds upcoming, upcomingAt, upcomingWindow",
        },
        reportingController: { type: "string", description: "Events of other controllers only mark the cluster as heard" },
      },
      required: ["involvedObject", "severity", "timestamp", "message", "reason"],
    },
    FleetStatus: obj(
      {
        selector: { type: "string", description: "The selector asked for, when one was" },
        staleAfterSeconds: { type: "integer" },
        clusters: {
          type: "array",
          items: obj({
            cluster: str,
            reporting: { enum: ["never", "stale", "reporting"] },
            lastHeard: nullable(time),
            targets: { type: "integer" },
            waiting: { type: "integer", description: "Targets with a revision waiting" },
            oldestWaitingSince: nullable(time),
            diverged: { type: "integer", description: "Targets decided closed that, as observed, do not hold or let a change through" },
            upcoming: { type: "array", items: ref("UpcomingWindow"), description: "Coming openings and freeze starts its windows announced (spec.notice)" },
            source: nullable({
              enum: ["live", "pushed"],
              description:
                "live: read through the cluster's context now, each target from the newest source; pushed: what the cluster pushed; null: nothing from either",
            }),
          }),
        },
        totals: obj({
          clusters: { type: "integer" },
          reporting: { type: "integer" },
          stale: { type: "integer" },
          never: { type: "integer" },
          targets: { type: "integer" },
          waiting: { type: "integer" },
          oldestWaitingSince: nullable(time),
          diverged: { type: "integer" },
        }),
      },
      ["staleAfterSeconds", "clusters", "totals"],
    ),
    FleetWaiting: obj(
      {
        selector: { type: "string", description: "The selector asked for, when one was" },
        revisions: {
          type: "array",
          description: "Each revision waiting on some cluster, the one waiting on most clusters first",
          items: obj({
            revision: str,
            clusters: { type: "integer", description: "Clusters with a target waiting on it" },
            targets: { type: "integer" },
            oldestSince: nullable(time),
            releases: {
              type: "array",
              description: "The clusters grouped by what releases it and when, the soonest first",
              items: obj({
                at: nullable({
                  ...time,
                  description: "Their windows' next change: the opening while closed, the freeze's end while frozen; null when none is due",
                }),
                state: nullable({ type: "string", description: "closed, frozen, or open (being taken)" }),
                windows: nullable({ type: "string", description: "The windows governing the targets, as the clusters' controllers name them" }),
                clusters: { type: "integer" },
                names: { type: "array", items: str, description: "The first 50 clusters, by name" },
                timeZones: { type: "array", items: str, description: "The clusters' zones (fluxgate.yaml)" },
                stale: { type: "integer", description: "Clusters silent past --stale-after: what they pushed may be out of date" },
              }),
            },
          }),
        },
        totals: obj({ revisions: { type: "integer" }, clusters: { type: "integer" }, targets: { type: "integer" } }),
      },
      ["revisions", "totals"],
    ),
  };
}

/** The OpenAPI document served at /openapi.json. */
export function openApiDocument(version: string): Schema {
  return {
    openapi: "3.1.0",
    info: {
      title: "fluxgate Config Service",
      version,
      description: "Reconciliation windows of a fleet, read from and written to its Git repository. Every write is one commit.",
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    },
    servers: [{ url: "/" }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "A token from `fluxgate serve token add`." },
        signature: {
          type: "apiKey",
          in: "header",
          name: "X-Signature",
          description:
            "Events pushed by a cluster: sha256= and the hex HMAC-SHA256 of the body with the cluster's key (fluxgate serve cluster-key add), as Flux's generic-hmac Provider sends it.",
        },
        accessToken: {
          type: "apiKey",
          in: "query",
          name: "access_token",
          description:
            "Calendar feeds only (calendar apps cannot send headers): a calendar token from GET /api/v1/calendar-token, which reads .ics feeds and nothing else (a full token is taken too, RFC 6750 §2.3, but should not be pasted into a calendar).",
        },
      },
      schemas: schemas(),
    },
    paths: {
      [`${API_PREFIX}/clusters`]: {
        get: {
          operationId: "listClusters",
          summary: "The clusters of fluxgate.yaml with their labels: those ?selector= matches, a page at a time with ?limit=&continue=",
          parameters: page,
          responses: {
            "200": json(
              obj(
                {
                  selector: { type: "string", description: "The selector asked for, when one was" },
                  clusters: { type: "array", items: ref("Cluster") },
                  ...paged,
                },
                ["clusters", "total", "continue"],
              ),
            ),
            ...reads,
            ...errors(400),
          },
        },
      },
      [`${API_PREFIX}/clusters/{cluster}/windows`]: {
        get: {
          operationId: "listWindows",
          summary: "A cluster's windows with their state and next transition",
          parameters: [cluster],
          responses: {
            "200": json(
              obj({
                cluster: str,
                timeZone: str,
                fleetError: { ...nullable(str), description: "Why the cluster's fleet windows are not known (its windows folder does not build), or null" },
                windows: { type: "array", items: ref("Window") },
              }),
            ),
            ...reads,
            ...errors(404),
          },
        },
      },
      [`${API_PREFIX}/clusters/{cluster}/windows/{name}`]: {
        get: {
          operationId: "getWindow",
          summary: "One window (ETag header: its version)",
          parameters: [cluster, window],
          responses: { "200": json(ref("Window")), ...reads, ...errors(404) },
        },
        put: {
          operationId: "putWindow",
          summary: "Create or change a window: one commit, authored by the token's holder, pushed",
          parameters: [cluster, window, ifMatch, { name: "If-None-Match", in: "header", schema: { const: "*" }, description: "Create only" }],
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: ref("PutWindowRequest"),
                examples: {
                  cron: { value: { spec: structuredClone(CRON_SPEC), reason: "Weekday changes" } },
                  recurrence: { value: { spec: structuredClone(RECURRENCE_SPEC), reason: "OS patching on the second Sunday" } },
                },
              },
            },
          },
          responses: {
            "200": json(ref("WriteResult"), "Changed (or unchanged: changed is false)"),
            "201": json(ref("WriteResult"), "Created"),
            ...reads,
            ...errors(400, 404, 409, 412, 413, 415, 502, 503),
          },
        },
        patch: {
          operationId: "patchWindow",
          summary: 'Change part of a window\'s spec: JSON Merge Patch (RFC 7396) or JSON Patch (RFC 6902) on {"spec": ...}; one commit',
          parameters: [cluster, window, ifMatch, { ...reason, required: false, description: 'Why (required: here, or "reason" in a merge patch)' }],
          requestBody: {
            required: true,
            content: {
              "application/merge-patch+json": {
                schema: obj({ spec: { type: "object", description: "Members to set; null removes one; arrays are replaced whole" }, reason: str }, ["spec"]),
              },
              "application/json-patch+json": {
                schema: {
                  type: "array",
                  items: obj(
                    {
                      op: { enum: ["add", "remove", "replace", "move", "copy", "test"] },
                      path: { type: "string", description: "Starts with /spec" },
                      value: {},
                      from: str,
                    },
                    ["op", "path"],
                  ),
                },
              },
            },
          },
          responses: {
            "200": json(ref("WriteResult"), "Changed (or unchanged: changed is false)"),
            ...reads,
            ...errors(400, 404, 409, 412, 413, 415, 502, 503),
          },
        },
        delete: {
          operationId: "deleteWindow",
          summary: "Delete a window and the overrides that refer to it: one commit",
          parameters: [cluster, window, reason, ifMatch],
          responses: {
            "200": json(
              obj({
                commit: str,
                pushed: { type: "boolean" },
                attempts: { type: "integer" },
                deletedOverrides: { type: "array", items: str, description: "Overrides of the window, deleted in the same commit" },
              }),
            ),
            ...reads,
            ...errors(400, 404, 409, 412, 502, 503),
          },
        },
      },
      [`${API_PREFIX}/clusters/{cluster}/overrides`]: {
        get: {
          operationId: "listOverrides",
          summary: "A cluster's overrides in Git: active, expired (kept as a record) or neither yet",
          parameters: [cluster],
          responses: { "200": json(obj({ cluster: str, overrides: { type: "array", items: ref("Override") } })), ...reads, ...errors(404) },
        },
        delete: {
          operationId: "deleteExpiredOverrides",
          summary: "Remove every expired override of a cluster: one commit (none when there are none)",
          parameters: [cluster, { name: "expired", in: "query", required: true, schema: { const: "true" } }, reason],
          responses: {
            "200": json(obj({ commit: str, changed: { type: "boolean" }, pushed: { type: "boolean" }, deleted: { type: "array", items: str } })),
            ...reads,
            ...errors(400, 404, 409, 502, 503),
          },
        },
        post: {
          operationId: "createOverride",
          summary: "Open or freeze a window until a time: committed to Git; with delivery direct also created in the cluster",
          parameters: [cluster],
          requestBody: { required: true, content: { "application/json": { schema: ref("OverrideRequest") } } },
          responses: {
            "201": json(
              obj(
                {
                  commit: str,
                  pushed: { type: "boolean" },
                  delivery: { enum: ["git", "direct"] },
                  override: ref("WindowOverride"),
                  cluster: nullable(obj({ name: str, uid: nullable(str) })),
                  deliveryError: { type: "string", description: "Direct delivery failed; the commit stands and Flux applies it from Git" },
                },
                ["commit", "pushed", "delivery", "override", "cluster"],
              ),
              "Created",
            ),
            ...reads,
            ...errors(400, 404, 409, 502, 503),
          },
        },
      },
      [`${API_PREFIX}/clusters/{cluster}/overrides/{name}`]: {
        delete: {
          operationId: "deleteOverride",
          summary: "End an override early: one commit (role editor or breakglass); with delivery=direct also cancelled in the cluster",
          parameters: [cluster, { ...window, description: "Override name" }, reason, endDelivery, ifMatch],
          responses: { "200": json(deleted), ...reads, ...errors(400, 404, 409, 412, 502, 503) },
        },
      },
      [`${API_PREFIX}/clusters/{cluster}/timeline`]: {
        get: {
          operationId: "clusterTimeline",
          summary: "Allow, freeze, override and effective open intervals of each window, and each target's combined decision",
          parameters: [cluster, ...range],
          responses: { "200": json(ref("ClusterTimeline")), ...reads, ...errors(400, 404) },
        },
      },
      [`${API_PREFIX}/timeline`]: {
        get: {
          operationId: "fleetTimeline",
          summary:
            "The timeline of each cluster ?selector= matches, a page at a time with ?limit=&continue=, in compact form; compressed (br or gzip, as Accept-Encoding allows) and kept per commit, range and page, with an ETag (If-None-Match: 304)",
          parameters: [
            ...range,
            ...page,
            { name: "If-None-Match", in: "header", schema: str, description: "The ETag of a page read before: 304 when it has not changed" },
          ],
          responses: {
            "200": json(ref("FleetTimeline")),
            "304": { description: "Not modified: the page named in If-None-Match is current" },
            ...reads,
            ...errors(400),
          },
        },
      },
      [`${API_PREFIX}/clusters/{cluster}/calendar.ics`]: {
        get: {
          operationId: "clusterCalendar",
          summary: "iCalendar feed (RFC 5545) of openings and freezes, 14 days back to 92 days ahead: per window, or of one target (?target=)",
          security: [{ bearer: [] }, { accessToken: [] }],
          parameters: [
            cluster,
            {
              name: "target",
              in: "query",
              schema: str,
              description: "KIND/NAMESPACE/NAME: the feed of one target, from all its windows and overrides, as the controller decides",
            },
          ],
          responses: { "200": { description: "The feed", content: { "text/calendar": { schema: str } } }, ...reads, ...errors(404) },
        },
      },
      [`${API_PREFIX}/clusters/{cluster}/status`]: {
        get: {
          operationId: "clusterStatus",
          summary: "Live windows, targets, pending revisions and drift from the cluster, and what it pushed",
          parameters: [cluster],
          responses: { "200": json(ref("LiveStatus")), ...reads, ...errors(404, 502) },
        },
      },
      [`${API_PREFIX}/clusters/{cluster}/events`]: {
        post: {
          operationId: "pushEvent",
          summary: "Receive an event the cluster pushes (a Flux Provider of type generic-hmac); acknowledged once stored",
          security: [{ signature: [] }],
          parameters: [cluster],
          requestBody: { required: true, content: { "application/json": { schema: ref("FluxEvent") } } },
          responses: {
            "202": json(
              obj({
                cluster: str,
                outcome: {
                  enum: ["stored", "older", "heard"],
                  description: "older: a newer event of the target is kept; heard: another controller's event, the cluster is heard",
                },
              }),
              "Stored",
            ),
            ...errors(400, 413, 429),
            "401": json(ref("Error"), "No signature, or not the cluster's"),
            "404": json(ref("Error"), "No such cluster, or the receiver is off"),
          },
        },
      },
      [`${API_PREFIX}/fleet/status`]: {
        get: {
          operationId: "fleetStatus",
          summary:
            "How every cluster reports (pushed events), how many targets wait and since when; clusters with a context are read live too, the newest information winning",
          parameters: [
            {
              name: "selector",
              in: "query",
              schema: str,
              description: "Only the clusters whose fluxgate.yaml labels match (Kubernetes label-selector syntax, e.g. ring=prod,region in (eu,us))",
            },
          ],
          responses: { "200": json(ref("FleetStatus")), ...reads, ...errors(400, 404) },
        },
      },
      [`${API_PREFIX}/fleet/waiting`]: {
        get: {
          operationId: "fleetWaiting",
          summary:
            "What each cluster will take at its next window: the revisions waiting across the fleet (pushed events), each with its clusters grouped by the opening that releases it",
          parameters: [
            {
              name: "selector",
              in: "query",
              schema: str,
              description: "Only the clusters whose fluxgate.yaml labels match (Kubernetes label-selector syntax, e.g. ring=prod,region in (eu,us))",
            },
          ],
          responses: { "200": json(ref("FleetWaiting")), ...reads, ...errors(400, 404) },
        },
      },
      ...fleetPaths(),
      ...calendarImportPaths(),
      [`${API_PREFIX}/preview`]: {
        post: {
          operationId: "preview",
          summary: "Validate a window spec and preview its next openings, without writing anything",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: ref("PreviewRequest"),
                examples: {
                  cron: { value: { spec: structuredClone(CRON_SPEC) } },
                  recurrence: { value: { spec: structuredClone(RECURRENCE_SPEC), count: 3 } },
                },
              },
            },
          },
          responses: {
            "200": json(
              obj({
                valid: { type: "boolean" },
                timeZone: str,
                from: time,
                to: time,
                nextOpenings: { type: "array", items: interval },
                timeline: ref("WindowTimeline"),
              }),
            ),
            ...reads,
            ...errors(400),
          },
        },
      },
      [`${API_PREFIX}/me`]: {
        get: {
          operationId: "me",
          summary: "Who the token belongs to and what it may do",
          responses: { "200": json(obj({ name: str, role: str, anonymous: { type: "boolean" }, permissions: { type: "array", items: str } })), ...reads },
        },
      },
      [`${API_PREFIX}/repository`]: {
        get: {
          operationId: "repository",
          summary: "The commit served, the branch, and whether there is a remote",
          responses: { "200": json({ type: "object" }), ...reads },
        },
      },
      [`${API_PREFIX}/calendar-token`]: {
        get: {
          operationId: "calendarToken",
          summary: "A read-only token for the .ics feeds, made from (and dying with) the token presented",
          responses: { "200": json(obj({ token: str, scope: { const: "calendar" }, note: str })), ...reads },
        },
      },
      "/healthz": {
        get: {
          operationId: "healthz",
          security: [],
          summary: "Liveness (takes no query parameters)",
          responses: { "200": { description: "ok", content: { "text/plain": { schema: str } } }, ...noQuery },
        },
      },
      "/readyz": {
        get: {
          operationId: "readyz",
          security: [],
          summary: "Readiness: the repository can be read and origin reached (takes no query parameters)",
          responses: {
            "200": json(
              obj({
                ready: { const: true },
                commit: str,
                lastSyncError: { type: "null" },
                lastReset: nullable({
                  type: "object",
                  description:
                    "The last reset to origin, after a force-push or of commits origin never had: cause (force-push or unpushed), at, from, to, dropped, backupRef",
                }),
              }),
              "Ready",
            ),
            ...noQuery,
            "503": json(
              {
                type: "object",
                properties: { ready: { const: false }, message: str, commit: str, lastSyncError: nullable(str), lastReset: nullable({ type: "object" }) },
                required: ["ready", "message"],
              },
              "Not ready: the repository cannot be read, or origin cannot be reached",
            ),
          },
        },
      },
      "/metrics": {
        get: {
          operationId: "metrics",
          summary: "Prometheus metrics (a token that may read: they name every cluster); with ?selector= the per-cluster series of the matching clusters only",
          parameters: [
            {
              name: "selector",
              in: "query",
              schema: str,
              description:
                "Only the per-cluster series (fluxgate_serve_windows) of the clusters whose fluxgate.yaml labels match (Kubernetes label-selector syntax)",
            },
          ],
          responses: { "200": { description: "Prometheus text format", content: { "text/plain": { schema: str } } }, ...reads, ...errors(400) },
        },
      },
    },
  };
}
