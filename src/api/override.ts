// WindowOverride (fluxgate.io/v1alpha1): a break-glass Open or a stop-the-line Freeze of one window, with a reason and an end.

import { z } from "zod";
import { cel, celRegex } from "./cel.ts";
import { MAX_REASON_LENGTH } from "./constants.ts";
import { LabelSelectorSchema, ObjectNameSchema } from "./kube-names.ts";
import { API_VERSION, MetadataSchema } from "./window.ts";

/** The longest an override may last, counted from its creation. */
export const MAX_OVERRIDE_MS = 7 * 86_400_000;

// Each part within its range; whether the day exists in its month is checked apart (isRealDateTime, CEL's timestamp()).
const RFC3339 = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;
const RFC3339_MESSAGE = 'must be an RFC 3339 date-time with a zone, e.g. "2026-12-01T18:00:00Z"';
const NOT_REAL_MESSAGE = "is not a real date-time: that day does not exist in that month";

/** True when the date of an RFC 3339 text exists: Date.parse takes "2026-02-31" for March 3rd. */
function isRealDateTime(text: string): boolean {
  const [year, month, day] = text.slice(0, 10).split("-").map(Number) as [number, number, number];
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day <= days && !Number.isNaN(Date.parse(text));
}

// A refinement rather than .regex(): the CRD then carries the CEL rule with our message instead of a bare pattern.
const rfc3339 = z
  .string()
  .max(64)
  .refine((v) => RFC3339.test(v), RFC3339_MESSAGE)
  .refine((v) => !RFC3339.test(v) || isRealDateTime(v), NOT_REAL_MESSAGE)
  .meta(
    cel(
      { rule: `self.matches(${celRegex(RFC3339)})`, message: RFC3339_MESSAGE },
      // CEL's timestamp() is Go's time.Parse, which refuses days a month does not have.
      { rule: `!self.matches(${celRegex(RFC3339)}) || timestamp(self) >= timestamp('0001-01-01T00:00:00Z')`, message: NOT_REAL_MESSAGE },
    ),
  );

const WINDOW_CHOICE_MESSAGE = "give exactly one of windowRef and windowSelector";

export const WindowOverrideSpecSchema = z
  .strictObject({
    windowRef: z
      .strictObject({ name: ObjectNameSchema.meta({ description: "Name of a ReconciliationWindow in the override's namespace." }) })
      .optional()
      .meta({ description: "The window this override opens or freezes. Exactly one of windowRef and windowSelector." }),
    windowSelector: LabelSelectorSchema.optional().meta({
      description:
        "The windows of the override's namespace whose labels match ({} matches every window): a fleet freeze. Exactly one of windowRef and windowSelector.",
    }),
    clusterSelector: LabelSelectorSchema.optional().meta({
      description:
        "A fleet override: the clusters it is for, by the labels of the cluster's identity (ConfigMap flux-system/fluxgate-cluster). It does nothing on a cluster whose labels do not match; on a cluster whose identity cannot be confirmed a Freeze holds and an Open does nothing.",
    }),
    action: z.enum(["Open", "Freeze"]).meta({ description: "Open: take changes now, even in a freeze. Freeze: take none, even when the window is open." }),
    until: rfc3339.meta({ description: "When the override ends (RFC 3339); at most 7 days after its creation." }),
    reason: z.string().min(1).max(MAX_REASON_LENGTH).meta({ description: "Why; shown in status, events and the CLI." }),
  })
  .superRefine((s, ctx) => {
    if ((s.windowRef === undefined) === (s.windowSelector === undefined)) ctx.addIssue({ code: "custom", path: ["windowRef"], message: WINDOW_CHOICE_MESSAGE });
  })
  .meta(cel({ rule: "has(self.windowRef) != has(self.windowSelector)", fieldPath: ".windowRef", message: WINDOW_CHOICE_MESSAGE }));

export const WindowOverrideSchema = z.looseObject({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal("WindowOverride"),
  metadata: MetadataSchema,
  spec: WindowOverrideSpecSchema,
});

export type WindowOverrideSpec = z.infer<typeof WindowOverrideSpecSchema>;

/**
 * The window an override object names (`spec.windowRef.name`), read from an object that may not be
 * valid (a file broken by hand, an object of a newer version): the name, or null when it has none.
 *
 * @example windowRefName({ spec: { windowRef: { name: "apps-rw" } } }) // "apps-rw"
 */
export function windowRefName(object: unknown): string | null {
  const name = (object as { spec?: { windowRef?: { name?: unknown } } } | null | undefined)?.spec?.windowRef?.name;
  return typeof name === "string" ? name : null;
}
export type WindowOverride = z.infer<typeof WindowOverrideSchema>;

/**
 * Phase of an override in its status: Active until its end, then Expired (kept as a record);
 * Cancelled when `fluxgate overrides cancel` ended it early (kept as a record); WindowNotFound
 * while the window it names does not exist (it has no effect); Invalid when its spec is rejected.
 */
export const OVERRIDE_PHASES = ["Active", "Expired", "Cancelled", "WindowNotFound", "Invalid", "NotSelected"] as const;
export type OverridePhase = (typeof OVERRIDE_PHASES)[number];
