// What only the Kubernetes API server checks and fills in (CEL rules, defaults), kept on the zod schemas as metadata for the CRD generator.

/** One `x-kubernetes-validations` rule; see https://kubernetes.io/docs/reference/using-api/cel/. */
export interface CelRule {
  /** A CEL expression over `self` that must be true. */
  rule: string;
  /** What the API server says when the rule is false: the same words the zod check uses. */
  message: string;
  /** Where the error is reported, relative to the schema carrying the rule (`.gate`). */
  fieldPath?: string;
}

/**
 * Zod metadata that makes the generated CRD check `rules` at admission, so mistakes are refused by
 * `kubectl apply` instead of surfacing later as a Stalled window. Each rule repeats a check the zod
 * schema (or the time engine) already makes; the API server sees only what CEL can see.
 *
 * @example
 * z.strictObject({...}).superRefine(...).meta(cel({ rule: "has(self.end) || has(self.duration)", message: "needs an end or a duration" }))
 */
export function cel(...rules: CelRule[]): { "x-kubernetes-validations": CelRule[] } {
  return { "x-kubernetes-validations": rules };
}

/**
 * A CEL string literal holding a regular expression: `r'...'` needs no escaping of backslashes.
 * RE2 (the API server's dialect) reads our patterns as JavaScript does: they use no look-around or back-references.
 */
export function celRegex(pattern: RegExp): string {
  if (pattern.source.includes("'")) throw new Error(`regular expression ${pattern.source} contains a quote`);
  if (pattern.flags !== "") throw new Error(`regular expression ${pattern.source} has flags ${pattern.flags}: write them inline for RE2`);
  return `r'${pattern.source}'`;
}
