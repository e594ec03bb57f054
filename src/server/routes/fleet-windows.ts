// The fleet's writes in the API: fleet windows (the base for the whole fleet, a patch for one cluster) and fleet overrides (a fleet freeze), each one commit.

import type { Context, Hono } from "hono";
import { parse } from "yaml";
import { z } from "zod";
import type { FileChange } from "../../gitops/changes.ts";
import { fleetWindowDir, fleetWindowFile, FLEET_WINDOWS_DIR } from "../../gitops/fleet/layout.ts";
import { overrideFile } from "../../gitops/layout.ts";
import { dropOverrideEntries, fleetOverridesOf, FleetOverrideGrouper, planFleetOverride, stageFleetOverrides, type FleetOverrideGroup, type OverrideFile } from "../../gitops/fleet/overrides.ts";
import { selectClusters } from "../../gitops/fleet/select.ts";
import {
  checkFleetWindowName,
  clusterFleetEntries,
  fleetWindowInclusion,
  fleetWindowsOf,
  FleetWindowLister,
  listFleetWindows,
  NoFleetPatchError,
  planFleetWindowBase,
  planFleetWindowPatch,
  planFleetWindowUnpatch,
  type FleetWindowListing,
  type ReadText,
} from "../../gitops/fleet/windows.ts";
import { ReasonSchema } from "../../api/index.ts";
import { requestedOverrideEnd } from "../../policy/index.ts";
import { rfc3339 } from "../../schedule/format.ts";
import { bodyOf, PutBody } from "../http/bodies.ts";
import { endDeliveryOf, endDirectly } from "../http/direct-end.ts";
import { windowManifest, windowText, type FileChanges } from "../git/edits.ts";
import { EncodedAnswers, keptJsonResponse } from "../http/encoded.ts";
import { HttpError } from "../http/errors.ts";
import { selectedClusters } from "../http/paging.ts";
import { inSlices, jsonInSlices } from "../model/slices.ts";
import { jsonBody } from "../http/request.ts";
import type { ClusterModel, Fleet, WindowRecord } from "../model/model.ts";
import type { WriteResult } from "../git/repository.ts";
import { checkObjectName } from "../model/names.ts";
import { authorize, checkPreconditions, cluster, reasonOf, validSpec, windowRecord } from "./clusters.ts";
import type { Env, Service } from "../service.ts";
import { windowView } from "../views/views.ts";

const api = "/api/v1";

/** Body of POST /fleet/windows. */
export const FleetWindowBody = z.strictObject({
  name: z.string().min(1),
  selector: z.string().min(1, "is required: the clusters that take the window, e.g. ring=prod"),
  spec: z.unknown(),
  reason: ReasonSchema,
});

/** Body of PUT /clusters/{cluster}/windows/{name}/patch. */
export const FleetPatchBody = z
  .strictObject({
    timeZone: z.string().min(1).optional(),
    schedules: z.array(z.unknown()).min(1).optional(),
    reason: ReasonSchema,
  })
  .refine((b) => b.timeZone !== undefined || b.schedules !== undefined, { message: "say what the cluster changes: timeZone, schedules, or both" });

/** Body of POST /fleet/overrides. */
export const FleetOverrideBody = z
  .strictObject({
    selector: z.string().min(1, "is required: the clusters to stop, e.g. region=eu"),
    action: z.enum(["Freeze", "Open"]).default("Freeze"),
    until: z.string().optional(),
    duration: z.string().optional(),
    reason: ReasonSchema,
    name: z.string().optional(),
    windows: z.array(z.string().min(1)).min(1).optional(),
    delivery: z.enum(["git", "direct"]).optional(),
  })
  .superRefine((b, ctx) => {
    if ((b.until === undefined) === (b.duration === undefined)) ctx.addIssue({ code: "custom", message: 'give exactly one of until (RFC 3339) and duration (e.g. "2h")' });
  });

const readers = new WeakMap<Fleet, ReadText>();

/**
 * Reads the files of a fleet's model: windows/kustomization.yaml of each cluster and the fleet
 * windows' bases. Made once per commit, in turns of the event loop (30,000 files at 10,000 clusters).
 */
async function readerOf(fleet: Fleet): Promise<ReadText> {
  let read = readers.get(fleet);
  if (read === undefined) {
    const texts = new Map<string, string>();
    for (const f of fleet.fleetFiles.values()) texts.set(f.path, f.text);
    await inSlices(fleet.clusters, (k) => {
      if (k.kustomization !== null) texts.set(k.kustomization.path, k.kustomization.text);
      for (const w of k.windows) if (w.fleet === null) texts.set(w.path, w.text);
    });
    read = (path) => texts.get(path) ?? null;
    readers.set(fleet, read);
  }
  return read;
}

/** The service's file changes of a plan, in turns of the event loop (a fleet freeze is thousands of files). */
async function changesOf(changes: readonly FileChange[]): Promise<FileChanges> {
  const out: FileChanges = {};
  await inSlices(changes, (c) => {
    if (c.before !== c.after) out[c.path] = c.after;
  });
  return out;
}

// The fleet's listings, made once per commit (a fleet is one commit's) from what its model has
// already read: a read costs the same whatever the number of clusters' files.
const windowListings = new WeakMap<Fleet, Promise<FleetWindowListing[]>>();
const overrideGroups = new WeakMap<Fleet, Promise<FleetOverrideGroup[]>>();

/** The fleet windows of a commit and the clusters that take each (GET /fleet/windows), a slice of clusters at a time. */
function fleetWindowListing(fleet: Fleet): Promise<FleetWindowListing[]> {
  let listing = windowListings.get(fleet);
  if (listing === undefined) {
    const models = new Map(fleet.clusters.map((k) => [k.entry.name, k]));
    const none = { includes: [], patches: [] };
    const lister = new FleetWindowLister(fleetWindowNames(fleet), (path) => fleet.fleetFiles.get(path)?.text ?? null, (c) => {
      const k = models.get(c.name);
      return k === undefined ? none : (k.fleetEntries ?? clusterFleetEntries(k.entry, k.kustomization?.text ?? null));
    });
    listing = inSlices(fleet.repository.clusters, (c) => lister.add(c)).then(() => lister.listing());
    windowListings.set(fleet, listing);
    listing.catch(() => windowListings.delete(fleet));
  }
  return listing;
}

/**
 * The fleet overrides of a commit, grouped (GET /fleet/overrides adds their stage at the time of
 * the request): the override files of each cluster (parsed as the model parsed them), a cluster at
 * a time in turns of the event loop, groups in the order they first appear.
 */
function fleetOverrideGroups(fleet: Fleet): Promise<FleetOverrideGroup[]> {
  let groups = overrideGroups.get(fleet);
  if (groups === undefined) {
    const grouper = new FleetOverrideGrouper();
    groups = inSlices(fleet.clusters, (k) => grouper.add(k.overrides.map((o): OverrideFile => ({ cluster: k.entry, name: o.name, text: o.text, manifest: o.manifest })))).then(() => grouper.groups());
    overrideGroups.set(fleet, groups);
    groups.catch(() => overrideGroups.delete(fleet));
  }
  return groups;
}

/** The names of the fleet windows (directories of fleet/windows/). */
function fleetWindowNames(fleet: Fleet): string[] {
  const names = new Set<string>();
  for (const path of fleet.fleetFiles.keys()) {
    const m = new RegExp(`^${FLEET_WINDOWS_DIR}/([^/]+)/`).exec(path);
    if (m !== null) names.add(m[1] as string);
  }
  return [...names].sort();
}

/** The manifest of each override file a plan writes (for direct delivery). */
function manifestsOf(changes: FileChanges, overrides: ReadonlyArray<{ cluster: string; name: string }>, fleet: Fleet): Array<{ cluster: string; name: string; manifest: Record<string, unknown> }> {
  const byName = new Map(fleet.clusters.map((k) => [k.entry.name, k]));
  return overrides.flatMap((o) => {
    const k = byName.get(o.cluster);
    const text = k === undefined ? null : changes[`${k.windowsDir}/overrides/${o.name}.yaml`];
    return typeof text === "string" ? [{ cluster: o.cluster, name: o.name, manifest: parse(text) as Record<string, unknown> }] : [];
  });
}

/** 409 for a patch of a window of the cluster's own: it is changed as its file. */
function notFleetWindow(k: ClusterModel, record: WindowRecord): HttpError {
  return new HttpError(409, `window ${record.name} of cluster ${k.entry.name} is the cluster's own (${record.path}), not a fleet window: change it with PUT or PATCH /api/v1/clusters/${k.entry.name}/windows/${record.name}`);
}

/** The answer of a write of a cluster's patch: the commit, and the window as the cluster now renders it (null when its folder does not build). */
async function patchAnswer(service: Service, clusterName: string, name: string, written: WriteResult<unknown>): Promise<Record<string, unknown>> {
  const k = cluster(await service.repository.fleet(), clusterName);
  const record = k.windows.find((w) => w.name === name);
  return {
    commit: written.commit,
    changed: written.changed,
    pushed: written.pushed,
    attempts: written.attempts,
    fleetError: k.fleetError,
    window: record === undefined ? null : { ...windowView(record, k.overrides, service.now()), manifest: record.manifest },
  };
}

/** Registers the fleet window and fleet override routes. */
export function fleetEditRoutes(app: Hono<Env>, service: Service): void {
  const { repository } = service;

  // The fleet's listings name thousands of clusters: each answer is kept per commit and query, and compressed once.
  const listings = new EncodedAnswers();
  const encoder = new TextEncoder();

  app.get(`${api}/fleet/windows`, async (c) => {
    authorize(c, "read");
    const fleet = await repository.fleet();
    const { clusters, selector } = selectedClusters(c, fleet);
    const key = JSON.stringify(["windows", fleet.commit, selector, selector === null ? null : (c.req.query("names") ?? null)]);
    return await keptJsonResponse(c, listings, key, async () => {
      const windows = await fleetWindowListing(fleet);
      const answer = selector === null ? { commit: fleet.commit, windows } : { commit: fleet.commit, selector, windows: fleetWindowsOf(windows, new Set(clusters.map((k) => k.entry.name))) };
      return encoder.encode(await jsonInSlices(answer));
    });
  });

  app.post(`${api}/fleet/windows`, async (c) => {
    const identity = authorize(c, "write-windows");
    const body = bodyOf(FleetWindowBody, await jsonBody(c));
    const now = service.now();
    checkFleetWindowName(body.name);
    const written = await repository.write(identity, async (fleet) => {
      // Refused in the API's words (the field `selector`, a 409 naming the requests that change a
      // fleet window) before the planner, which speaks the command line's.
      if (fleetWindowNames(fleet).includes(body.name)) {
        throw new HttpError(409, `fleet window ${body.name} exists (${fleetWindowDir(body.name)}/): change its base with PUT /api/v1/fleet/windows/${body.name}, or patch it for one cluster with PUT /api/v1/clusters/{cluster}/windows/${body.name}/patch`);
      }
      selectClusters(fleet.repository, body.selector, "selector");
      const read = await readerOf(fleet);
      const base = planFleetWindowBase(fleet.repository, read, { name: body.name, selector: body.selector, spec: body.spec }, now);
      // A cluster at a time, in short turns of the event loop: a fleet window for 7,500 clusters edits 7,500 files.
      const included = await inSlices(base.clusters, (k) => fleetWindowInclusion(k, body.name, read));
      const plan = { changes: [...base.changes, ...included.filter((c) => c !== null)], clusters: base.clusters };
      return {
        changes: await changesOf(plan.changes),
        subject: `fleet: add window ${body.name} for ${plan.clusters.length} cluster${plan.clusters.length === 1 ? "" : "s"} (${body.selector})`,
        reason: body.reason,
        result: plan.clusters.map((k) => k.name),
      };
    });
    service.log({ msg: "Committed fleet window", window: body.name, clusters: written.result.length, commit: written.commit, pushed: written.pushed, author: identity.name });
    return c.json({ commit: written.commit, pushed: written.pushed, attempts: written.attempts, window: body.name, clusters: written.result }, 201);
  });

  app.get(`${api}/fleet/windows/:name`, async (c) => {
    authorize(c, "read");
    const name = c.req.param("name");
    checkFleetWindowName(name);
    const fleet = await repository.fleet();
    const base = fleet.fleetFiles.get(fleetWindowFile(name));
    if (base === undefined) throw new HttpError(404, `fleet window "${name}" does not exist (fleet windows: ${fleetWindowNames(fleet).join(", ") || "none"}); add one with POST /api/v1/fleet/windows`);
    // The fleet's listing of the commit, made once (a listing of its own would read every cluster's kustomization.yaml again).
    const listing = (await fleetWindowListing(fleet)).find((l) => l.name === name) ?? listFleetWindows(fleet.repository, [name], await readerOf(fleet))[0];
    let spec: unknown;
    try {
      spec = (parse(base.text) as { spec?: unknown } | null)?.spec ?? null;
    } catch {
      spec = null; // check reports a base that is not YAML; the answer says what it can
    }
    c.header("ETag", `"${base.blob}"`);
    return c.json({ commit: fleet.commit, ...listing, etag: base.blob, spec });
  });

  app.put(`${api}/fleet/windows/:name`, async (c) => {
    const identity = authorize(c, "write-windows");
    const name = c.req.param("name");
    checkFleetWindowName(name);
    const body = bodyOf(PutBody, await jsonBody(c));
    const spec = validSpec(name, body.spec, service.now());
    const written = await repository.write(identity, (fleet) => {
      const base = fleet.fleetFiles.get(fleetWindowFile(name));
      if (base === undefined) throw new HttpError(404, `fleet window "${name}" does not exist (fleet windows: ${fleetWindowNames(fleet).join(", ") || "none"}); add one with POST /api/v1/fleet/windows`);
      checkPreconditions(c, base.blob, "fleet window");
      // The base keeps its labels and annotations (the fleet-window label, the selector); the service sets its spec.
      const text = windowText(base.text, windowManifest(name, spec));
      const including = fleet.clusters.filter((k) => k.windows.some((w) => w.fleet?.window === name)).length;
      return { changes: text === base.text ? {} : { [base.path]: text }, subject: `fleet: change window ${name} (${including} cluster${including === 1 ? "" : "s"})`, reason: body.reason, result: including };
    });
    const fleet = await repository.fleet();
    const base = fleet.fleetFiles.get(fleetWindowFile(name));
    if (base !== undefined) c.header("ETag", `"${base.blob}"`);
    service.log({ msg: "Committed fleet window", window: name, clusters: written.result, commit: written.commit, changed: written.changed, pushed: written.pushed, author: identity.name });
    return c.json({ commit: written.commit, changed: written.changed, pushed: written.pushed, attempts: written.attempts, window: name, clusters: written.result });
  });

  app.put(`${api}/clusters/:cluster/windows/:name/patch`, async (c) => {
    const identity = authorize(c, "write-windows");
    const clusterName = c.req.param("cluster");
    const name = checkObjectName(c.req.param("name"), "window name");
    const body = bodyOf(FleetPatchBody, await jsonBody(c));
    const now = service.now();
    const written = await repository.write(identity, async (fleet) => {
      const k = cluster(fleet, clusterName);
      const record = windowRecord(k, name);
      if (record.fleet === null) throw notFleetWindow(k, record);
      checkPreconditions(c, k.kustomization?.blob ?? null, "cluster's windows/kustomization.yaml");
      const changes = planFleetWindowPatch(fleet.repository, await readerOf(fleet), { name: record.fleet.window, cluster: k.entry.name, timeZone: body.timeZone, schedules: body.schedules }, now);
      return { changes: await changesOf(changes), subject: `${k.entry.name}: patch fleet window ${record.fleet.window}`, reason: body.reason, result: null };
    });
    service.log({ msg: "Committed fleet window patch", cluster: clusterName, window: name, commit: written.commit, changed: written.changed, pushed: written.pushed, author: identity.name });
    return c.json(await patchAnswer(service, clusterName, name, written));
  });

  app.delete(`${api}/clusters/:cluster/windows/:name/patch`, async (c) => {
    const identity = authorize(c, "write-windows");
    const clusterName = c.req.param("cluster");
    const name = checkObjectName(c.req.param("name"), "window name");
    const reason = await reasonOf(c);
    const written = await repository.write(identity, async (fleet) => {
      const k = cluster(fleet, clusterName);
      const own = k.windows.find((w) => w.name === name && w.fleet === null);
      if (own !== undefined) throw notFleetWindow(k, own);
      checkPreconditions(c, k.kustomization?.blob ?? null, "cluster's windows/kustomization.yaml");
      // Only the cluster's kustomization.yaml is read: the removal costs the same in a fleet of any size.
      const file = k.kustomization;
      const read: ReadText = (path) => (file !== null && path === file.path ? file.text : null);
      let changes: FileChange[];
      try {
        changes = planFleetWindowUnpatch(fleet.repository, read, { name, cluster: k.entry.name });
      } catch (e) {
        if (e instanceof NoFleetPatchError) throw new HttpError(404, e.message, { cause: e });
        throw e;
      }
      return { changes: await changesOf(changes), subject: `${k.entry.name}: remove its patch of fleet window ${name}`, reason, result: null };
    });
    service.log({ msg: "Removed fleet window patch", cluster: clusterName, window: name, commit: written.commit, pushed: written.pushed, author: identity.name });
    return c.json(await patchAnswer(service, clusterName, name, written));
  });

  app.get(`${api}/fleet/overrides`, async (c) => {
    authorize(c, "read");
    const fleet = await repository.fleet();
    const { clusters, selector } = selectedClusters(c, fleet);
    const overrides = stageFleetOverrides(await fleetOverrideGroups(fleet), service.now());
    // The stages are the only part that changes with the time of the request.
    const key = JSON.stringify(["overrides", fleet.commit, selector, selector === null ? null : (c.req.query("names") ?? null), overrides.map((o) => [o.name, o.stage])]);
    return await keptJsonResponse(c, listings, key, async () => {
      const answer = selector === null ? { commit: fleet.commit, overrides } : { commit: fleet.commit, selector, overrides: fleetOverridesOf(overrides, new Set(clusters.map((k) => k.entry.name))) };
      return encoder.encode(await jsonInSlices(answer));
    });
  });

  app.post(`${api}/fleet/overrides`, async (c) => fleetOverride(c, service));

  app.delete(`${api}/fleet/overrides/:name`, async (c) => {
    const identity = authorize(c, "write-overrides");
    const delivery = endDeliveryOf(c);
    const name = checkObjectName(c.req.param("name"), "fleet override name");
    const reason = await reasonOf(c);
    const now = service.now();
    const written = await repository.write(identity, async (fleet) => {
      const groups = await fleetOverrideGroups(fleet);
      const listing = stageFleetOverrides(groups.filter((g) => g.name === name), now)[0];
      if (listing === undefined) throw new HttpError(404, `no fleet override is named ${name} (fleet overrides: ${groups.map((g) => g.name).join(", ") || "none"})`);
      const byCluster = new Map<string, Array<{ name: string }>>();
      for (const o of listing.overrides) byCluster.set(o.cluster, [...(byCluster.get(o.cluster) ?? []), o]);
      const models = new Map(fleet.clusters.map((k) => [k.entry.name, k]));
      const read = await readerOf(fleet);
      // A cluster at a time, in short turns of the event loop, as the freeze was written: its files removed, its kustomization.yaml edited.
      const parts = await inSlices([...byCluster], ([cluster, overrides]): FileChange[] => {
        const k = models.get(cluster);
        if (k === undefined) return [];
        const edit = dropOverrideEntries(k.entry, overrides, read);
        const removed = overrides.map((o): FileChange => ({ path: overrideFile(k.entry, o.name), before: k.overrides.find((r) => r.name === o.name)?.text ?? "", after: null }));
        return edit === null ? removed : [...removed, edit];
      });
      return { changes: await changesOf(parts.flat()), subject: `fleet: end override ${name} on ${byCluster.size} cluster${byCluster.size === 1 ? "" : "s"}`, reason, result: listing };
    });
    service.log({ msg: "Ended fleet override", override: name, overrides: written.result.overrides.length, commit: written.commit, pushed: written.pushed, author: identity.name });
    const direct = delivery === "direct" ? { direct: await endDirectly(service, written.result.overrides, identity.name, written.commit) } : {};
    return c.json({ commit: written.commit, pushed: written.pushed, attempts: written.attempts, ended: written.result, ...direct });
  });
}

/** POST /fleet/overrides: one commit with the override for every window of every matching cluster, delivered directly where asked and possible. */
async function fleetOverride(c: Context<Env>, service: Service): Promise<Response> {
  const identity = authorize(c, "write-overrides");
  const body = bodyOf(FleetOverrideBody, await jsonBody(c));
  const direct = body.delivery === "direct";
  if (direct) authorize(c, "deliver-directly");
  if (body.name !== undefined) checkObjectName(body.name, "name");
  const now = service.now();
  const until = requestedOverrideEnd(body, now);
  const written = await service.repository.write(identity, async (fleet) => {
    const selected = new Set(selectClusters(fleet.repository, body.selector, "selector").map((e) => e.name));
    if (body.name !== undefined && (await fleetOverrideGroups(fleet)).some((l) => l.name === body.name)) {
      throw new HttpError(409, `a fleet override named ${body.name} exists: give another name, or end it first with DELETE /api/v1/fleet/overrides/${body.name}`);
    }
    const clusters = fleet.clusters.filter((k) => selected.has(k.entry.name));
    const unknown = clusters.find((k) => k.fleetError !== null);
    if (unknown !== undefined) throw new HttpError(409, `cluster ${unknown.entry.name}: ${unknown.fleetError ?? ""}`);
    const inputs = clusters.map((k) => ({ entry: k.entry, windows: k.windows.filter((w) => w.window !== null).map((w) => w.name), overrides: k.overrides.map((o) => o.name) }));
    const request = { name: body.name, action: body.action, until, reason: body.reason, windows: body.windows, now, requestedBy: identity.name };
    const read = await readerOf(fleet);
    // A cluster at a time, in short turns of the event loop: a freeze of thousands of clusters is
    // thousands of files to write, and other requests are answered meanwhile. Each cluster's part
    // is planned as the whole would plan it (the name comes from the request and `now`).
    const parts = await inSlices(inputs, (input) => planFleetOverride([input], read, request));
    const plan = parts.length === 0 ? planFleetOverride([], read, request) : { name: (parts[0] as (typeof parts)[number]).name, changes: parts.flatMap((p) => p.changes), overrides: parts.flatMap((p) => p.overrides) };
    const changes = await changesOf(plan.changes);
    const verb = body.action === "Freeze" ? "freeze" : "open";
    return {
      changes,
      subject: `fleet: ${verb} ${clusters.length} cluster${clusters.length === 1 ? "" : "s"} (${body.selector}) until ${rfc3339(Math.ceil(until / 1000) * 1000)} (override ${plan.name})`,
      reason: body.reason,
      // Parsed again only to be delivered directly: a freeze of thousands of clusters from Git alone does not pay for it.
      result: { name: plan.name, overrides: plan.overrides, manifests: direct ? manifestsOf(changes, plan.overrides, fleet) : [] },
    };
  });
  const { name, overrides, manifests } = written.result;
  service.log({ msg: "Committed fleet override", override: name, clusters: new Set(overrides.map((o) => o.cluster)).size, overrides: overrides.length, commit: written.commit, pushed: written.pushed, direct, author: identity.name });
  const delivered: Array<{ cluster: string; name: string; delivery: "direct" | "git"; error?: string }> = [];
  const toDeliver = new Map(manifests.map((m) => [`${m.cluster}/${m.name}`, m]));
  for (const o of overrides) {
    const live = service.live;
    const m = toDeliver.get(`${o.cluster}/${o.name}`);
    if (m === undefined || live === null || live.contextOf(m.cluster) === null) {
      delivered.push({ cluster: o.cluster, name: o.name, delivery: "git" });
      continue;
    }
    try {
      await live.create(m.cluster, m.manifest);
      delivered.push({ cluster: m.cluster, name: m.name, delivery: "direct" });
    } catch (e) {
      // The commit stands (Flux applies it from Git): the answer says the shortcut failed for this cluster.
      const error = `committed as ${written.commit.slice(0, 12)} (Flux will apply it from Git), but creating it directly failed: ${e instanceof Error ? e.message : String(e)}`;
      service.log({ msg: "Direct delivery failed", level: "error", cluster: m.cluster, override: m.name, error });
      delivered.push({ cluster: m.cluster, name: m.name, delivery: "git", error });
    }
  }
  return c.json({ commit: written.commit, pushed: written.pushed, attempts: written.attempts, name, until: rfc3339(Math.ceil(until / 1000) * 1000), overrides: delivered }, 201);
}
