// The REST API under /api/v1: clusters, windows, overrides, timelines, calendars, live status and previews.

import { inContext } from "../../errors.ts";
import type { Context, Hono } from "hono";
import { requestReason, validateWindow, windowRefName, WindowOverrideSpecSchema, type ReconciliationWindowSpec } from "../../api/index.ts";
import { rfc3339 } from "../../schedule/format.ts";
import { addOverrideChanges, deleteWindowChanges, overrideManifest, putWindowChanges, windowManifest } from "../git/edits.ts";
import { bodyOf, OverrideBody, PreviewBody, PutBody } from "../http/bodies.ts";
import { HttpError } from "../http/errors.ts";
import { entityTags, jsonBody, parseInstant, rangeOf } from "../http/request.ts";
import { clusterStatus } from "./status.ts";
import { clusterOf, type ClusterModel, type Fleet, type OverrideRecord, type WindowRecord } from "../model/model.ts";
import { checkFileName, checkObjectName } from "../model/names.ts";
import { clusterPage } from "../http/paging.ts";
import { clusterCalendar, targetCalendar } from "../views/ics.ts";
import { allows, calendarTokenFor, rolesFor, type Identity, type Permission } from "../http/tokens.ts";
import { previewInWorker } from "../engine/preview.ts";
import { EncodedAnswers } from "../http/encoded.ts";
import { clusterTimelineJson, fleetTimelineResponse, timelineSourceOf } from "../views/timeline.ts";
import { windowView } from "../views/views.ts";
import type { Env, Service } from "../service.ts";
import { overrideName, overrideOver, overrideStage, requestedOverrideEnd } from "../../policy/index.ts";
import { FLEET_OVERRIDE_LABEL } from "../../gitops/fleet/layout.ts";

const TIMELINE_MAX_DAYS = 93;
export { MAX_PREVIEW_CHANGES } from "../engine/preview.ts";
const CALENDAR_BACK_MS = 14 * 86_400_000;
const CALENDAR_AHEAD_DAYS = 92;

/** The range of a calendar feed: `?from=` (default: two weeks before today) to `?to=` (default: 92 days after today; at most 400 days). */
export function calendarRange(c: Context<Env>, now: number): { from: number; to: number } {
  const day = Math.floor(now / 86_400_000) * 86_400_000;
  const from = c.req.query("from") === undefined ? day - CALENDAR_BACK_MS : parseInstant(c.req.query("from") as string, "from");
  const { to } = c.req.query("to") === undefined ? { to: day + CALENDAR_AHEAD_DAYS * 86_400_000 } : rangeOf(c, now, 0, 400);
  return { from, to };
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
    throw new HttpError(identity.anonymous ? 401 : 403, `${who} may not ${what[permission]}; that needs a token with role ${rolesFor(permission).join(" or ")}`, {
      headers: identity.anonymous ? { "WWW-Authenticate": 'Bearer realm="fluxgate"' } : {},
    });
  }
  return identity;
}

/** A cluster of the fleet; 404 naming the clusters there are. */
export function cluster(fleet: Fleet, name: string): ClusterModel {
  const found = clusterOf(fleet, name);
  if (found === null) {
    const known = fleet.clusters.map((c) => c.entry.name).join(", ") || "none";
    throw new HttpError(404, `cluster "${name.slice(0, 80)}" is not in fluxgate.yaml (clusters: ${known})`);
  }
  return found;
}

/** A window of a cluster; 404 naming its windows. */
export function windowRecord(c: ClusterModel, name: string): WindowRecord {
  checkObjectName(name, "window name");
  const record = c.windows.find((w) => w.name === name);
  if (record === undefined) throw new HttpError(404, `cluster ${c.entry.name} has no window "${name}" (windows: ${c.windows.map((w) => w.name).join(", ") || "none"})`);
  return record;
}

/** Refuses to change a fleet window as if it were the cluster's own file: 409 saying where it is edited. */
export function checkOwnWindow(k: ClusterModel, record: WindowRecord | null): void {
  if (record === null || record.fleet === null) return;
  throw new HttpError(
    409,
    `window ${record.name} of cluster ${k.entry.name} is fleet window ${record.fleet.window} (${record.fleet.base}): change it for every cluster with PUT /api/v1/fleet/windows/${record.fleet.window}, or for this cluster alone with PUT /api/v1/clusters/${k.entry.name}/windows/${record.name}/patch`,
  );
}

export interface OverrideView {
  name: string;
  path: string;
  valid: boolean;
  problems: OverrideRecord["problems"];
  window: string | null;
  action: "Open" | "Freeze" | null;
  reason: string | null;
  until: string | null;
  requestedAt: string | null;
  active: boolean;
  expired: boolean;
  requestedBy: string | null;
  /** The fleet override (fleet freeze) it is part of (label fluxgate.io/fleet-override), or null for one of the cluster's own. */
  fleetOverride: string | null;
  etag: string;
}

/** The fleet override an override file's manifest belongs to (its label), or null. */
function fleetOverrideOf(manifest: unknown): string | null {
  const labels = (manifest as { metadata?: { labels?: Record<string, unknown> } } | null)?.metadata?.labels;
  const value = labels?.[FLEET_OVERRIDE_LABEL];
  return typeof value === "string" ? value : null;
}

/** An override as the API shows it: `active` between its request and its end, `expired` after. */
export function overrideView(o: OverrideRecord, now: number): OverrideView {
  return {
    name: o.name,
    path: o.path,
    valid: o.override !== null,
    problems: o.problems,
    window: o.input?.window ?? null,
    action: o.input?.action ?? null,
    reason: o.input?.reason ?? null,
    until: o.override?.spec.until ?? null,
    requestedAt: o.input === null ? null : rfc3339(o.input.start),
    // As the controller's phases have it (policy/override.ts): a cancelled override is over too.
    active: o.input !== null && overrideStage(o.input, now) === "active",
    expired: o.input !== null && overrideOver(o.input, now),
    requestedBy: o.requestedBy,
    fleetOverride: fleetOverrideOf(o.manifest),
    etag: o.etag,
  };
}

/** Validates a spec as the controller would; 400 with field paths (`spec.schedules[0].start`) otherwise. */
export function validSpec(name: string, spec: unknown, now: number): ReconciliationWindowSpec {
  return inContext({ heading: "the window is not valid" }, () => validateWindow(windowManifest(name, spec as ReconciliationWindowSpec), now).window.spec);
}

/** If-Match and If-None-Match against the ETag of what the request changes (null: it does not exist). */
export function checkPreconditions(c: Context<Env>, etag: string | null, what = "window"): void {
  const ifMatch = entityTags(c.req.header("if-match"));
  const ifNoneMatch = entityTags(c.req.header("if-none-match"));
  if (ifMatch !== null && !(etag !== null && (ifMatch.includes("*") || ifMatch.includes(etag)))) {
    throw new HttpError(412, etag === null ? `the ${what} does not exist any more (If-Match)` : `the ${what} changed since you read it (it is now at "${etag}"); read it again and redo your change`);
  }
  if (ifNoneMatch !== null && etag !== null && (ifNoneMatch.includes("*") || ifNoneMatch.includes(etag))) {
    throw new HttpError(412, `the ${what} already exists (If-None-Match)`);
  }
}

/** `base`, or `base-2`, `base-3`, ... : the first that is not taken. */
export function uniqueName(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

/** The reason of a DELETE: `?reason=` or a JSON body `{"reason"}`; 400 when missing. */
export async function reasonOf(c: Context<Env>): Promise<string> {
  const fromBody = (c.req.header("content-type") ?? "").startsWith("application/json") ? (await jsonBody(c)).reason : undefined;
  return requestReason(c.req.query("reason") ?? fromBody, 'say why: ?reason=... or a JSON body {"reason": "..."}; it goes into the commit message');
}

/**
 * Writes a window (PUT, and PATCH with `specOf` applying the patch to the window as committed);
 * every check runs on the fleet the commit is planned on, so a refused request commits nothing.
 */
export async function putWindow(
  c: Context<Env>,
  service: Service,
  identity: Identity,
  name: string,
  specOf: (existing: WindowRecord | null) => ReconciliationWindowSpec,
  reason: string,
): Promise<[Record<string, unknown>, 200 | 201]> {
  const clusterName = c.req.param("cluster") as string;
  const written = await service.repository.write(identity, (fleet) => {
    const k = cluster(fleet, clusterName);
    const existing = k.windows.find((w) => w.name === name) ?? null;
    checkOwnWindow(k, existing);
    checkPreconditions(c, existing?.etag ?? null);
    return {
      changes: putWindowChanges(k, name, specOf(existing)),
      subject: `${k.entry.name}: ${existing === null ? "add" : "change"} window ${name}`,
      reason,
      result: { created: existing === null },
    };
  });
  const fleet = await service.repository.fleet();
  const k = cluster(fleet, clusterName);
  const record = windowRecord(k, name);
  c.header("ETag", `"${record.etag}"`);
  service.log({ msg: "Committed window", cluster: clusterName, window: name, commit: written.commit, changed: written.changed, pushed: written.pushed, attempts: written.attempts, author: identity.name });
  return [
    { commit: written.commit, changed: written.changed, pushed: written.pushed, attempts: written.attempts, created: written.result.created, window: windowView(record, k.overrides, service.now()) },
    written.result.created && written.changed ? 201 : 200,
  ];
}

/** Registers the /api/v1 routes on `app`. */
export function apiRoutes(app: Hono<Env>, service: Service): void {
  const { repository } = service;
  const api = "/api/v1";

  app.get(`${api}/me`, (c) => {
    const me = c.get("identity");
    const permissions = (["read", "write-windows", "write-overrides", "deliver-directly"] as const).filter((p) => allows(me.role, p));
    return c.json({ name: me.name, role: me.role, anonymous: me.anonymous, permissions });
  });

  app.get(`${api}/calendar-token`, (c) => {
    const me = authorize(c, "read");
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "")?.[1];
    if (me.anonymous || presented === undefined) throw new HttpError(401, "a calendar token is made from your token: sign in with one", { headers: { "WWW-Authenticate": 'Bearer realm="fluxgate"' } });
    return c.json({ token: calendarTokenFor(presented), scope: "calendar", note: "reads the .ics calendar feeds and nothing else; it stops working when the token it was made from is replaced" });
  });

  app.get(`${api}/repository`, async (c) => {
    authorize(c, "read");
    const fleet = await repository.fleet();
    return c.json({
      commit: fleet.commit,
      branch: repository.branch,
      remote: repository.hasRemote,
      lastSyncError: repository.lastSyncError,
      lastReset: repository.lastReset,
      types: fleet.repository.types,
      // The dashboard asks for pushed status only when there is some to ask for.
      receiver: service.push !== null,
    });
  });

  app.get(`${api}/clusters`, async (c) => {
    authorize(c, "read");
    const page = clusterPage(c, await repository.fleet());
    return c.json({
      ...(page.selector === null ? {} : { selector: page.selector }),
      clusters: page.clusters.map((k) => ({ name: k.entry.name, path: k.entry.path, timeZone: k.entry.timeZone, labels: k.entry.labels ?? {} })),
      total: page.total,
      continue: page.continue,
    });
  });

  app.get(`${api}/clusters/:cluster/windows`, async (c) => {
    authorize(c, "read");
    const k = cluster(await repository.fleet(), c.req.param("cluster"));
    const now = service.now();
    return c.json({ cluster: k.entry.name, timeZone: k.entry.timeZone, fleetError: k.fleetError, windows: k.windows.map((w) => windowView(w, k.overrides, now)) });
  });

  app.get(`${api}/clusters/:cluster/windows/:name`, async (c) => {
    authorize(c, "read");
    const fleet = await repository.fleet();
    const k = cluster(fleet, c.req.param("cluster"));
    const record = windowRecord(k, c.req.param("name"));
    c.header("ETag", `"${record.etag}"`);
    return c.json({ ...windowView(record, k.overrides, service.now()), cluster: k.entry.name, commit: fleet.commit, manifest: record.manifest });
  });

  app.put(`${api}/clusters/:cluster/windows/:name`, async (c) => {
    const identity = authorize(c, "write-windows");
    const name = checkFileName(c.req.param("name"), "window name");
    const body = bodyOf(PutBody, await jsonBody(c));
    const spec = validSpec(name, body.spec, service.now());
    return c.json(...(await putWindow(c, service, identity, name, () => spec, body.reason)));
  });

  app.delete(`${api}/clusters/:cluster/windows/:name`, async (c) => {
    const identity = authorize(c, "write-windows");
    const name = checkObjectName(c.req.param("name"), "window name");
    const clusterName = c.req.param("cluster");
    const reason = await reasonOf(c);
    const written = await repository.write(identity, (fleet) => {
      const k = cluster(fleet, clusterName);
      const record = windowRecord(k, name);
      checkOwnWindow(k, record);
      checkPreconditions(c, record.etag);
      // Its overrides go with it: left behind, they would name a window that no longer exists.
      const overrides = k.overrides.filter((o) => o.input?.window === name || windowRefName(o.manifest) === name).map((o) => o.name);
      const subject = `${k.entry.name}: delete window ${name}${overrides.length === 0 ? "" : ` and its overrides ${overrides.join(", ")}`}`;
      return { changes: deleteWindowChanges(k, name, overrides), subject, reason, result: overrides };
    });
    service.log({ msg: "Deleted window", cluster: clusterName, window: name, overrides: written.result, commit: written.commit, pushed: written.pushed, author: identity.name });
    return c.json({ commit: written.commit, pushed: written.pushed, attempts: written.attempts, deletedOverrides: written.result });
  });

  app.get(`${api}/clusters/:cluster/overrides`, async (c) => {
    authorize(c, "read");
    const k = cluster(await repository.fleet(), c.req.param("cluster"));
    const now = service.now();
    return c.json({ cluster: k.entry.name, overrides: k.overrides.map((o) => overrideView(o, now)) });
  });

  app.post(`${api}/clusters/:cluster/overrides`, async (c) => {
    const identity = authorize(c, "write-overrides");
    const clusterName = c.req.param("cluster");
    const body = bodyOf(OverrideBody, await jsonBody(c));
    const direct = body.delivery === "direct";
    if (direct) authorize(c, "deliver-directly");
    const now = service.now();
    const nowSecond = Math.floor(now / 1000) * 1000;
    const until = requestedOverrideEnd(body, now);
    if (body.name !== undefined) checkFileName(body.name, "override name");
    checkObjectName(body.window, "window");
    const spec = bodyOf(WindowOverrideSpecSchema, { windowRef: { name: body.window }, action: body.action, until: rfc3339(until), reason: body.reason });
    const live = service.live;
    if (direct && (live === null || live.contextOf(clusterName) === null)) {
      throw new HttpError(409, `no live connection to cluster ${clusterName}: direct delivery needs the service started with --cluster-context ${clusterName}=CONTEXT`);
    }
    const written = await repository.write(identity, (fleet) => {
      const k = cluster(fleet, clusterName);
      windowRecord(k, body.window);
      const taken = new Set(k.overrides.map((o) => o.name));
      if (body.name !== undefined && taken.has(body.name)) throw new HttpError(409, `cluster ${clusterName} already has an override named ${body.name}`);
      const name = body.name ?? uniqueName(overrideName(body.window, body.action, now), taken);
      const manifest = overrideManifest(name, spec, nowSecond, identity.name);
      return {
        changes: addOverrideChanges(k, name, manifest),
        subject: `${k.entry.name}: ${body.action === "Open" ? "open" : "freeze"} window ${body.window} until ${rfc3339(until)} (override ${name})`,
        reason: body.reason,
        result: { name, manifest },
      };
    });
    const { name, manifest } = written.result;
    service.log({ msg: "Committed override", cluster: clusterName, override: name, commit: written.commit, pushed: written.pushed, direct, author: identity.name });
    let created: { name: string; uid: string | null } | null = null;
    let deliveryError: string | null = null;
    if (direct && live !== null) {
      try {
        const object = await live.create(clusterName, manifest);
        created = { name, uid: object.metadata?.uid ?? null };
      } catch (e) {
        // The commit stands (Flux applies it from Git): the answer is a success that says the shortcut failed.
        deliveryError = `the override was committed as ${written.commit.slice(0, 12)} (Flux will apply it from Git), but creating it directly in the cluster failed: ${e instanceof Error ? e.message : String(e)}`;
        service.log({ msg: "Direct delivery failed", level: "error", cluster: clusterName, override: name, error: deliveryError });
      }
    }
    return c.json({ commit: written.commit, pushed: written.pushed, delivery: direct ? "direct" : "git", override: manifest, cluster: created, ...(deliveryError === null ? {} : { deliveryError }) }, 201);
  });

  app.get(`${api}/clusters/:cluster/timeline`, async (c) => {
    authorize(c, "read");
    const k = cluster(await repository.fleet(), c.req.param("cluster"));
    const { from, to } = rangeOf(c, service.now(), 7, TIMELINE_MAX_DAYS);
    // Computed in a worker thread: a minute-level window over 93 days must not hold the event loop.
    return c.body(await clusterTimelineJson(k, from, to), 200, { "Content-Type": "application/json" });
  });

  // The fleet timeline's pages, kept compressed per commit, range and page.
  const fleetTimelines = new EncodedAnswers();
  app.get(`${api}/timeline`, async (c) => {
    authorize(c, "read");
    const fleet = await repository.fleet();
    const { from, to } = rangeOf(c, service.now(), 7, TIMELINE_MAX_DAYS);
    const page = clusterPage(c, fleet);
    // Each cluster's timeline is computed in a worker thread; the event loop only joins their bytes.
    return await fleetTimelineResponse(c, fleetTimelines, fleet, page, from, to);
  });

  app.get(`${api}/clusters/:cluster/calendar.ics`, async (c) => {
    authorize(c, "read");
    const k = cluster(await repository.fleet(), c.req.param("cluster"));
    const now = service.now();
    const { from, to } = calendarRange(c, now);
    const target = c.req.query("target");
    if (target === undefined) {
      const text = clusterCalendar(k, { now, from, to, version: service.version });
      return c.body(text, 200, { "Content-Type": "text/calendar; charset=utf-8", "Content-Disposition": `inline; filename="${k.entry.name}.ics"` });
    }
    // One target: when it may take changes, from all its windows and overrides (what the controller decides).
    const text = targetCalendar(timelineSourceOf(k), target, { now, from, to, version: service.version });
    if (text === null) throw new HttpError(404, `no window of cluster ${k.entry.name} selects target "${target.slice(0, 200)}": give KIND/NAMESPACE/NAME of a target in the cluster's timeline, e.g. Kustomization/flux-system/apps`);
    return c.body(text, 200, { "Content-Type": "text/calendar; charset=utf-8", "Content-Disposition": `inline; filename="${k.entry.name}-${target.replace(/[^A-Za-z0-9._-]+/g, "-")}.ics"` });
  });

  app.get(`${api}/clusters/:cluster/status`, async (c) => {
    authorize(c, "read");
    // Live (a context) and pushed status, and each target from the newest of them.
    return c.json(await clusterStatus(service, cluster(await repository.fleet(), c.req.param("cluster"))));
  });

  app.post(`${api}/preview`, async (c) => {
    authorize(c, "read");
    const body = bodyOf(PreviewBody, await jsonBody(c));
    const now = service.now();
    const from = body.from === undefined ? Math.floor(now / 60_000) * 60_000 : parseInstant(body.from, "from");
    const to = body.to === undefined ? from + 7 * 86_400_000 : parseInstant(body.to, "to");
    if (to <= from || to - from > TIMELINE_MAX_DAYS * 86_400_000) throw new HttpError(400, `to must be after from, at most ${TIMELINE_MAX_DAYS} days`);
    // The engine's work runs in a worker thread: a preview of a minute-level window over 93 days must not hold the event loop.
    const outcome = await previewInWorker({ spec: body.spec, from, to, count: body.count ?? 5, now });
    if (!outcome.ok) throw new HttpError(outcome.status, outcome.message, { problems: outcome.problems });
    return c.body(outcome.json, 200, { "Content-Type": "application/json" });
  });
}
