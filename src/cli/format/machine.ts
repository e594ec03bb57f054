// Machine-readable output: JSON (two-space indent) or YAML with quoted strings, the same structure either way.

import { stringify } from "yaml";

export type MachineFormat = "json" | "yaml";

/** Renders `value` as JSON or YAML, ending with a newline. */
export function machine(value: unknown, format: MachineFormat): string {
  // Quoted, so YAML 1.1 readers keep times and revisions as strings.
  return format === "json" ? `${JSON.stringify(value, null, 2)}\n` : stringify(value, { defaultStringType: "QUOTE_DOUBLE", defaultKeyType: "PLAIN" });
}
