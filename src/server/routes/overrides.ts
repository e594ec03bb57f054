// The edits people make besides whole windows: partial changes (PATCH), ending an override early, cleaning up expired ones.

import type { Context, Hono } from "hono";
import fastJsonPatch from "fast-json-patch";
import { HttpError } from "../http/errors.ts";
import { endDeliveryOf, endDirectly } from "../http/direct-end.ts";
import { deleteOverrideChanges } from "../git/edits.ts";
import { checkFileName, checkObjectName } from "../model/names.ts";
import { authorize, checkPreconditions, cluster, putWindow, reasonOf, validSpec } from "./clusters.ts";
import type { Env, Service } from "../service.ts";
import type { WindowRecord } from "../model/model.ts";
import { requestReason, windowRefName, type ReconciliationWindowSpec } from "../../api/index.ts";
import { overrideOver } from "../../policy/index.ts";

const MERGE_PATCH = "application/merge-patch+json";
const JSON_PATCH = "application/json-patch+json";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** RFC 7396 JSON Merge Patch: objects merge member by member, null removes, anything else (arrays too) replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** The parsed body of a PATCH, by its media type. */
type PatchBody = { kind: "merge"; patch: Record<string, unknown>; reason: string | null } | { kind: "json"; operations: unknown[] };

async function patchBody(c: Context<Env>): Promise<PatchBody> {
  const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (type !== MERGE_PATCH && type !== JSON_PATCH) {
    throw new HttpError(415, `send a JSON Merge Patch ("Content-Type: ${MERGE_PATCH}") or a JSON Patch ("Content-Type: ${JSON_PATCH}")`, {
      headers: { "Accept-Patch": `${MERGE_PATCH}, ${JSON_PATCH}` },
    });
  }
  let body: unknown;
  try {
    body = await c.req.json();
  } catch (e) {
    throw new HttpError(400, `the body is not valid JSON: ${(e as Error).message}`, { cause: e });
  }
  if (type === JSON_PATCH) {
    if (!Array.isArray(body)) throw new HttpError(400, "a JSON Patch is an array of operations, e.g. [{\"op\": \"replace\", \"path\": \"/spec/schedules/0/duration\", \"value\": \"5h\"}]");
    return { kind: "json", operations: body };
  }
  if (!isObject(body)) throw new HttpError(400, 'a JSON Merge Patch of a window is an object, e.g. {"spec": {"schedules": [...]}, "reason": "..."}');
  const { reason, ...patch } = body;
  if (reason !== undefined && typeof reason !== "string") throw new HttpError(400, "reason: must be a string", { problems: [{ path: "reason", message: "must be a string" }] });
  const unknown = Object.keys(patch).filter((k) => k !== "spec");
  if (unknown.length > 0) {
    throw new HttpError(400, `a patch changes the window's spec only; remove ${unknown.map((k) => `"${k}"`).join(", ")}`, { problems: unknown.map((k) => ({ path: k, message: "is not patchable" })) });
  }
  return { kind: "merge", patch, reason: reason ?? null };
}

/** The spec of `record` with `body` applied; 400 naming the failing operation. */
function patched(record: WindowRecord, body: PatchBody): unknown {
  const spec = (record.window?.spec ?? (record.manifest as { spec?: unknown } | null)?.spec ?? {}) as Json;
  const document = { spec: structuredClone(spec) };
  if (body.kind === "merge") return (mergePatch(document, body.patch) as { spec?: unknown }).spec;
  body.operations.forEach((op, i) => {
    const path = isObject(op) ? op.path : undefined;
    const from = isObject(op) ? op.from : undefined;
    for (const p of [path, from]) {
      if (typeof p === "string" && !(p === "/spec" || p.startsWith("/spec/"))) {
        throw new HttpError(400, `operation ${i}: a patch changes the window's spec only; paths start with /spec`, { problems: [{ path: `[${i}].path`, message: "must start with /spec" }] });
      }
    }
  });
  try {
    const result = fastJsonPatch.applyPatch(document, body.operations as fastJsonPatch.Operation[], true, false).newDocument as { spec?: unknown };
    return result.spec;
  } catch (e) {
    if (e instanceof fastJsonPatch.JsonPatchError) {
      const at = e.index ?? 0;
      const detail = e.name === "TEST_OPERATION_FAILED" ? "the test failed: the window is not as the patch expects" : e.message.split("\n")[0];
      throw new HttpError(e.name === "TEST_OPERATION_FAILED" ? 409 : 400, `operation ${at}: ${detail}`, { problems: [{ path: `[${at}]`, message: detail ?? e.name }], cause: e });
    }
    throw e;
  }
}

/** Registers PATCH of windows and the DELETEs of overrides. */
export function editRoutes(app: Hono<Env>, service: Service): void {
  const api = "/api/v1";
  const { repository } = service;

  app.patch(`${api}/clusters/:cluster/windows/:name`, async (c) => {
    const identity = authorize(c, "write-windows");
    const name = checkFileName(c.req.param("name"), "window name");
    const body = await patchBody(c);
    const reason = requestReason(c.req.query("reason") ?? (body.kind === "merge" ? body.reason : null), `say why: ${body.kind === "merge" ? '"reason" in the patch or ' : ""}?reason=...; it goes into the commit message`);
    const now = service.now();
    const specOf = (existing: WindowRecord | null): ReconciliationWindowSpec => {
      if (existing === null) throw new HttpError(404, `cluster ${c.req.param("cluster")} has no window "${name}"; create it with PUT`);
      return validSpec(name, patched(existing, body), now);
    };
    return c.json(...(await putWindow(c, service, identity, name, specOf, reason)));
  });

  app.delete(`${api}/clusters/:cluster/overrides/:name`, async (c) => {
    const identity = authorize(c, "write-overrides");
    const delivery = endDeliveryOf(c);
    const name = checkObjectName(c.req.param("name"), "override name");
    const clusterName = c.req.param("cluster");
    const reason = await reasonOf(c);
    const written = await repository.write(identity, (fleet) => {
      const k = cluster(fleet, clusterName);
      const record = k.overrides.find((o) => o.name === name);
      if (record === undefined) throw new HttpError(404, `cluster ${k.entry.name} has no override "${name}" (overrides: ${k.overrides.map((o) => o.name).join(", ") || "none"})`);
      checkPreconditions(c, record.etag, "override");
      // An override file broken by hand may name no window: the subject then names the override alone.
      const window = record.input?.window ?? windowRefName(record.manifest);
      return { changes: deleteOverrideChanges(k, [name]), subject: `${k.entry.name}: end override ${name}${window === null ? "" : ` of window ${window}`}`, reason, result: null };
    });
    service.log({ msg: "Deleted override", cluster: clusterName, override: name, commit: written.commit, pushed: written.pushed, author: identity.name });
    const direct = delivery === "direct" ? { direct: await endDirectly(service, [{ cluster: clusterName, name }], identity.name, written.commit) } : {};
    return c.json({ commit: written.commit, pushed: written.pushed, attempts: written.attempts, deleted: [name], ...direct });
  });

  app.delete(`${api}/clusters/:cluster/overrides`, async (c) => {
    const identity = authorize(c, "write-overrides");
    if (c.req.query("expired") !== "true") {
      throw new HttpError(400, "only expired overrides are deleted together: add ?expired=true (end one override with DELETE .../overrides/{name})", { problems: [{ path: "expired", message: 'must be "true"' }] });
    }
    const clusterName = c.req.param("cluster");
    const reason = await reasonOf(c);
    const now = service.now();
    const written = await repository.write(identity, (fleet) => {
      const k = cluster(fleet, clusterName);
      const expired = k.overrides.filter((o) => o.input !== null && overrideOver(o.input, now)).map((o) => o.name);
      if (expired.length === 0) return { changes: {}, subject: "", reason, result: expired };
      return { changes: deleteOverrideChanges(k, expired), subject: `${k.entry.name}: remove ${expired.length} expired override${expired.length === 1 ? "" : "s"}`, reason, result: expired };
    });
    service.log({ msg: "Deleted expired overrides", cluster: clusterName, overrides: written.result, commit: written.commit, author: identity.name });
    return c.json({ commit: written.commit, changed: written.changed, pushed: written.pushed, deleted: written.result });
  });
}
