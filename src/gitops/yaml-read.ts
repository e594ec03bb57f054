// YAML read from a repository (by check, split, migrate and the Config Service) and from the tokens file, with bounds: whoever can push to the repository
// writes its input.

import { parseDocument } from "yaml";

/** Largest YAML file read; window and override files are a few kilobytes, Kubernetes objects at most about 1.5 MB. */
export const MAX_YAML_BYTES = 1024 * 1024;

/**
 * How much aliases may repeat content, in the yaml library's measure (uses of an anchor times the
 * aliases inside it). A "billion laughs" file passes it within a few aliases and is refused
 * without being expanded.
 */
export const MAX_ALIAS_COUNT = 100;

/** A YAML text as a plain value, or why it cannot be read (a sentence that starts lower-case). */
export type YamlRead = { value: unknown; problem: null } | { value: null; problem: string };

/**
 * Reads one YAML document. Refuses, with a reason, a text larger than MAX_YAML_BYTES, invalid YAML,
 * aliases that expand beyond MAX_ALIAS_COUNT or have no anchor, and an alias inside its own anchor.
 *
 * @example readYaml("a: &x 1\nb: *x") // { value: { a: 1, b: 1 }, problem: null }
 */
export function readYaml(text: string, size = Buffer.byteLength(text, "utf8")): YamlRead {
  if (size > MAX_YAML_BYTES) return { value: null, problem: `is ${size} bytes, larger than the ${MAX_YAML_BYTES} bytes a manifest may have` };
  const doc = parseDocument(text);
  const error = doc.errors[0];
  if (error !== undefined) return { value: null, problem: `not valid YAML: ${error.message}` };
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    // The yaml library throws a ReferenceError for an alias bomb and for an alias without its anchor.
    return { value: null, problem: `not valid YAML: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (isCyclic(value)) return { value: null, problem: "not valid YAML for a manifest: an alias refers to a node that contains it" };
  return { value, problem: null };
}

/** True when `value` contains itself (an alias inside its own anchor); shared, acyclic parts are fine. */
function isCyclic(value: unknown, ancestors: unknown[] = []): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (ancestors.includes(value)) return true;
  ancestors.push(value);
  const children = value instanceof Map ? [...value.values()] : Object.values(value);
  const cyclic = children.some((child) => isCyclic(child, ancestors));
  ancestors.pop();
  return cyclic;
}
