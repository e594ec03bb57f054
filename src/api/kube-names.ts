// Kubernetes names, namespaces and label selectors in fluxgate's specs, checked as the API server checks its own: by zod, and by CEL at admission.

import { z } from "zod";
import { cel, celRegex } from "./cel.ts";
import { isLabelKey, KEY_MESSAGE, LABEL_KEY, LABEL_VALUE, MAX_LABEL_KEY, VALUE_MESSAGE } from "./label-syntax.ts";

export { isLabelKey, isLabelValue, LABEL_KEY_MESSAGE, LABEL_VALUE_MESSAGE } from "./label-syntax.ts";

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const NAME_MESSAGE = "must be a Kubernetes object name: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit";
const NAMESPACE_MESSAGE = "must be a namespace name: lower-case letters, digits and '-', starting and ending with a letter or digit";
const VALUES_MESSAGE = "In and NotIn need values; Exists and DoesNotExist take none";

/** Bounds that keep the selector's CEL rules within the API server's cost budget. */
const MAX_MATCH_LABELS = 32;
const MAX_MATCH_EXPRESSIONS = 8;
const MAX_VALUES = 16;

/** Lengths are the schema's own checks; the pattern speaks only for strings of an allowed length. */
const matches = (pattern: RegExp, min: number, max: number) => (v: string) => v.length < min || v.length > max || pattern.test(v);

/** The name of a Kubernetes object (DNS-1123 subdomain), e.g. a target or a source; add a description where it is used. */
export const ObjectNameSchema = z
  .string()
  .min(1)
  .max(253)
  .refine(matches(DNS_SUBDOMAIN, 1, 253), NAME_MESSAGE)
  .meta(cel({ rule: `self.matches(${celRegex(DNS_SUBDOMAIN)})`, message: NAME_MESSAGE }));

/** A namespace (DNS-1123 label). */
export const NamespaceSchema = z
  .string()
  .min(1)
  .max(63)
  .refine(matches(DNS_LABEL, 1, 63), NAMESPACE_MESSAGE)
  .meta(cel({ rule: `self.matches(${celRegex(DNS_LABEL)})`, message: NAMESPACE_MESSAGE }));

const labelValue = z
  .string()
  .max(63)
  .refine(matches(LABEL_VALUE, 0, 63), VALUE_MESSAGE)
  .meta(cel({ rule: `self.matches(${celRegex(LABEL_VALUE)})`, message: VALUE_MESSAGE }));

const labelKey = z
  .string()
  .min(1)
  .max(MAX_LABEL_KEY)
  .refine((k) => k.length === 0 || k.length > MAX_LABEL_KEY || isLabelKey(k), KEY_MESSAGE.replace("must be label keys", "must be a label key"))
  .meta({
    description: "The label key.",
    ...cel({ rule: `self.matches(${celRegex(LABEL_KEY)})`, message: KEY_MESSAGE.replace("must be label keys", "must be a label key") }),
  });

/** A Kubernetes label selector, with the rules the API server applies to its own (label syntax, values by operator). */
export const LabelSelectorSchema = z.strictObject({
  matchLabels: z
    .record(z.string(), labelValue)
    .superRefine((labels, ctx) => {
      const keys = Object.keys(labels);
      if (keys.length > MAX_MATCH_LABELS) ctx.addIssue({ code: "custom", message: `has ${keys.length} labels: at most ${MAX_MATCH_LABELS}` });
      const bad = keys.filter((k) => !isLabelKey(k));
      if (bad.length > 0) ctx.addIssue({ code: "custom", message: `${bad.map((k) => JSON.stringify(k.slice(0, 80))).join(", ")}: keys ${KEY_MESSAGE}` });
    })
    .optional()
    .meta({
      description: "Labels an object must have, with these values.",
      maxProperties: MAX_MATCH_LABELS,
      ...cel({ rule: `self.all(k, size(k) <= ${MAX_LABEL_KEY} && k.matches(${celRegex(LABEL_KEY)}))`, message: `keys ${KEY_MESSAGE}` }),
    }),
  matchExpressions: z
    .array(
      z
        .strictObject({
          key: labelKey,
          operator: z.enum(["In", "NotIn", "Exists", "DoesNotExist"]).meta({ description: "How the label's value relates to values." }),
          values: z.array(labelValue).max(MAX_VALUES).optional().meta({ description: "Values for In and NotIn; empty for Exists and DoesNotExist." }),
        })
        .superRefine((e, ctx) => {
          const needs = e.operator === "In" || e.operator === "NotIn";
          if (needs !== (e.values !== undefined && e.values.length > 0)) ctx.addIssue({ code: "custom", path: ["values"], message: VALUES_MESSAGE });
        })
        .meta(
          cel({
            rule: "(self.operator == 'In' || self.operator == 'NotIn') == (has(self.values) && size(self.values) > 0)",
            fieldPath: ".values",
            message: VALUES_MESSAGE,
          }),
        ),
    )
    .max(MAX_MATCH_EXPRESSIONS)
    .optional()
    .meta({ description: "Label requirements, all of which must hold (Kubernetes label selector syntax)." }),
});
