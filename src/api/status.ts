// Status of ReconciliationWindow and WindowOverride: what the controller reports, shared by the CLI, the API and the CRDs.

import { z } from "zod";
import { OVERRIDE_PHASES } from "./override.ts";

/** The most pending targets a window lists in its status; the count in `targets.pending` is always exact. */
export const MAX_PENDING_LISTED = 50;

/**
 * What a pending count means. Flux fetches only the head of a branch at each interval, so
 * several commits pushed between two fetches arrive as one revision: the count is a lower bound
 * of the commits waiting.
 */
const REVISIONS_DESCRIPTION =
  "How many distinct source revisions have arrived since the applied one, counting the one that waits. A lower bound of the commits waiting: Flux fetches only the branch head at each interval.";

/** The most violations a window lists in its status. */
export const MAX_VIOLATIONS_LISTED = 20;

const time = z.string().meta({ description: "RFC 3339 UTC." });

export const ConditionSchema = z.strictObject({
  type: z.string().meta({ description: "Ready, Stalled or SuspendReverted." }),
  status: z.enum(["True", "False", "Unknown"]).meta({ description: "True, False or Unknown." }),
  observedGeneration: z.number().int().optional().meta({ description: "The generation the condition was set for." }),
  lastTransitionTime: time.meta({ description: "When the status last changed (RFC 3339 UTC)." }),
  reason: z.string().meta({ description: "A CamelCase word for programs." }),
  message: z.string().meta({ description: "A sentence for people." }),
});

/** Conditions, one per type: a list the API server merges by `type` under server-side apply. */
const conditions = z
  .array(ConditionSchema)
  .optional()
  .meta({ description: "Kubernetes conditions: Ready, Stalled.", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"] });

const count = z.number().int().min(0);

export const WindowStatusSchema = z.strictObject({
  observedGeneration: z.number().int().optional().meta({
    description:
      "The generation last reconciled while Ready or Stalled (invalid spec): a window that is not Ready for another reason (a change applied while closed, a gate bypassed, a conflict of modes, a refused target) leaves it as it was; each condition carries its own observedGeneration.",
  }),
  state: z.enum(["Open", "Closed", "Frozen", "Overridden"]).optional().meta({ description: "The window's decision now." }),
  reason: z.string().optional().meta({ description: "Why, in a sentence." }),
  since: time.optional().meta({ description: "When the current state began." }),
  override: z.string().optional().meta({ description: "Name of the WindowOverride that decides, when one does." }),
  currentInterval: z.strictObject({ start: time.optional(), end: time.optional() }).optional().meta({ description: "The interval of the current state." }),
  nextOpen: time.optional().meta({ description: "Next time the window opens." }),
  nextClose: time.optional().meta({ description: "Next time the window closes or freezes." }),
  nextTransition: time.optional().meta({ description: "Next change of state, whichever it is." }),
  targets: z
    .strictObject({
      matched: count.meta({ description: "Targets the window selects." }),
      open: count.meta({ description: "Targets that may take changes now." }),
      closed: count.meta({ description: "Targets held now." }),
      pending: count.meta({ description: "Targets with a source revision they have not applied." }),
      conflicts: count.meta({ description: "Targets also selected by a window of another mode: reported, not acted on." }),
    })
    .optional()
    .meta({ description: "Counts of the targets the window selects." }),
  pending: z
    .array(
      z.strictObject({
        kind: z.string().meta({ description: "Kind of the target." }),
        namespace: z.string().meta({ description: "Namespace of the target." }),
        name: z.string().meta({ description: "Name of the target." }),
        appliedRevision: z.string().optional().meta({ description: "The source revision the target last applied." }),
        pendingRevision: z.string().meta({ description: "The source revision waiting to be applied." }),
        revisions: z.number().int().min(1).optional().meta({ description: REVISIONS_DESCRIPTION }),
        waitingSince: time
          .optional()
          .meta({ description: "Since when it has been waiting: when the first revision it has not applied arrived (RFC 3339 UTC)." }),
      }),
    )
    .max(MAX_PENDING_LISTED)
    .optional()
    .meta({ description: `Targets whose source has a revision they have not applied (at most ${MAX_PENDING_LISTED}).` }),
  violations: z
    .array(
      z.strictObject({
        kind: z.string().meta({ description: "Kind of the target." }),
        namespace: z.string().meta({ description: "Namespace of the target." }),
        name: z.string().meta({ description: "Name of the target." }),
        revision: z.string().meta({ description: "The revision the target applied while the window was closed." }),
        previousRevision: z.string().optional().meta({ description: "The revision it had applied before." }),
        at: time.meta({ description: "When fluxgate saw it applied (RFC 3339 UTC)." }),
        cause: z
          .string()
          .meta({ description: "What let it through, in a sentence: the manager that set spec.suspend back, or a sourceRef that bypasses the gate." }),
      }),
    )
    .max(MAX_VIOLATIONS_LISTED)
    .optional()
    .meta({
      description: `Revisions targets applied while the window was closed or frozen (at most ${MAX_VIOLATIONS_LISTED}, newest last), observed from the targets' status. Kept until the window next opens; while any is listed, Ready is False with reason AppliedWhileClosed.`,
    }),
  gate: z
    .strictObject({
      upstream: z.string().meta({ description: "The upstream source, KIND/NAME." }),
      gatedSource: z.string().meta({ description: "The gated source fluxgate owns and pins, KIND/NAME." }),
      upstreamRevision: z.string().optional().meta({ description: "The upstream's current artifact revision." }),
      pinnedRevision: z.string().optional().meta({ description: "The revision the gated source is pinned to." }),
      pendingRevisions: z.number().int().min(1).optional().meta({ description: REVISIONS_DESCRIPTION }),
      pendingSince: time
        .optional()
        .meta({ description: "Since when the upstream has been ahead of the pin: when the first revision that waits arrived (RFC 3339 UTC)." }),
      approved: z
        .strictObject({
          revision: z.string().meta({ description: "The revision promoted." }),
          reason: z.string().meta({ description: "Why, as given to fluxgate approve." }),
          by: z.string().meta({ description: "Who approved it: the user the API server authenticated." }),
          at: time.meta({ description: "When it was approved (RFC 3339 UTC)." }),
        })
        .optional()
        .meta({ description: "The last revision promoted outside a window with fluxgate approve: who, why, when." }),
    })
    .optional()
    .meta({ description: "Mode Gate: what the gated source is pinned to and what waits upstream." }),
  upcoming: z
    .strictObject({
      transition: z.enum(["Open", "Frozen"]).meta({ description: "What comes: the window opens (Open) or a freeze starts (Frozen)." }),
      at: time.meta({ description: "When it comes (RFC 3339 UTC)." }),
      noticeAt: time.meta({ description: "When it is announced: at minus spec.notice (RFC 3339 UTC)." }),
      announcedAt: time.optional().meta({ description: "When the announcement (WindowOpensSoon or FreezeStartsSoon) was recorded; absent until then." }),
      message: z
        .string()
        .optional()
        .meta({ description: "The announcement, per target the revision that goes out or that nothing waits; absent until announced." }),
    })
    .optional()
    .meta({
      description:
        "With spec.notice: the next opening or freeze start the window announces, and whether it has been announced (once per transition, not again after a restart).",
    }),
  lastTransitionTime: time.optional().meta({ description: "When the state last changed." }),
  conditions,
});

export const OverrideStatusSchema = z.strictObject({
  phase: z.enum(OVERRIDE_PHASES).optional().meta({
    description:
      "Active until `until`, then Expired (kept as a record); Cancelled when ended early with fluxgate overrides cancel (kept as a record); WindowNotFound while its window does not exist (no effect); Invalid when the spec is rejected.",
  }),
  message: z.string().optional().meta({ description: "Why the override is Invalid or waits, or what it did." }),
  startedAt: time.optional().meta({ description: "When the override took effect." }),
  expiredAt: time.optional().meta({ description: "When it ended: `until`, or when it was cancelled." }),
  cancelledAt: time.optional().meta({ description: "When it was cancelled (the fluxgate.io/cancelled-at annotation)." }),
  cancelledBy: z.string().optional().meta({ description: "Who cancelled it (the fluxgate.io/cancelled-by annotation)." }),
  observedGeneration: z
    .number()
    .int()
    .optional()
    .meta({ description: "The generation last reconciled while Ready or Stalled (Invalid); WindowNotFound leaves it as it was." }),
  conditions,
});

export type Condition = z.infer<typeof ConditionSchema>;
export type WindowStatus = z.infer<typeof WindowStatusSchema>;
export type OverrideStatus = z.infer<typeof OverrideStatusSchema>;
