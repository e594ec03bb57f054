// Plain-text tables with aligned columns, as kubectl prints them.

import { stripVTControlCharacters } from "node:util";

/** Width on screen: colour codes take none. */
const width = (s: string): number => stripVTControlCharacters(s).length;

/** Aligns rows under a header; columns are separated by three spaces. Cells may be coloured. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ""))));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c + " ".repeat(Math.max(0, (widths[i] ?? 0) - width(c))))).join("   ").trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}

/** Indents every line by two spaces: a table under a heading. */
export function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");
}
