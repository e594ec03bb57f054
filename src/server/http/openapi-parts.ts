// Pieces of the OpenAPI document shared by its parts: schema shorthands, standard answers and parameters.

import { z } from "zod";

export type Schema = Record<string, unknown>;

export function fromZod(schema: z.ZodType): Schema {
  const out = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as Schema;
  delete out.$schema;
  return out;
}

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const str = { type: "string" };
export const time = { type: "string", format: "date-time", description: "RFC 3339, UTC" };
export const nullable = (s: Schema): Schema => ({ anyOf: [s, { type: "null" }] });
export const obj = (properties: Record<string, Schema>, required: string[] = Object.keys(properties)): Schema => ({ type: "object", properties, required });
export const interval = obj({ start: time, end: time });

export const json = (schema: Schema, description = "OK"): Schema => ({ description, content: { "application/json": { schema } } });
export const errors = (...codes: number[]): Record<string, Schema> =>
  Object.fromEntries(codes.map((code) => [String(code), { ...json(ref("Error"), ERROR_TEXT[code] ?? "Error"), description: ERROR_TEXT[code] ?? "Error" }]));
export const ERROR_TEXT: Record<number, string> = {
  400: "Invalid input; problems name each field",
  401: "No token, or not a valid one",
  403: "The token's role may not do this",
  404: "No such cluster, window or override",
  409: "Conflicts with the repository or cluster",
  412: "If-Match or If-None-Match failed",
  413: "Body too large",
  415: "Body is not JSON (or, for PATCH, not a merge patch or JSON Patch)",
  429: "Too many requests (Retry-After)",
  502: "The remote or a cluster failed",
  503: "The remote kept moving, or the repository cannot be read",
};
export const cluster = { name: "cluster", in: "path", required: true, schema: str, description: "Cluster name from fluxgate.yaml" };
export const window = {
  name: "name",
  in: "path",
  required: true,
  schema: { type: "string", pattern: "^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$", maxLength: 253 },
  description: "Window name (DNS-1123)",
};
export const range = [
  { name: "from", in: "query", schema: time, description: "Start (default now)" },
  { name: "to", in: "query", schema: time, description: "End (default from + 7 days; at most 93 days)" },
];
export const reads = errors(401, 403, 429);
export const ifMatch = { name: "If-Match", in: "header", schema: str, description: "Change only this version (the ETag)" };
export const reason = {
  name: "reason",
  in: "query",
  required: true,
  schema: str,
  description: 'Why; it goes into the commit message (or a JSON body {"reason"})',
};
/** `?delivery=` of a DELETE that ends overrides, and what the direct end did per override. */
export const endDelivery = {
  name: "delivery",
  in: "query",
  schema: { enum: ["git", "direct"] },
  description:
    "git (default): Flux removes the override when it applies the commit. direct (role breakglass): also cancelled now in each cluster the service has a context for, which also ends an override delivered directly that Flux never took over",
};
export const directEnds = {
  type: "array",
  description:
    "With delivery=direct: per override, what its cluster did (cancelled, already cancelled, absent, no-context, failed with error); the commit stands",
  items: obj({ cluster: str, name: str, result: { enum: ["cancelled", "already", "absent", "no-context", "failed"] }, error: str }, [
    "cluster",
    "name",
    "result",
  ]),
};
export const deleted = obj({
  commit: str,
  pushed: { type: "boolean" },
  attempts: { type: "integer" },
  deleted: { type: "array", items: str },
  direct: directEnds,
});
export const noQuery = errors(400);
