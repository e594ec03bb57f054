// ReconciliationWindow and WindowOverride (fluxgate.io/v1alpha1): the one definition of their specs, as zod schemas.

import { z } from "zod";
import { parseCron, parseDuration, parseLocalDateTime, ScheduleError, zoneRules } from "../schedule/index.ts";

export const GROUP = "fluxgate.io";
export const VERSION = "v1alpha1";
export const API_VERSION = `${GROUP}/${VERSION}`;

/** Kinds a window may govern. */
export const TARGET_KINDS = [
  "Kustomization",
  "HelmRelease",
  "ImageUpdateAutomation",
  "GitRepository",
  "OCIRepository",
  "HelmRepository",
  "HelmChart",
  "Bucket",
] as const;

/** Adds a zod issue when a time-engine parser rejects the value. */
function engineCheck(parse: (value: string) => unknown) {
  return (value: string, ctx: z.RefinementCtx): void => {
    try {
      parse(value);
    } catch (e) {
      if (!(e instanceof ScheduleError)) throw e;
      ctx.addIssue({ code: "custom", message: e.detail });
    }
  };
}

const cron = z
  .string()
  .superRefine(engineCheck(parseCron))
  .meta({ description: 'Cron expression in Kubernetes CronJob syntax, read in the window\'s time zone, e.g. "0 8 * * MON".' });

const duration = z
  .string()
  .superRefine(engineCheck(parseDuration))
  .meta({ description: 'Go-style duration of elapsed time, e.g. "2h", "90m", "1h30m".' });

const timeZone = z
  .string()
  .superRefine(engineCheck(zoneRules))
  .meta({ description: 'IANA time zone in which cron expressions and local date-times are read, e.g. "Europe/Berlin".' });

const localDateTime = z
  .string()
  .superRefine(engineCheck((v) => parseLocalDateTime(v, zoneRules("UTC"))))
  .meta({ description: 'Date-time local to the window\'s time zone, e.g. "2026-12-20T00:00"; an explicit offset ("+01:00", "Z") may be given.' });

/** An allow schedule: the window is open from each `start` occurrence for `duration`, or until the next `end` occurrence. */
export const ScheduleSchema = z
  .strictObject({
    start: cron.meta({ description: "When each open interval starts (cron)." }),
    end: cron.optional().meta({ description: "When it ends: the first occurrence strictly after the start (cron, wall-clock). Exactly one of end and duration." }),
    duration: duration.optional().meta({ description: "How long it lasts (elapsed time). Exactly one of end and duration." }),
  })
  .superRefine((s, ctx) => {
    if (s.end !== undefined && s.duration !== undefined) ctx.addIssue({ code: "custom", message: "has both end and duration: give exactly one" });
    if (s.end === undefined && s.duration === undefined) ctx.addIssue({ code: "custom", message: 'needs an end (cron) or a duration (e.g. "2h")' });
  });

const reason = z.string().min(1).max(1024).meta({ description: "Why changes are held, shown in status, events and the CLI." });

/** A freeze: recurring (`start` with `end` or `duration`) or one-off (`from`, `to`). Freezes beat allow schedules. */
export const FreezeSchema = z
  .strictObject({
    start: cron.optional().meta({ description: "Recurring freeze: when each frozen interval starts (cron)." }),
    end: cron.optional().meta({ description: "Recurring freeze: when it ends (cron). Exactly one of end and duration." }),
    duration: duration.optional().meta({ description: "Recurring freeze: how long it lasts. Exactly one of end and duration." }),
    from: localDateTime.optional().meta({ description: "One-off freeze: when it starts (local date-time)." }),
    to: localDateTime.optional().meta({ description: "One-off freeze: when it ends (local date-time), after from." }),
    reason: reason.optional(),
  })
  .superRefine((f, ctx) => {
    const recurring = f.start !== undefined || f.end !== undefined || f.duration !== undefined;
    const oneOff = f.from !== undefined || f.to !== undefined;
    if (recurring && oneOff) {
      ctx.addIssue({ code: "custom", message: "mixes a recurring freeze (start, end, duration) with a one-off freeze (from, to): give one kind" });
    } else if (oneOff) {
      if (f.from === undefined) ctx.addIssue({ code: "custom", path: ["from"], message: "is required with to" });
      if (f.to === undefined) ctx.addIssue({ code: "custom", path: ["to"], message: "is required with from" });
    } else if (f.start === undefined) {
      ctx.addIssue({ code: "custom", message: "needs start with end or duration (recurring), or from and to (one-off)" });
    } else if ((f.end === undefined) === (f.duration === undefined)) {
      ctx.addIssue({ code: "custom", message: f.end === undefined ? 'needs an end (cron) or a duration (e.g. "24h")' : "has both end and duration: give exactly one" });
    }
  });

const LabelSelectorSchema = z.strictObject({
  matchLabels: z.record(z.string(), z.string()).optional(),
  matchExpressions: z
    .array(
      z.strictObject({
        key: z.string().min(1),
        operator: z.enum(["In", "NotIn", "Exists", "DoesNotExist"]),
        values: z.array(z.string()).optional(),
      }),
    )
    .optional(),
});

/** A Flux object (or a set of them, by labels) the window governs. */
export const TargetSchema = z
  .strictObject({
    kind: z.enum(TARGET_KINDS).meta({ description: "Kind of the Flux object." }),
    name: z.string().min(1).max(253).optional().meta({ description: "Name of one object. Exactly one of name and labelSelector." }),
    labelSelector: LabelSelectorSchema.optional().meta({ description: "Selects objects by label. Exactly one of name and labelSelector." }),
    namespace: z.string().min(1).max(63).optional().meta({ description: "Namespace of the objects; defaults to the window's." }),
  })
  .superRefine((t, ctx) => {
    if ((t.name === undefined) === (t.labelSelector === undefined)) {
      ctx.addIssue({ code: "custom", message: t.name === undefined ? "needs a name or a labelSelector" : "has both name and labelSelector: give exactly one" });
    }
  });

/** The timing part of a window: what the time engine reads. */
export const WindowTimingSchema = z.strictObject({
  timeZone: timeZone.optional().meta({ description: 'IANA time zone; default "UTC".' }),
  schedules: z.array(ScheduleSchema).optional().meta({ description: "Allow intervals: the window is open while any is active." }),
  freezes: z.array(FreezeSchema).optional().meta({ description: "Deny intervals: they beat any allow interval." }),
});

export const ReconciliationWindowSpecSchema = WindowTimingSchema.extend({
  targets: z.array(TargetSchema).min(1).meta({ description: "What the window governs." }),
  mode: z.enum(["Suspend", "Gate"]).optional().meta({ description: "Suspend (own spec.suspend of each target) or Gate (hold the revision, keep healing); default Suspend." }),
  gate: z
    .strictObject({
      upstream: z.strictObject({ kind: z.enum(["GitRepository", "OCIRepository"]), name: z.string().min(1) }),
      gatedName: z.string().min(1).max(253),
    })
    .optional()
    .meta({ description: "Only for mode Gate: the upstream source and the name of the gated copy fluxgate creates and pins." }),
  closeGracePeriod: duration.optional().meta({ description: "How long a close waits for an in-flight reconciliation; default 5m." }),
}).superRefine((s, ctx) => {
  if (s.mode === "Gate" && s.gate === undefined) ctx.addIssue({ code: "custom", path: ["gate"], message: "is required when mode is Gate" });
  if (s.mode !== "Gate" && s.gate !== undefined) ctx.addIssue({ code: "custom", path: ["gate"], message: "is only allowed when mode is Gate" });
});

const MetadataSchema = z.looseObject({
  name: z.string().min(1).max(253),
  namespace: z.string().min(1).max(63).optional(),
});

export const ReconciliationWindowSchema = z.looseObject({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal("ReconciliationWindow"),
  metadata: MetadataSchema,
  spec: ReconciliationWindowSpecSchema,
});

export type WindowTimingSpec = z.infer<typeof WindowTimingSchema>;
export type ReconciliationWindowSpec = z.infer<typeof ReconciliationWindowSpecSchema>;
export type ReconciliationWindow = z.infer<typeof ReconciliationWindowSchema>;

/** Default of `spec.timeZone`. */
export function timeZoneOf(spec: WindowTimingSpec): string {
  return spec.timeZone ?? "UTC";
}

/** Default of `spec.mode`. */
export function modeOf(spec: ReconciliationWindowSpec): "Suspend" | "Gate" {
  return spec.mode ?? "Suspend";
}

/** Default of `spec.closeGracePeriod`, in milliseconds. */
export function closeGracePeriod(spec: ReconciliationWindowSpec): number {
  return parseDuration(spec.closeGracePeriod ?? "5m");
}
