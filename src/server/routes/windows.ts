// The windows of a cluster (/clusters/{cluster}/windows): read, create or replace (PUT), change in part (PATCH), delete; each write one commit.

import { Hono, type Context } from "hono";
import { requestReason, windowRefName, type ReconciliationWindowSpec } from "../../api/index.ts";
import { deleteWindowChanges, putWindowChanges, validSpec } from "../git/edits.ts";
import { authorize } from "../http/auth.ts";
import { bodyOf, PutBody } from "../http/bodies.ts";
import { HttpError } from "../http/errors.ts";
import { patchBody, patched } from "../http/patch.ts";
import { checkPreconditions, jsonBody, reasonOf } from "../http/request.ts";
import type { Identity } from "../http/tokens.ts";
import { checkOwnWindow, cluster, windowRecord } from "../model/lookup.ts";
import type { WindowRecord } from "../model/model.ts";
import { checkFileName, checkObjectName } from "../model/names.ts";
import type { Env, Service } from "../service.ts";
import { windowView } from "../views/views.ts";

/**
 * Writes a window (PUT, and PATCH with `specOf` applying the patch to the window as committed);
 * every check runs on the fleet the commit is planned on, so a refused request commits nothing.
 */
async function putWindow(
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
  service.log({
    msg: "Committed window",
    cluster: clusterName,
    window: name,
    commit: written.commit,
    changed: written.changed,
    pushed: written.pushed,
    attempts: written.attempts,
    author: identity.name,
  });
  return [
    {
      commit: written.commit,
      changed: written.changed,
      pushed: written.pushed,
      attempts: written.attempts,
      created: written.result.created,
      window: windowView(record, k.overrides, service.now()),
    },
    written.result.created && written.changed ? 201 : 200,
  ];
}

/** The window routes, mounted under API_PREFIX. */
export function windowRoutes(service: Service): Hono<Env> {
  const routes = new Hono<Env>();
  const { repository } = service;
  /** The cluster of the path as the time engine sees it (its labels place a holiday freeze); none when it is not in the fleet (the write says so). */
  const clusterContexts = async (name: string): Promise<Array<{ name: string; labels: Readonly<Record<string, string>> }>> => {
    const k = (await repository.fleet()).clusters.find((m) => m.entry.name === name);
    return k === undefined ? [] : [{ name: k.entry.name, labels: k.entry.labels ?? {} }];
  };
  routes.get(`/clusters/:cluster/windows`, async (c) => {
    authorize(c, "read");
    const k = cluster(await repository.fleet(), c.req.param("cluster"));
    const now = service.now();
    return c.json({
      cluster: k.entry.name,
      timeZone: k.entry.timeZone,
      fleetError: k.fleetError,
      windows: k.windows.map((w) => windowView(w, k.overrides, now)),
    });
  });

  routes.get(`/clusters/:cluster/windows/:name`, async (c) => {
    authorize(c, "read");
    const fleet = await repository.fleet();
    const k = cluster(fleet, c.req.param("cluster"));
    const record = windowRecord(k, c.req.param("name"));
    c.header("ETag", `"${record.etag}"`);
    return c.json({ ...windowView(record, k.overrides, service.now()), cluster: k.entry.name, commit: fleet.commit, manifest: record.manifest });
  });

  routes.put(`/clusters/:cluster/windows/:name`, async (c) => {
    const identity = authorize(c, "write-windows");
    const name = checkFileName(c.req.param("name"), "window name");
    const body = bodyOf(PutBody, await jsonBody(c));
    const spec = validSpec(name, body.spec, service.now(), await clusterContexts(c.req.param("cluster")));
    return c.json(...(await putWindow(c, service, identity, name, () => spec, body.reason)));
  });

  routes.patch(`/clusters/:cluster/windows/:name`, async (c) => {
    const identity = authorize(c, "write-windows");
    const name = checkFileName(c.req.param("name"), "window name");
    const body = await patchBody(c);
    const reason = requestReason(
      c.req.query("reason") ?? (body.kind === "merge" ? body.reason : null),
      `say why: ${body.kind === "merge" ? '"reason" in the patch or ' : ""}?reason=...; it goes into the commit message`,
    );
    const now = service.now();
    const contexts = await clusterContexts(c.req.param("cluster"));
    const specOf = (existing: WindowRecord | null): ReconciliationWindowSpec => {
      if (existing === null) throw new HttpError(404, `cluster ${c.req.param("cluster")} has no window "${name}"; create it with PUT`);
      return validSpec(name, patched(existing, body), now, contexts);
    };
    return c.json(...(await putWindow(c, service, identity, name, specOf, reason)));
  });

  routes.delete(`/clusters/:cluster/windows/:name`, async (c) => {
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
      const overrides = k.overrides
        .filter((o) => o.folderFreeze === undefined && (o.input?.window === name || windowRefName(o.manifest) === name))
        .map((o) => o.name);
      const subject = `${k.entry.name}: delete window ${name}${overrides.length === 0 ? "" : ` and its overrides ${overrides.join(", ")}`}`;
      return { changes: deleteWindowChanges(k, name, overrides), subject, reason, result: overrides };
    });
    service.log({
      msg: "Deleted window",
      cluster: clusterName,
      window: name,
      overrides: written.result,
      commit: written.commit,
      pushed: written.pushed,
      author: identity.name,
    });
    return c.json({ commit: written.commit, pushed: written.pushed, attempts: written.attempts, deletedOverrides: written.result });
  });
  return routes;
}
