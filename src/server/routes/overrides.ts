// The overrides of a cluster (/clusters/{cluster}/overrides): list, create (in Git, or also directly in the cluster), end one early, clean up the expired ones.

import { Hono } from "hono";
import { windowRefName, WindowOverrideSpecSchema } from "../../api/index.ts";
import { fleetFreezeFile } from "../../gitops/fleet/folder.ts";
import { overrideName, overrideOver, requestedOverrideEnd } from "../../policy/index.ts";
import { rfc3339 } from "../../schedule/format.ts";
import { addOverrideChanges, deleteOverrideChanges, overrideManifest } from "../git/edits.ts";
import { authorize } from "../http/auth.ts";
import { bodyOf, OverrideBody } from "../http/bodies.ts";
import { endDeliveryOf, endDirectly } from "../http/direct-end.ts";
import { HttpError } from "../http/errors.ts";
import { checkPreconditions, jsonBody, reasonOf } from "../http/request.ts";
import { cluster, windowRecord } from "../model/lookup.ts";
import { checkFileName, checkObjectName } from "../model/names.ts";
import { API_PREFIX } from "../paths.ts";
import type { Env, Service } from "../service.ts";
import { overrideView } from "../views/views.ts";

/** `base`, or `base-2`, `base-3`, ... : the first that is not taken. */
function uniqueName(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

/** The override routes, mounted under API_PREFIX. */
export function overrideRoutes(service: Service): Hono<Env> {
  const routes = new Hono<Env>();
  const { repository } = service;
  routes.get(`/clusters/:cluster/overrides`, async (c) => {
    authorize(c, "read");
    const k = cluster(await repository.fleet(), c.req.param("cluster"));
    const now = service.now();
    return c.json({ cluster: k.entry.name, overrides: k.overrides.map((o) => overrideView(o, now)) });
  });

  routes.post(`/clusters/:cluster/overrides`, async (c) => {
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
      throw new HttpError(
        409,
        `no live connection to cluster ${clusterName}: direct delivery needs the service started with --cluster-context ${clusterName}=CONTEXT`,
      );
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
    service.log({
      msg: "Committed override",
      cluster: clusterName,
      override: name,
      commit: written.commit,
      pushed: written.pushed,
      direct,
      author: identity.name,
    });
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
    return c.json(
      {
        commit: written.commit,
        pushed: written.pushed,
        delivery: direct ? "direct" : "git",
        override: manifest,
        cluster: created,
        ...(deliveryError === null ? {} : { deliveryError }),
      },
      201,
    );
  });

  routes.delete(`/clusters/:cluster/overrides/:name`, async (c) => {
    const identity = authorize(c, "write-overrides");
    const delivery = endDeliveryOf(c);
    const name = checkObjectName(c.req.param("name"), "override name");
    const clusterName = c.req.param("cluster");
    const reason = await reasonOf(c);
    const written = await repository.write(identity, (fleet) => {
      const k = cluster(fleet, clusterName);
      const record = k.overrides.find((o) => o.name === name && o.folderFreeze === undefined);
      const folder = k.overrides.find((o) => o.name === name)?.folderFreeze;
      if (record === undefined && folder !== undefined)
        throw new HttpError(
          409,
          `override ${name} of cluster ${k.entry.name} is fleet freeze ${folder.name} of the fleet folder (${fleetFreezeFile(folder.name)}), one object for every cluster it matches: end it with DELETE ${API_PREFIX}/fleet/overrides/${folder.name}`,
        );
      if (record === undefined)
        throw new HttpError(404, `cluster ${k.entry.name} has no override "${name}" (overrides: ${k.overrides.map((o) => o.name).join(", ") || "none"})`);
      checkPreconditions(c, record.etag, "override");
      // An override file broken by hand may name no window: the subject then names the override alone.
      const window = record.input?.window ?? windowRefName(record.manifest);
      return {
        changes: deleteOverrideChanges(k, [name]),
        subject: `${k.entry.name}: end override ${name}${window === null ? "" : ` of window ${window}`}`,
        reason,
        result: null,
      };
    });
    service.log({ msg: "Deleted override", cluster: clusterName, override: name, commit: written.commit, pushed: written.pushed, author: identity.name });
    const direct = delivery === "direct" ? { direct: await endDirectly(service, [{ cluster: clusterName, name }], identity.name, written.commit) } : {};
    return c.json({ commit: written.commit, pushed: written.pushed, attempts: written.attempts, deleted: [name], ...direct });
  });

  routes.delete(`/clusters/:cluster/overrides`, async (c) => {
    const identity = authorize(c, "write-overrides");
    if (c.req.query("expired") !== "true") {
      throw new HttpError(400, "only expired overrides are deleted together: add ?expired=true (end one override with DELETE .../overrides/{name})", {
        problems: [{ path: "expired", message: 'must be "true"' }],
      });
    }
    const clusterName = c.req.param("cluster");
    const reason = await reasonOf(c);
    const now = service.now();
    const written = await repository.write(identity, (fleet) => {
      const k = cluster(fleet, clusterName);
      // The cluster's own files: a fleet folder freeze is the fleet's (DELETE /fleet/overrides/{name}).
      const expired = k.overrides.filter((o) => o.folderFreeze === undefined && o.input !== null && overrideOver(o.input, now)).map((o) => o.name);
      if (expired.length === 0) return { changes: {}, subject: "", reason, result: expired };
      return {
        changes: deleteOverrideChanges(k, expired),
        subject: `${k.entry.name}: remove ${expired.length} expired override${expired.length === 1 ? "" : "s"}`,
        reason,
        result: expired,
      };
    });
    service.log({ msg: "Deleted expired overrides", cluster: clusterName, overrides: written.result, commit: written.commit, author: identity.name });
    return c.json({ commit: written.commit, changed: written.changed, pushed: written.pushed, deleted: written.result });
  });
  return routes;
}
