// The fleet's overrides (/fleet/overrides): a fleet freeze (or opening) of every window of the clusters a selector matches, in one commit; listed grouped;
// ended together.

import { Hono, type Context } from "hono";
import type { FileChange } from "../../gitops/changes.ts";
import { dropOverrideEntries, fleetOverridesOf, planFleetOverride, stageFleetOverrides } from "../../gitops/fleet/overrides.ts";
import { FLEET_FOLDER_FILE, fleetFreezeFile, listFolderFreezes, planFolderFreeze, planFolderFreezeEnd } from "../../gitops/fleet/folder.ts";
import type { FleetOverrideListing } from "../../gitops/fleet/overrides.ts";
import { selectClusters } from "../../gitops/fleet/select.ts";
import { overrideFile } from "../../gitops/layout.ts";
import { requestedOverrideEnd } from "../../policy/index.ts";
import { rfc3339 } from "../../schedule/format.ts";
import { authorize } from "../http/auth.ts";
import { bodyOf, FleetOverrideBody } from "../http/bodies.ts";
import { endDeliveryOf, endDirectly } from "../http/direct-end.ts";
import { EncodedAnswers, keptJsonResponse } from "../http/encoded.ts";
import { HttpError } from "../http/errors.ts";
import { selectedClusters } from "../http/paging.ts";
import { jsonBody, reasonOf } from "../http/request.ts";
import { yamlFilesAt } from "../git/commit-files.ts";
import { changesOf, fleetOverrideGroups, manifestsOf, readerOf, usesFleetFolderModel } from "../model/fleet-listings.ts";
import { checkObjectName } from "../model/names.ts";
import { inSlices, jsonInSlices } from "../model/slices.ts";
import { API_PREFIX } from "../paths.ts";
import type { Fleet } from "../model/model.ts";
import type { Env, Service } from "../service.ts";

/** The fleet override routes, mounted under API_PREFIX. */
export function fleetOverrideRoutes(service: Service): Hono<Env> {
  const routes = new Hono<Env>();
  const { repository } = service;
  // The fleet's listings name thousands of clusters: each answer is kept per commit and query, and compressed once.
  const listings = new EncodedAnswers();
  const encoder = new TextEncoder();

  routes.get(`/fleet/overrides`, async (c) => {
    authorize(c, "read");
    const fleet = await repository.fleet();
    const { clusters, selector } = selectedClusters(c, fleet);
    const overrides = stageFleetOverrides(await fleetOverrideGroups(fleet), service.now());
    // The stages are the only part that changes with the time of the request.
    const key = JSON.stringify([
      "overrides",
      fleet.commit,
      selector,
      selector === null ? null : (c.req.query("names") ?? null),
      overrides.map((o) => [o.name, o.stage]),
    ]);
    return await keptJsonResponse(c, listings, key, async () => {
      const answer =
        selector === null
          ? { commit: fleet.commit, overrides }
          : { commit: fleet.commit, selector, overrides: fleetOverridesOf(overrides, new Set(clusters.map((k) => k.entry.name))) };
      return encoder.encode(await jsonInSlices(answer));
    });
  });

  routes.post(`/fleet/overrides`, async (c) => fleetOverride(c, service));

  routes.delete(`/fleet/overrides/:name`, async (c) => {
    const identity = authorize(c, "write-overrides");
    const delivery = endDeliveryOf(c);
    const name = checkObjectName(c.req.param("name"), "fleet override name");
    const reason = await reasonOf(c);
    const now = service.now();
    const written = await repository.write(identity, async (fleet) => {
      if (usesFleetFolderModel(fleet)) {
        const read = await folderReader(service, fleet, name);
        const ended = planFolderFreezeEnd(read, name);
        const text = read(fleetFreezeFile(name));
        if (ended !== null && text !== null) {
          const listing = listFolderFreezes(fleet.repository, [{ name, text }], now)[0] as FleetOverrideListing;
          const clusters = new Set(listing.overrides.map((o) => o.cluster)).size;
          return {
            changes: await changesOf(ended),
            subject: `fleet: end override ${name} on ${clusters} cluster${clusters === 1 ? "" : "s"} (${fleetFreezeFile(name)})`,
            reason,
            result: listing,
          };
        }
      }
      const groups = await fleetOverrideGroups(fleet);
      const listing = stageFleetOverrides(
        groups.filter((g) => g.name === name),
        now,
      )[0];
      if (listing === undefined)
        throw new HttpError(404, `no fleet override is named ${name} (fleet overrides: ${groups.map((g) => g.name).join(", ") || "none"})`);
      const byCluster = new Map<string, Array<{ name: string }>>();
      for (const o of listing.overrides) byCluster.set(o.cluster, [...(byCluster.get(o.cluster) ?? []), o]);
      const models = new Map(fleet.clusters.map((k) => [k.entry.name, k]));
      const read = await readerOf(fleet);
      // A cluster at a time, in short turns of the event loop, as the freeze was written: its files removed, its kustomization.yaml edited.
      const parts = await inSlices([...byCluster], ([cluster, overrides]): FileChange[] => {
        const k = models.get(cluster);
        if (k === undefined) return [];
        const edit = dropOverrideEntries(k.entry, overrides, read);
        const removed = overrides.map((o): FileChange => ({
          path: overrideFile(k.entry, o.name),
          before: k.overrides.find((r) => r.name === o.name)?.text ?? "",
          after: null,
        }));
        return edit === null ? removed : [...removed, edit];
      });
      return {
        changes: await changesOf(parts.flat()),
        subject: `fleet: end override ${name} on ${byCluster.size} cluster${byCluster.size === 1 ? "" : "s"}`,
        reason,
        result: listing,
      };
    });
    service.log({
      msg: "Ended fleet override",
      override: name,
      overrides: written.result.overrides.length,
      commit: written.commit,
      pushed: written.pushed,
      author: identity.name,
    });
    const direct = delivery === "direct" ? { direct: await endDirectly(service, written.result.overrides, identity.name, written.commit) } : {};
    return c.json({ commit: written.commit, pushed: written.pushed, attempts: written.attempts, ended: written.result, ...direct });
  });
  return routes;
}

/** What a fleet freeze whose name is taken is answered. */
function nameInUse(name: string): string {
  return `a fleet override named ${name} exists: give another name, or end it first with DELETE ${API_PREFIX}/fleet/overrides/${name}`;
}

/** The fleet folder's files a fleet freeze (or its end) reads at the fleet's commit: fleet/kustomization.yaml and the freeze file of `name`. */
async function folderReader(service: Service, fleet: Fleet, name: string | undefined): Promise<(path: string) => string | null> {
  const paths = [FLEET_FOLDER_FILE, ...(name === undefined ? [] : [fleetFreezeFile(name)])];
  const texts = new Map((await yamlFilesAt(service.repository.git, fleet.commit, paths)).map((f) => [f.path, f.text]));
  return (path) => texts.get(path) ?? null;
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
    if (usesFleetFolderModel(fleet)) {
      // The fleet folder: the CLI's plan, one freeze file and its entry in fleet/kustomization.yaml, whatever the fleet's size.
      const read = await folderReader(service, fleet, body.name);
      if (body.name !== undefined && read(fleetFreezeFile(body.name)) !== null) throw new HttpError(409, nameInUse(body.name));
      const request = { name: body.name, action: body.action, until, reason: body.reason, windows: body.windows, now, requestedBy: identity.name };
      const plan = planFolderFreeze(fleet.repository, read, body.selector, request);
      const text = plan.changes.find((ch) => ch.path === fleetFreezeFile(plan.name))?.after ?? "";
      const listing = listFolderFreezes(fleet.repository, [{ name: plan.name, text }], now)[0];
      const verb = body.action === "Freeze" ? "freeze" : "open";
      return {
        changes: await changesOf(plan.changes),
        subject: `fleet: ${verb} ${plan.clusters.length} cluster${plan.clusters.length === 1 ? "" : "s"} (${body.selector}) until ${rfc3339(Math.ceil(until / 1000) * 1000)} (override ${plan.name}, ${fleetFreezeFile(plan.name)})`,
        reason: body.reason,
        // One object with a clusterSelector, which Flux applies to each cluster from Git: nothing to deliver directly.
        result: { name: plan.name, overrides: listing?.overrides ?? [], manifests: [] as ReturnType<typeof manifestsOf> },
      };
    }
    const selected = new Set(selectClusters(fleet.repository, body.selector, "selector").map((e) => e.name));
    if (body.name !== undefined && (await fleetOverrideGroups(fleet)).some((l) => l.name === body.name)) {
      throw new HttpError(409, nameInUse(body.name));
    }
    const clusters = fleet.clusters.filter((k) => selected.has(k.entry.name));
    const unknown = clusters.find((k) => k.fleetError !== null);
    if (unknown !== undefined) throw new HttpError(409, `cluster ${unknown.entry.name}: ${unknown.fleetError ?? ""}`);
    const inputs = clusters.map((k) => ({
      entry: k.entry,
      windows: k.windows.filter((w) => w.window !== null).map((w) => w.name),
      overrides: k.overrides.map((o) => o.name),
    }));
    const request = { name: body.name, action: body.action, until, reason: body.reason, windows: body.windows, now, requestedBy: identity.name };
    const read = await readerOf(fleet);
    // A cluster at a time, in short turns of the event loop: a freeze of thousands of clusters is
    // thousands of files to write, and other requests are answered meanwhile. Each cluster's part
    // is planned as the whole would plan it (the name comes from the request and `now`).
    const parts = await inSlices(inputs, (input) => planFleetOverride([input], read, request));
    const plan =
      parts.length === 0
        ? planFleetOverride([], read, request)
        : { name: (parts[0] as (typeof parts)[number]).name, changes: parts.flatMap((p) => p.changes), overrides: parts.flatMap((p) => p.overrides) };
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
  service.log({
    msg: "Committed fleet override",
    override: name,
    clusters: new Set(overrides.map((o) => o.cluster)).size,
    overrides: overrides.length,
    commit: written.commit,
    pushed: written.pushed,
    direct,
    author: identity.name,
  });
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
  return c.json(
    { commit: written.commit, pushed: written.pushed, attempts: written.attempts, name, until: rfc3339(Math.ceil(until / 1000) * 1000), overrides: delivered },
    201,
  );
}
