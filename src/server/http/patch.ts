// The bodies of a PATCH of a window: a JSON Merge Patch (RFC 7396) or a JSON Patch (RFC 6902), read and applied to the window's spec.

import type { Context } from "hono";
import fastJsonPatch from "fast-json-patch";
import { HttpError } from "./errors.ts";
import type { WindowRecord } from "../model/model.ts";
import type { Env } from "../service.ts";

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
export type PatchBody = { kind: "merge"; patch: Record<string, unknown>; reason: string | null } | { kind: "json"; operations: unknown[] };

export async function patchBody(c: Context<Env>): Promise<PatchBody> {
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
    if (!Array.isArray(body))
      throw new HttpError(400, 'a JSON Patch is an array of operations, e.g. [{"op": "replace", "path": "/spec/schedules/0/duration", "value": "5h"}]');
    return { kind: "json", operations: body };
  }
  if (!isObject(body)) throw new HttpError(400, 'a JSON Merge Patch of a window is an object, e.g. {"spec": {"schedules": [...]}, "reason": "..."}');
  const { reason, ...patch } = body;
  if (reason !== undefined && typeof reason !== "string")
    throw new HttpError(400, "reason: must be a string", { problems: [{ path: "reason", message: "must be a string" }] });
  const unknown = Object.keys(patch).filter((k) => k !== "spec");
  if (unknown.length > 0) {
    throw new HttpError(400, `a patch changes the window's spec only; remove ${unknown.map((k) => `"${k}"`).join(", ")}`, {
      problems: unknown.map((k) => ({ path: k, message: "is not patchable" })),
    });
  }
  return { kind: "merge", patch, reason: reason ?? null };
}

/** The spec of `record` with `body` applied; 400 naming the failing operation. */
export function patched(record: WindowRecord, body: PatchBody): unknown {
  const spec = (record.window?.spec ?? (record.manifest as { spec?: unknown } | null)?.spec ?? {}) as Json;
  const document = { spec: structuredClone(spec) };
  if (body.kind === "merge") return (mergePatch(document, body.patch) as { spec?: unknown }).spec;
  body.operations.forEach((op, i) => {
    const path = isObject(op) ? op.path : undefined;
    const from = isObject(op) ? op.from : undefined;
    for (const p of [path, from]) {
      if (typeof p === "string" && !(p === "/spec" || p.startsWith("/spec/"))) {
        throw new HttpError(400, `operation ${i}: a patch changes the window's spec only; paths start with /spec`, {
          problems: [{ path: `[${i}].path`, message: "must start with /spec" }],
        });
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
      throw new HttpError(e.name === "TEST_OPERATION_FAILED" ? 409 : 400, `operation ${at}: ${detail}`, {
        problems: [{ path: `[${at}]`, message: detail ?? e.name }],
        cause: e,
      });
    }
    throw e;
  }
}
