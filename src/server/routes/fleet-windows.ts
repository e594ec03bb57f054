// The fleet's windows (/fleet/windows): the base the whole fleet takes, listed with the clusters that take each; and a cluster's patch of one
// (/clusters/{cluster}/windows/{name}/patch); each write one commit.

import { Hono } from "hono";
import { parse } from "yaml";
import { validateWindow } from "../../api/index.ts";
import { inContext } from "../../errors.ts";
import { RepositoryInputError } from "../../gitops/errors.ts";
import { FLEET_FOLDER_FILE, fleetWindowLeftovers, planFleetWindowRemove, planFolderWindowAdd } from "../../gitops/fleet/folder.ts";
import { fleetWindowDir, fleetWindowFile } from "../../gitops/fleet/layout.ts";
import { selectClusters } from "../../gitops/fleet/select.ts";
import {
  checkFleetWindowName,
  clusterFleetEntries,
  fleetWindowInclusion,
  fleetWindowsOf,
  listFleetWindows,
  NoFleetPatchError,
  planFleetWindowBase,
  planFleetWindowPatch,
  planFleetWindowUnpatch,
  type ReadText,
} from "../../gitops/fleet/windows.ts";
import type { FileChange } from "../../gitops/changes.ts";
import { yamlFilesAt } from "../git/commit-files.ts";
import { validSpec, windowManifest, windowText } from "../git/edits.ts";
import type { WriteResult } from "../git/repository.ts";
import { authorize } from "../http/auth.ts";
import { bodyOf, FleetPatchBody, FleetWindowBody, PutBody } from "../http/bodies.ts";
import { EncodedAnswers, keptJsonResponse } from "../http/encoded.ts";
import { HttpError } from "../http/errors.ts";
import { selectedClusters } from "../http/paging.ts";
import { checkPreconditions, jsonBody, reasonOf } from "../http/request.ts";
import { changesOf, fleetWindowListing, fleetWindowNames, readerOf, usesFleetFolderModel } from "../model/fleet-listings.ts";
import { cluster, windowRecord } from "../model/lookup.ts";
import type { ClusterModel, Fleet, WindowRecord } from "../model/model.ts";
import { checkObjectName } from "../model/names.ts";
import { inSlices, jsonInSlices } from "../model/slices.ts";
import { API_PREFIX } from "../paths.ts";
import type { Env, Service } from "../service.ts";
import { windowView } from "../views/views.ts";

/** 409 for a patch of a window of the cluster's own: it is changed as its file. */
function notFleetWindow(k: ClusterModel, record: WindowRecord): HttpError {
  return new HttpError(
    409,
    `window ${record.name} of cluster ${k.entry.name} is the cluster's own (${record.path}), not a fleet window: change it with PUT or PATCH ${API_PREFIX}/clusters/${k.entry.name}/windows/${record.name}`,
  );
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

/** 404 for a fleet window that does not exist, naming those that do. */
function noFleetWindow(fleet: Fleet, name: string): HttpError {
  return new HttpError(
    404,
    `fleet window "${name}" does not exist (fleet windows: ${fleetWindowNames(fleet).join(", ") || "none"}); add one with POST ${API_PREFIX}/fleet/windows`,
  );
}

/** The fleet window routes, mounted under API_PREFIX. */
export function fleetWindowRoutes(service: Service): Hono<Env> {
  const routes = new Hono<Env>();
  const { repository } = service;

  // The fleet's listings name thousands of clusters: each answer is kept per commit and query, and compressed once.
  const listings = new EncodedAnswers();
  const encoder = new TextEncoder();

  routes.get(`/fleet/windows`, async (c) => {
    authorize(c, "read");
    const fleet = await repository.fleet();
    const { clusters, selector } = selectedClusters(c, fleet);
    const key = JSON.stringify(["windows", fleet.commit, selector, selector === null ? null : (c.req.query("names") ?? null)]);
    return await keptJsonResponse(c, listings, key, async () => {
      const windows = await fleetWindowListing(fleet);
      const answer =
        selector === null
          ? { commit: fleet.commit, windows }
          : { commit: fleet.commit, selector, windows: fleetWindowsOf(windows, new Set(clusters.map((k) => k.entry.name))) };
      return encoder.encode(await jsonInSlices(answer));
    });
  });

  routes.post(`/fleet/windows`, async (c) => {
    const identity = authorize(c, "write-windows");
    const body = bodyOf(FleetWindowBody, await jsonBody(c));
    const now = service.now();
    checkFleetWindowName(body.name);
    const written = await repository.write(identity, async (fleet) => {
      // Refused in the API's words (the field `selector`, a 409 naming the requests that change a
      // fleet window) before the planner, which speaks the command line's.
      if (fleetWindowNames(fleet).includes(body.name)) {
        throw new HttpError(
          409,
          `fleet window ${body.name} exists (${fleetWindowDir(body.name)}/): change its base with PUT ${API_PREFIX}/fleet/windows/${body.name}, or patch it for one cluster with PUT ${API_PREFIX}/clusters/{cluster}/windows/${body.name}/patch`,
        );
      }
      selectClusters(fleet.repository, body.selector, "selector");
      const read = await readerOf(fleet);
      if (usesFleetFolderModel(fleet)) {
        // The fleet folder: the CLI's plan, the window once with its clusterSelector and its entry in fleet/kustomization.yaml; no cluster's file changes.
        const folder = await yamlFilesAt(repository.git, fleet.commit, [FLEET_FOLDER_FILE]);
        const folderText = folder.find((f) => f.path === FLEET_FOLDER_FILE)?.text ?? null;
        const plan = planFolderWindowAdd(
          fleet.repository,
          (p) => (p === FLEET_FOLDER_FILE ? folderText : (fleet.fleetFiles.get(p)?.text ?? read(p))),
          { name: body.name, selector: body.selector, spec: body.spec },
          (manifest) => inContext({ field: `fleet window ${body.name}`, as: RepositoryInputError }, () => validateWindow(manifest, now)),
        );
        return {
          changes: await changesOf(plan.changes),
          subject: `fleet: add window ${body.name} for ${plan.clusters.length} cluster${plan.clusters.length === 1 ? "" : "s"} (${body.selector}, ${fleetWindowFile(body.name)})`,
          reason: body.reason,
          result: plan.clusters.map((k) => k.name),
        };
      }
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
    service.log({
      msg: "Committed fleet window",
      window: body.name,
      clusters: written.result.length,
      commit: written.commit,
      pushed: written.pushed,
      author: identity.name,
    });
    return c.json({ commit: written.commit, pushed: written.pushed, attempts: written.attempts, window: body.name, clusters: written.result }, 201);
  });

  routes.get(`/fleet/windows/:name`, async (c) => {
    authorize(c, "read");
    const name = c.req.param("name");
    checkFleetWindowName(name);
    const fleet = await repository.fleet();
    const base = fleet.fleetFiles.get(fleetWindowFile(name));
    if (base === undefined) throw noFleetWindow(fleet, name);

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

  routes.put(`/fleet/windows/:name`, async (c) => {
    const identity = authorize(c, "write-windows");
    const name = c.req.param("name");
    checkFleetWindowName(name);
    const body = bodyOf(PutBody, await jsonBody(c));
    // For the clusters that take it (a holiday freeze may take its country from their labels).
    const including = (await repository.fleet()).clusters.filter((k) => k.windows.some((w) => w.fleet?.window === name));
    const spec = validSpec(
      name,
      body.spec,
      service.now(),
      including.map((k) => ({ name: k.entry.name, labels: k.entry.labels ?? {} })),
    );
    const written = await repository.write(identity, (fleet) => {
      const base = fleet.fleetFiles.get(fleetWindowFile(name));
      if (base === undefined) throw noFleetWindow(fleet, name);
      checkPreconditions(c, base.blob, "fleet window");
      // The base keeps its labels and annotations (the fleet-window label, the selector); the service sets its spec.
      const text = windowText(base.text, windowManifest(name, spec));
      const including = fleet.clusters.filter((k) => k.windows.some((w) => w.fleet?.window === name)).length;
      return {
        changes: text === base.text ? {} : { [base.path]: text },
        subject: `fleet: change window ${name} (${including} cluster${including === 1 ? "" : "s"})`,
        reason: body.reason,
        result: including,
      };
    });
    const fleet = await repository.fleet();
    const base = fleet.fleetFiles.get(fleetWindowFile(name));
    if (base !== undefined) c.header("ETag", `"${base.blob}"`);
    service.log({
      msg: "Committed fleet window",
      window: name,
      clusters: written.result,
      commit: written.commit,
      changed: written.changed,
      pushed: written.pushed,
      author: identity.name,
    });
    return c.json({
      commit: written.commit,
      changed: written.changed,
      pushed: written.pushed,
      attempts: written.attempts,
      window: name,
      clusters: written.result,
    });
  });

  routes.delete(`/fleet/windows/:name`, async (c) => {
    const identity = authorize(c, "write-windows");
    const name = c.req.param("name");
    checkFleetWindowName(name);
    const reason = await reasonOf(c);
    const written = await repository.write(identity, async (fleet) => {
      const base = fleet.fleetFiles.get(fleetWindowFile(name));
      if (base === undefined) throw noFleetWindow(fleet, name);
      checkPreconditions(c, base.blob, "fleet window");
      // The clusters that take it (their windows/kustomization.yaml includes or patches it), a slice at a time: only theirs are read again.
      const takes = await inSlices(fleet.clusters, (k) => {
        const entries = k.fleetEntries ?? clusterFleetEntries(k.entry, k.kustomization?.text ?? null);
        return entries.includes.includes(name) || entries.patches.some((p) => p.name === name);
      });
      const read = await readerOf(fleet);
      const leftovers = fleet.clusters
        .filter((_, i) => takes[i] === true)
        .flatMap((k) => {
          const edit = fleetWindowLeftovers(k.entry, name, read);
          return edit === null ? [] : [{ cluster: k.entry.name, edit }];
        });
      // The CLI's plan (fluxgate fleet window remove): with the fleet folder, its base and its entry there, and the patches clusters keep.
      const changes = planFleetWindowRemove(
        read,
        name,
        leftovers.map((l) => l.edit),
      );
      const listing = (await fleetWindowListing(fleet)).find((l) => l.name === name);
      const clusters = listing?.clusters.map((k) => k.name) ?? [];
      // The clusters whose windows/kustomization.yaml the commit edits: those that patch it (and, without the fleet folder, those that include it).
      const edited = leftovers.map((l) => l.cluster);
      return {
        changes: await changesOf(changes),
        subject: `fleet: remove window ${name} from ${clusters.length} cluster${clusters.length === 1 ? "" : "s"}${read(FLEET_FOLDER_FILE) === null ? "" : ` (${fleetWindowDir(name)}/)`}`,
        reason,
        result: { clusters, edited },
      };
    });
    service.log({
      msg: "Removed fleet window",
      window: name,
      clusters: written.result.clusters.length,
      commit: written.commit,
      pushed: written.pushed,
      author: identity.name,
    });
    return c.json({ commit: written.commit, pushed: written.pushed, attempts: written.attempts, window: name, ...written.result });
  });

  routes.put(`/clusters/:cluster/windows/:name/patch`, async (c) => {
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
      const changes = planFleetWindowPatch(
        fleet.repository,
        await readerOf(fleet),
        { name: record.fleet.window, cluster: k.entry.name, timeZone: body.timeZone, schedules: body.schedules },
        now,
      );
      return { changes: await changesOf(changes), subject: `${k.entry.name}: patch fleet window ${record.fleet.window}`, reason: body.reason, result: null };
    });
    service.log({
      msg: "Committed fleet window patch",
      cluster: clusterName,
      window: name,
      commit: written.commit,
      changed: written.changed,
      pushed: written.pushed,
      author: identity.name,
    });
    return c.json(await patchAnswer(service, clusterName, name, written));
  });

  routes.delete(`/clusters/:cluster/windows/:name/patch`, async (c) => {
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
    service.log({
      msg: "Removed fleet window patch",
      cluster: clusterName,
      window: name,
      commit: written.commit,
      pushed: written.pushed,
      author: identity.name,
    });
    return c.json(await patchAnswer(service, clusterName, name, written));
  });

  return routes;
}
