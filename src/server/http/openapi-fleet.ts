// The fleet's part of the OpenAPI document: selectors and pages, a page of clusters' state, fleet windows and fleet overrides.

import { API_PREFIX } from "../paths.ts";
import { FleetOverrideBody, FleetPatchBody, FleetWindowBody } from "./bodies.ts";
import { FLEET_PAGE, MAX_PAGE } from "./paging.ts";
import {
  cluster,
  directEnds,
  endDelivery,
  errors,
  fromZod,
  ifMatch,
  json,
  nullable,
  obj,
  reads,
  reason,
  ref,
  str,
  time,
  window,
  type Schema,
} from "./openapi-parts.ts";

const selector = {
  name: "selector",
  in: "query",
  schema: str,
  description: "Only the clusters whose fluxgate.yaml labels match (Kubernetes label-selector syntax, e.g. ring=prod,region in (eu,us))",
};
const ifNoneMatch = { name: "If-None-Match", in: "header", schema: str, description: "The ETag of a listing read before: 304 when it has not changed" };
const notModified = { description: "Not modified: the listing named in If-None-Match is current" };

/** ?selector=, ?names=, ?limit= and ?continue= of every fleet read. */
export const page = [
  selector,
  {
    name: "names",
    in: "query",
    schema: str,
    description: `Only these clusters (comma-separated names, 1 to ${MAX_PAGE}), in fluxgate.yaml's order, all on one page unless limit says otherwise; a name not in fluxgate.yaml is a 400`,
  },
  { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: MAX_PAGE }, description: `At most this many clusters (1 to ${MAX_PAGE})` },
  { name: "continue", in: "query", schema: str, description: "The previous page's continue token, unchanged" },
];

/** The paging fields of a fleet read's answer. */
export const paged = {
  total: { type: "integer", description: "How many clusters match the selector, all pages together" },
  continue: { ...nullable(str), description: "Send it back as ?continue= for the next page; null on the last page" },
};

const written = { commit: str, pushed: { type: "boolean" }, attempts: { type: "integer" } };

/** The answer of a write of a cluster's patch of a fleet window. */
const patched = json(
  obj({
    ...written,
    changed: { type: "boolean" },
    fleetError: nullable(str),
    window: nullable({ type: "object", description: "The window as the cluster now renders it (as GET .../windows/{name})" }),
  }),
);

const seconds = (what: string, repeats = true): Schema => ({
  type: "array",
  items: { type: "number" },
  description: `${what}. Times are seconds, each counted from the end of the interval before it (the first from the answer's from)${repeats ? "; a pair [-count, period] stands for the period pairs before it (1 to 4) repeated count more times" : ""}`,
});

/** The compact form of the fleet timeline (timeline-format.ts). */
function compactTimelineSchemas(): Record<string, Schema> {
  return {
    CompactClusterTimeline: obj({
      cluster: str,
      timeZone: str,
      causes: {
        type: "array",
        items: obj({ kind: { enum: ["allow", "freeze", "override-open", "override-freeze"] }, window: str, label: str, reason: str }, [
          "kind",
          "window",
          "label",
        ]),
        description: "The rules its states and freezes name, each once, by index",
      },
      states: {
        type: "array",
        description: "The kinds of stretch its lanes are made of, each once, by index; effect only for target lanes",
        items: obj(
          {
            state: nullable({ enum: ["open", "closed", "frozen"] }),
            overridden: { type: "boolean" },
            cause: { ...nullable({ type: "integer" }), description: "Index into causes" },
            effect: { enum: ["enforce", "gate", "hold"] },
          },
          ["state", "overridden", "cause"],
        ),
      },
      windows: {
        type: "array",
        items: obj(
          {
            name: str,
            timeZone: nullable(str),
            valid: { type: "boolean" },
            problems: { type: "array", items: ref("FieldProblem"), description: "Only for an invalid window: why" },
            allow: seconds("Pairs [gap, length]: the merged allow intervals of its schedules"),
            freezes: seconds(
              "Triples [gap, length, cause]: its own freezes, with the index of the rule in causes (a gap is negative where two freezes overlap)",
              false,
            ),
            overrides: {
              type: "array",
              items: obj({ start: time, end: time, name: str, action: { enum: ["Open", "Freeze"] }, reason: str, by: str }, [
                "start",
                "end",
                "name",
                "action",
                "reason",
              ]),
            },
            segments: seconds(
              "Pairs [length, state]: the range cut into stretches of one state (an index into states), end to end from from to to; its open intervals are the open ones, touching ones merged",
            ),
          },
          ["name", "timeZone", "valid", "allow", "freezes", "overrides", "segments"],
        ),
      },
      targets: {
        type: "array",
        items: obj({
          kind: str,
          namespace: str,
          name: str,
          declared: { type: "boolean" },
          windows: { type: "array", items: str },
          segments: seconds("Pairs [length, state]: the target's combined decision, end to end from from to to"),
        }),
      },
    }),
    FleetTimeline: obj(
      {
        format: { enum: ["compact"] },
        from: time,
        to: time,
        commit: str,
        selector: { type: "string", description: "The selector asked for, when one was" },
        ...paged,
        clusters: {
          type: "array",
          items: ref("CompactClusterTimeline"),
          description: "Each cluster's timeline in compact form: expanded, it is what GET /api/v1/clusters/{cluster}/timeline gives",
        },
      },
      ["format", "from", "to", "commit", "total", "continue", "clusters"],
    ),
  };
}

export function fleetSchemas(): Record<string, Schema> {
  const fleetWindow = fromZod(FleetWindowBody);
  (fleetWindow.properties as Record<string, Schema>).spec = ref("ReconciliationWindowSpec");
  return {
    FleetOrigin: obj({
      window: { type: "string", description: "The fleet window (label fluxgate.io/fleet-window)" },
      base: {
        type: "string",
        description: "Its base's window file (fleet/windows/<name>/<name>.yaml): PUT /api/v1/fleet/windows/{name} changes it for every cluster",
      },
      selector: { ...nullable(str), description: "The selector the base records (annotation fluxgate.io/fleet-selector)" },
      patch: {
        ...nullable(
          obj({
            file: { type: "string", description: "The cluster's windows/kustomization.yaml" },
            index: { type: "integer", description: "Its entry in patches" },
            patch: { type: "string", description: "The patch as written (JSON 6902 operations)" },
          }),
        ),
        description: "The cluster's patch of the fleet window (PUT /api/v1/clusters/{cluster}/windows/{name}/patch), or null when it takes the base as it is",
      },
    }),
    FleetCluster: obj({
      name: str,
      path: str,
      timeZone: str,
      labels: { type: "object", additionalProperties: str },
      windows: {
        type: "array",
        items: obj({
          name: str,
          valid: { type: "boolean" },
          state: { enum: ["open", "closed", "frozen", "invalid"] },
          overridden: { type: "boolean" },
          reason: str,
          nextTransition: nullable(obj({ at: time, state: { enum: ["open", "closed", "frozen"] }, overridden: { type: "boolean" } })),
          fleet: nullable(ref("FleetOrigin")),
        }),
      },
      activeOverrides: { type: "integer", description: "Overrides in force now" },
      live: {
        ...nullable({ type: "object" }),
        description:
          "What the cluster reports (as GET /clusters/{cluster}/status), when the service has a context for it (--cluster-context); {live: false, error} when reading it failed; null without a context",
      },
      pushed: {
        ...nullable({ type: "object" }),
        description: "The cluster's pushed status (as an entry of GET /fleet/status), or null when the receiver is off",
      },
    }),
    ...compactTimelineSchemas(),
    FleetWindowRequest: fleetWindow,
    FleetPatchRequest: fromZod(FleetPatchBody),
    FleetOverrideRequest: fromZod(FleetOverrideBody),
    FleetOverride: obj({
      name: str,
      action: str,
      until: time,
      reason: str,
      requestedAt: nullable(time),
      stage: { enum: ["pending", "active", "expired", "cancelled", "invalid"] },
      overrides: {
        type: "array",
        items: obj({ cluster: str, name: str, window: str, file: str }),
        description: "Its WindowOverride on each cluster, one per window",
      },
    }),
    FleetWindowListing: obj({
      name: str,
      selector: nullable(str),
      file: str,
      clusters: {
        type: "array",
        items: obj({ name: str, patched: { type: "boolean" }, labelsMatch: { type: "boolean" } }),
        description: "Clusters that include it",
      },
      missing: { type: "array", items: str, description: "Clusters its selector matches that do not include it" },
    }),
  };
}

export function fleetPaths(): Record<string, Schema> {
  return {
    [`${API_PREFIX}/fleet/clusters`]: {
      get: {
        operationId: "fleetClusters",
        summary: `A page of clusters (default ${FLEET_PAGE}) with each window's state now, live and pushed status: what a fleet view draws a page from, in one call`,
        parameters: page,
        responses: {
          "200": json(
            obj({ commit: str, selector: str, ...paged, clusters: { type: "array", items: ref("FleetCluster") } }, ["commit", "total", "continue", "clusters"]),
          ),
          ...reads,
          ...errors(400),
        },
      },
    },
    [`${API_PREFIX}/fleet/windows`]: {
      get: {
        operationId: "listFleetWindows",
        summary:
          "The fleet windows, the clusters that include (and patch) each, and those its selector matches that do not; with ?selector= only the matching clusters, and the fleet windows that concern them. Compressed (br or gzip, as Accept-Encoding allows) and kept per commit and query, with an ETag (If-None-Match: 304)",
        parameters: [selector, ifNoneMatch],
        responses: {
          "200": json(obj({ commit: str, selector: str, windows: { type: "array", items: ref("FleetWindowListing") } }, ["commit", "windows"])),
          "304": notModified,
          ...reads,
          ...errors(400),
        },
      },
      post: {
        operationId: "addFleetWindow",
        summary: "Add a fleet window: its base under fleet/windows/<name>/ and an entry in every selected cluster's windows/kustomization.yaml; one commit",
        requestBody: { required: true, content: { "application/json": { schema: ref("FleetWindowRequest") } } },
        responses: {
          "201": json(obj({ ...written, window: str, clusters: { type: "array", items: str } }), "Created"),
          ...reads,
          ...errors(400, 409, 413, 415, 502, 503),
        },
      },
    },
    [`${API_PREFIX}/fleet/windows/{name}`]: {
      get: {
        operationId: "getFleetWindow",
        summary:
          "One fleet window: its base's spec as committed (what PUT changes), its selector, the clusters that include (and patch) it; the base's ETag for If-Match",
        parameters: [{ ...window, description: "Fleet window name" }],
        responses: {
          "200": json(
            obj({
              commit: str,
              name: str,
              selector: nullable(str),
              file: str,
              etag: str,
              spec: { ...nullable({ type: "object" }), description: "The base's spec as committed (before any cluster's patch)" },
              clusters: {
                type: "array",
                items: obj({ name: str, patched: { type: "boolean" }, labelsMatch: { type: "boolean" } }),
                description: "Clusters that include it",
              },
              missing: { type: "array", items: str, description: "Clusters its selector matches that do not include it" },
            }),
          ),
          ...reads,
          ...errors(400, 404),
        },
      },
      put: {
        operationId: "putFleetWindow",
        summary: "Change a fleet window's base (its spec): one commit for every cluster that includes it; their patches still apply",
        parameters: [
          { ...window, description: "Fleet window name" },
          { ...ifMatch, description: "Change only this version of the base (the etag of the window in a cluster that includes it)" },
        ],
        requestBody: { required: true, content: { "application/json": { schema: ref("PutWindowRequest") } } },
        responses: {
          "200": json(obj({ ...written, changed: { type: "boolean" }, window: str, clusters: { type: "integer", description: "Clusters that include it" } })),
          ...reads,
          ...errors(400, 404, 409, 412, 413, 415, 502, 503),
        },
      },
      delete: {
        operationId: "removeFleetWindow",
        summary:
          "Remove a fleet window as fluxgate fleet window remove does, in one commit: with the fleet folder its base files and its entry in fleet/kustomization.yaml (whatever the fleet's size), and the windows/kustomization.yaml of each cluster that patches it; in the per-cluster layout, also each including cluster's entry. 404 when there is no such fleet window",
        parameters: [
          { ...window, description: "Fleet window name" },
          reason,
          { ...ifMatch, description: "Remove only this version of the base (the etag of GET /api/v1/fleet/windows/{name})" },
        ],
        responses: {
          "200": json(
            obj({
              ...written,
              window: str,
              clusters: { type: "array", items: str, description: "The clusters that took it" },
              edited: {
                type: "array",
                items: str,
                description: "The clusters whose windows/kustomization.yaml the commit edits (their patch of it, their entry)",
              },
            }),
          ),
          ...reads,
          ...errors(400, 404, 412, 415, 502, 503),
        },
      },
    },
    [`${API_PREFIX}/clusters/{cluster}/windows/{name}/patch`]: {
      put: {
        operationId: "patchFleetWindow",
        summary: "Set this cluster's patch of a fleet window (its zone, its schedules): one commit of the cluster's windows/kustomization.yaml",
        parameters: [cluster, window, { ...ifMatch, description: "Change only this version of the cluster's windows/kustomization.yaml (its blob id)" }],
        requestBody: { required: true, content: { "application/json": { schema: ref("FleetPatchRequest") } } },
        responses: {
          "200": patched,
          ...reads,
          ...errors(400, 404, 409, 412, 413, 415, 502, 503),
        },
      },
      delete: {
        operationId: "removeFleetWindowPatch",
        summary:
          "Remove this cluster's patch of a fleet window, so it takes the base as it is: one commit of the cluster's windows/kustomization.yaml; 404 when the cluster has no such patch",
        parameters: [
          cluster,
          window,
          reason,
          { ...ifMatch, description: "Change only this version of the cluster's windows/kustomization.yaml (its blob id)" },
        ],
        responses: { "200": patched, ...reads, ...errors(400, 404, 409, 412, 502, 503) },
      },
    },
    [`${API_PREFIX}/fleet/calendar.ics`]: {
      get: {
        operationId: "fleetCalendar",
        summary:
          "iCalendar feed (RFC 5545) of the openings and freezes of the selected clusters' windows as each cluster runs them (fleet windows with the cluster's patch, overrides applied), one event for the clusters that share a stretch; 14 days back to 92 days ahead",
        security: [{ bearer: [] }, { accessToken: [] }],
        parameters: [
          selector,
          { name: "window", in: "query", schema: str, description: "Only the windows of this name (a fleet window, say)" },
          { name: "from", in: "query", schema: time, description: "Start of the range (default: 14 days before today)" },
          { name: "to", in: "query", schema: time, description: "End of the range (default: 92 days after today; at most 400 days)" },
        ],
        responses: { "200": { description: "The feed", content: { "text/calendar": { schema: str } } }, ...reads, ...errors(400, 404) },
      },
    },
    [`${API_PREFIX}/fleet/overrides`]: {
      get: {
        operationId: "listFleetOverrides",
        summary:
          "Fleet overrides (fleet freezes), each listed as one with its part on every cluster; with ?selector= their parts on the matching clusters, and those that have one. Compressed (br or gzip, as Accept-Encoding allows) and kept per commit, query and the overrides' stages, with an ETag (If-None-Match: 304)",
        parameters: [selector, ifNoneMatch],
        responses: {
          "200": json(obj({ commit: str, selector: str, overrides: { type: "array", items: ref("FleetOverride") } }, ["commit", "overrides"])),
          "304": notModified,
          ...reads,
          ...errors(400),
        },
      },
      post: {
        operationId: "createFleetOverride",
        summary:
          "Freeze (or open) every window of every cluster the selector matches until a time: one commit; with delivery direct also created in each cluster the service has a context for",
        requestBody: { required: true, content: { "application/json": { schema: ref("FleetOverrideRequest") } } },
        responses: {
          "201": json(
            obj({
              ...written,
              name: str,
              until: time,
              overrides: {
                type: "array",
                items: obj({ cluster: str, name: str, delivery: { enum: ["git", "direct"] }, error: str }, ["cluster", "name", "delivery"]),
              },
            }),
            "Created",
          ),
          ...reads,
          ...errors(400, 409, 413, 415, 502, 503),
        },
      },
    },
    [`${API_PREFIX}/fleet/overrides/{name}`]: {
      delete: {
        operationId: "endFleetOverride",
        summary:
          "End a fleet override everywhere: its overrides removed from every cluster in one commit; with delivery=direct also cancelled in each cluster the service has a context for",
        parameters: [{ ...window, description: "Fleet override name" }, reason, endDelivery],
        responses: { "200": json(obj({ ...written, ended: ref("FleetOverride"), direct: directEnds })), ...reads, ...errors(400, 404, 409, 502, 503) },
      },
    },
  };
}
