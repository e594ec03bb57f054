// YAML text of the manifests the fleet commands write: cron expressions and date-times double-quoted, as people write them.

import { Document, isScalar, visit } from "yaml";

const QUOTED = new Set(["start", "end", "from", "to", "until", "fluxgate.io/requested-at"]);

/**
 * A value as YAML text, with the strings of start, end, from, to, until and the requested-at annotation double-quoted.
 *
 * @example yamlText({ start: "0 8 * * MON" }) // 'start: "0 8 * * MON"\n'
 */
export function yamlText(value: unknown): string {
  const doc = new Document(value);
  visit(doc, {
    Pair(_, pair) {
      if (isScalar(pair.key) && QUOTED.has(String(pair.key.value)) && isScalar(pair.value) && typeof pair.value.value === "string")
        pair.value.type = "QUOTE_DOUBLE";
    },
  });
  return doc.toString();
}
