// Status of ReconciliationWindow and WindowOverride: what the controller reports, shared by the CLI, the API and the CRDs.

import { z } from "zod";
import { OVERRIDE_PHASES } from "./override.ts";

/** The most pending targets a window lists in its status; the count in `targets.pending` is always exact. */
export const MAX_PENDING_LISTED = 50;

const time = z.string().meta({ description: "RFC 3339 UTC." });

export const ConditionSchema = z.strictObject({
  type: z.string(),
  status: z.enum(["True", "False", "Unknown"]),
  observedGeneration: z.number().int().optional(),
  lastTransitionTime: time,
  reason: z.string(),
  message: z.string(),
});

export const WindowStatusSchema = z.strictObject({
  observedGeneration: z.number().int().optional().meta({ description: "The generation last reconciled while Ready." }),
  state: z.enum(["Open", "Closed", "Frozen", "Overridden"]).optional().meta({ description: "The window's decision now." }),
  reason: z.string().optional().meta({ description: "Why, in a sentence." }),
  since: time.optional().meta({ description: "When the current state began." }),
  override: z.string().optional().meta({ description: "Name of the WindowOverride that decides, when one does." }),
  currentInterval: z
    .strictObject({ start: time.optional(), end: time.optional() })
    .optional()
    .meta({ description: "The interval of the current state." }),
  nextOpen: time.optional().meta({ description: "Next time the window opens." }),
  nextClose: time.optional().meta({ description: "Next time the window closes or freezes." }),
  nextTransition: time.optional().meta({ description: "Next change of state, whichever it is." }),
  targets: z
    .strictObject({
      matched: z.number().int(),
      open: z.number().int(),
      closed: z.number().int(),
      pending: z.number().int(),
      conflicts: z.number().int(),
    })
    .optional()
    .meta({ description: "Counts of the targets the window selects." }),
  pending: z
    .array(
      z.strictObject({
        kind: z.string(),
        namespace: z.string(),
        name: z.string(),
        appliedRevision: z.string().optional(),
        pendingRevision: z.string(),
        waitingSince: time.optional(),
      }),
    )
    .optional()
    .meta({ description: `Targets whose source has a revision they have not applied (at most ${MAX_PENDING_LISTED}).` }),
  lastTransitionTime: time.optional().meta({ description: "When the state last changed." }),
  conditions: z.array(ConditionSchema).optional(),
});

export const OverrideStatusSchema = z.strictObject({
  phase: z.enum(OVERRIDE_PHASES).optional().meta({ description: "Active until `until`, then Expired (kept as a record); Invalid when the spec is rejected." }),
  message: z.string().optional(),
  startedAt: time.optional(),
  expiredAt: time.optional(),
  conditions: z.array(ConditionSchema).optional(),
});

export type Condition = z.infer<typeof ConditionSchema>;
export type WindowStatus = z.infer<typeof WindowStatusSchema>;
export type OverrideStatus = z.infer<typeof OverrideStatusSchema>;
