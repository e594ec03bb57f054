// Canonical JSON: object keys sorted at every depth, so two equal values (as Kubernetes or Git returns them) compare equal as strings.

/** @example canonicalJson({ b: 1, a: [ { d: 2, c: 3 } ] }) === '{"a":[{"c":3,"d":2}],"b":1}' */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
