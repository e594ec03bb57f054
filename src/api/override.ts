// WindowOverride (fluxgate.io/v1alpha1): a break-glass Open or a stop-the-line Freeze of one window, with a reason and an end.

import { z } from "zod";
import { cel, celRegex } from "./cel.ts";
import { API_VERSION } from "./window.ts";

/** The longest an override may last, counted from its creation. */
export const MAX_OVERRIDE_MS = 7 * 86_400_000;

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const RFC3339_MESSAGE = 'must be an RFC 3339 date-time with a zone, e.g. "2026-12-01T18:00:00Z"';

// A refinement rather than .regex(): the CRD then carries the CEL rule with our message instead of a bare pattern.
const rfc3339 = z
  .string()
  .max(64)
  .refine((v) => RFC3339.test(v), RFC3339_MESSAGE)
  .refine((v) => !Number.isNaN(Date.parse(v)), "is not a real date-time")
  .meta(cel({ rule: `self.matches(${celRegex(RFC3339)})`, message: RFC3339_MESSAGE }));

export const WindowOverrideSpecSchema = z.strictObject({
  windowRef: z
    .strictObject({ name: z.string().min(1).max(253).meta({ description: "Name of a ReconciliationWindow in the override's namespace." }) })
    .meta({ description: "The window this override opens or freezes." }),
  action: z.enum(["Open", "Freeze"]).meta({ description: "Open: take changes now, even in a freeze. Freeze: take none, even when the window is open." }),
  until: rfc3339.meta({ description: "When the override ends (RFC 3339); at most 7 days after its creation." }),
  reason: z.string().min(1).max(1024).meta({ description: "Why; shown in status, events and the CLI." }),
});

const MetadataSchema = z.looseObject({
  name: z.string().min(1).max(253),
  namespace: z.string().min(1).max(63).optional(),
});

export const WindowOverrideSchema = z.looseObject({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal("WindowOverride"),
  metadata: MetadataSchema,
  spec: WindowOverrideSpecSchema,
});

export type WindowOverrideSpec = z.infer<typeof WindowOverrideSpecSchema>;
export type WindowOverride = z.infer<typeof WindowOverrideSchema>;

/** Phase of an override in its status. */
export const OVERRIDE_PHASES = ["Active", "Expired", "Invalid"] as const;
export type OverridePhase = (typeof OVERRIDE_PHASES)[number];
