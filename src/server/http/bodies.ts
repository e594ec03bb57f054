// The request bodies of the Config Service's API, as zod schemas: validated by the routes, described by the OpenAPI document.

import { z } from "zod";
import { parseWith, ReasonSchema } from "../../api/index.ts";
import { inContext } from "../../errors.ts";

/** Body of PUT /clusters/{cluster}/windows/{name}. */
export const PutBody = z.strictObject({
  spec: z.unknown(),
  reason: ReasonSchema,
});

/** Body of POST /clusters/{cluster}/overrides. */
export const OverrideBody = z
  .strictObject({
    window: z.string().min(1),
    action: z.enum(["Open", "Freeze"]),
    until: z.string().optional(),
    duration: z.string().optional(),
    reason: ReasonSchema,
    delivery: z.enum(["git", "direct"]).optional(),
    name: z.string().optional(),
  })
  .superRefine((b, ctx) => {
    if ((b.until === undefined) === (b.duration === undefined))
      ctx.addIssue({ code: "custom", message: 'give exactly one of until (RFC 3339) and duration (e.g. "2h")' });
  });

/** Body of POST /preview. */
export const PreviewBody = z.strictObject({
  spec: z.unknown(),
  from: z.string().optional(),
  to: z.string().optional(),
  count: z.number().int().min(1).max(50).optional(),
});

/** The body parsed with `schema`; 400 with the field problems otherwise. */
export function bodyOf<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  return inContext({ heading: "invalid request body", oneLine: true }, () => parseWith(schema, body));
}

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
    if ((b.until === undefined) === (b.duration === undefined))
      ctx.addIssue({ code: "custom", message: 'give exactly one of until (RFC 3339) and duration (e.g. "2h")' });
  });
