/// <reference lib="dom" />
// What differs between two window specs, field by field, and how to carry one person's changes onto another version.

/** One changed field: its path as users write it (`spec.schedules[0].duration`) and both values (undefined: absent). */
export interface Change {
  path: string;
  keys: Array<string | number>;
  before: unknown;
  after: unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function pathText(keys: ReadonlyArray<string | number>): string {
  return keys.reduce<string>((text, k) => (typeof k === "number" ? `${text}[${k}]` : `${text}.${k}`), "spec");
}

/** The fields that differ between `a` and `b`, in a stable order; objects and arrays are compared member by member. */
export function specDiff(a: unknown, b: unknown, keys: Array<string | number> = []): Change[] {
  if (isObject(a) && isObject(b)) {
    const names = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return names.flatMap((k) => specDiff(a[k], b[k], [...keys, k]));
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    return Array.from({ length: Math.max(a.length, b.length) }, (_, i) => specDiff(a[i], b[i], [...keys, i])).flat();
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [{ path: pathText(keys), keys, before: a, after: b }];
}

/** `value` in words for a diff line. */
export function shown(value: unknown): string {
  return value === undefined ? "(none)" : typeof value === "string" ? `"${value}"` : JSON.stringify(value);
}

/** `base` with each change set to its `after` value (removed when undefined): one person's edits replayed on another version. */
export function applyChanges(base: unknown, changes: readonly Change[]): unknown {
  const result = structuredClone(base ?? {}) as Record<string | number, unknown>;
  for (const change of changes) {
    let node: Record<string | number, unknown> = result;
    change.keys.forEach((key, i) => {
      const last = i === change.keys.length - 1;
      if (last) {
        if (change.after === undefined) {
          if (Array.isArray(node) && typeof key === "number") node.splice(key, 1);
          else delete node[key];
        } else node[key] = structuredClone(change.after);
        return;
      }
      if (typeof node[key] !== "object" || node[key] === null) node[key] = typeof change.keys[i + 1] === "number" ? [] : {};
      node = node[key] as Record<string | number, unknown>;
    });
  }
  return result;
}
