// Freezes from a calendar (POST …/windows/{name}/freezes/import, body text/calendar): an .ics file's events as freezes of a cluster's window or a fleet window, one commit.

import { Hono, type Context } from "hono";
import { DEFAULT_TIME_ZONE, requestReason } from "../../api/index.ts";
import type { DroppedFreeze, FreezeImport, FreezeImportRequest } from "../../gitops/calendar/freeze-merge.ts";
import type { ImportedFreeze } from "../../gitops/calendar/ics-import.ts";
import { fleetWindowFile } from "../../gitops/fleet/layout.ts";
import { checkFleetWindowName } from "../../gitops/fleet/windows.ts";
import { inWorker } from "../engine/workers.ts";
import type { WriteResult } from "../git/repository.ts";
import { authorize } from "../http/auth.ts";
import { HttpError } from "../http/errors.ts";
import { checkPreconditions } from "../http/request.ts";
import { fleetWindowNames } from "../model/fleet-listings.ts";
import { checkOwnWindow, cluster, windowRecord } from "../model/lookup.ts";
import { checkObjectName } from "../model/names.ts";
import { API_PREFIX } from "../paths.ts";
import type { Env, Service } from "../service.ts";

/** The calendar in the body: `Content-Type: text/calendar` (415 otherwise). */
async function calendarBody(c: Context<Env>): Promise<string> {
  const type = c.req.header("content-type") ?? "";
  if (!/^text\/calendar\b/i.test(type)) throw new HttpError(415, 'send the calendar (an .ics file) as the body with "Content-Type: text/calendar"');
  return c.req.text();
}

function options(c: Context<Env>): { reason: string; prune: boolean } {
  const prune = c.req.query("prune");
  if (prune !== undefined && prune !== "true" && prune !== "false") throw new HttpError(400, `prune=${prune}: give prune=true or prune=false`);
  return {
    reason: requestReason(c.req.query("reason"), "say why: ?reason=...; it goes into the commit message"),
    prune: prune === "true",
  };
}

/** Plans the import in an engine worker: each recurring event is checked over ten years, which must not hold the event loop. */
async function planned(text: string, file: string, request: FreezeImportRequest, now: number): Promise<FreezeImport> {
  const outcome = await inWorker("freezeImport", { text, file, request, now });
  if (!outcome.ok) throw new HttpError(400, outcome.message, { problems: outcome.problems });
  return outcome.plan;
}

const freezeOf = (f: ImportedFreeze): Record<string, unknown> => ({ uid: f.uid, summary: f.summary, kind: f.kind, freeze: f.freeze });

/** The answer of an import: the commit and what happened to each freeze. */
function answer(written: WriteResult<{ plan: FreezeImport; path: string }>, window: Record<string, unknown>): Record<string, unknown> {
  const { plan, path } = written.result;
  const dropped = (d: DroppedFreeze): Record<string, unknown> => ({ uid: d.uid, reason: d.reason });
  return {
    commit: written.commit,
    changed: written.changed,
    pushed: written.pushed,
    attempts: written.attempts,
    ...window,
    file: path,
    timeZone: plan.timeZone,
    calendar: plan.calendarName,
    added: plan.added.map(freezeOf),
    updated: plan.updated.map(freezeOf),
    removed: plan.removed.map(dropped),
    kept: plan.kept.map(dropped),
    unchanged: plan.unchanged.length,
  };
}

const counts = (plan: FreezeImport): string => `${plan.added.length} added, ${plan.updated.length} updated, ${plan.removed.length} removed`;

/** The calendar import routes, mounted under API_PREFIX. */
export function freezeImportRoutes(service: Service): Hono<Env> {
  const routes = new Hono<Env>();
  const { repository } = service;

  routes.post(`/clusters/:cluster/windows/:name/freezes/import`, async (c) => {
    const identity = authorize(c, "write-windows");
    const name = checkObjectName(c.req.param("name"), "window name");
    const clusterName = c.req.param("cluster");
    const { reason, prune } = options(c);
    const calendar = await calendarBody(c);
    const written = await repository.write(identity, async (fleet) => {
      const k = cluster(fleet, clusterName);
      const record = windowRecord(k, name);
      checkOwnWindow(k, record);
      checkPreconditions(c, record.etag);
      const plan = await planned(record.text, record.path, { calendar, prune }, service.now());
      return {
        changes: plan.text === record.text ? {} : { [record.path]: plan.text },
        subject: `${k.entry.name}: import calendar freezes into window ${name} (${counts(plan)})`,
        reason,
        result: { plan, path: record.path },
      };
    });
    service.log({
      msg: "Imported calendar freezes",
      cluster: clusterName,
      window: name,
      commit: written.commit,
      changed: written.changed,
      author: identity.name,
    });
    return c.json(answer(written, { cluster: clusterName, window: name }));
  });

  routes.post(`/fleet/windows/:name/freezes/import`, async (c) => {
    const identity = authorize(c, "write-windows");
    const name = c.req.param("name");
    checkFleetWindowName(name);
    const { reason, prune } = options(c);
    const calendar = await calendarBody(c);
    const written = await repository.write(identity, async (fleet) => {
      const base = fleet.fleetFiles.get(fleetWindowFile(name));
      if (base === undefined)
        throw new HttpError(
          404,
          `fleet window "${name}" does not exist (fleet windows: ${fleetWindowNames(fleet).join(", ") || "none"}); add one with POST ${API_PREFIX}/fleet/windows`,
        );
      checkPreconditions(c, base.blob, "fleet window");
      // Every cluster that takes the window reads its freezes in the zone kustomize renders for it (a patch may change it).
      const alsoReadIn: Array<{ timeZone: string; who: string }> = [];
      for (const k of fleet.clusters) {
        if (k.fleetError !== null)
          throw new HttpError(
            409,
            `cluster ${k.entry.name}: its windows do not build, so the zone it would read fleet window ${name} in is not known: ${k.fleetError}`,
          );
        for (const w of k.windows) {
          if (w.fleet?.window !== name) continue;
          const zone = (w.manifest as { spec?: { timeZone?: unknown } } | null)?.spec?.timeZone;
          alsoReadIn.push({ timeZone: typeof zone === "string" ? zone : DEFAULT_TIME_ZONE, who: `cluster ${k.entry.name}` });
        }
      }
      const plan = await planned(base.text, base.path, { calendar, prune, absolute: true, alsoReadIn }, service.now());
      return {
        changes: plan.text === base.text ? {} : { [base.path]: plan.text },
        subject: `fleet: import calendar freezes into window ${name} (${counts(plan)}; ${alsoReadIn.length} cluster${alsoReadIn.length === 1 ? "" : "s"})`,
        reason,
        result: { plan, path: base.path, clusters: alsoReadIn.length },
      };
    });
    service.log({ msg: "Imported calendar freezes", fleetWindow: name, commit: written.commit, changed: written.changed, author: identity.name });
    return c.json(answer(written, { window: name, clusters: written.result.clusters }));
  });
  return routes;
}
