// YAML text of the manifests the fleet commands write: cron expressions, times of day and date-times double-quoted, as people write them.

import { Document, isScalar, isSeq, visit } from "yaml";

const QUOTED = new Set(["start", "end", "from", "to", "until", "at", "endAt", "dtstart", "fluxgate.io/requested-at"]);
/** Lists whose string items are double-quoted: a recurrence's left-out dates. */
const QUOTED_LISTS = new Set(["exdates"]);

/**
 * A value as YAML text, with the strings of start, end, from, to, until, at, endAt, dtstart, exdates and the requested-at annotation double-quoted.
 *
 * @example yamlText({ start: "0 8 * * MON" }) // 'start: "0 8 * * MON"\n'
 */
export function yamlText(value: unknown): string {
  const doc = new Document(value);
  visit(doc, {
    Pair(_, pair) {
      if (isScalar(pair.key) && QUOTED.has(String(pair.key.value)) && isScalar(pair.value) && typeof pair.value.value === "string")
        pair.value.type = "QUOTE_DOUBLE";
      if (isScalar(pair.key) && QUOTED_LISTS.has(String(pair.key.value)) && isSeq(pair.value)) {
        for (const item of pair.value.items) if (isScalar(item) && typeof item.value === "string") item.type = "QUOTE_DOUBLE";
      }
    },
  });
  return doc.toString();
}
