// Plain-text tables with aligned columns, as kubectl prints them.

import { stripVTControlCharacters } from "node:util";

/** Width on screen: colour codes take none (every one starts with ESC or CSI; a cell without them is measured as it is). */
const width = (s: string): number => (s.includes("\u001b") || s.includes("\u009b") ? stripVTControlCharacters(s).length : s.length);

/** Aligns rows under a header; columns are separated by three spaces. Cells may be coloured. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return [...tableLines(header, () => rows)].join("\n");
}

/**
 * The lines of `table`, one at a time, for output written as it is made (a preview of a year can
 * have half a million rows). `rows` is called twice, to measure the columns and then to line them
 * up: a generator makes each row when it is needed, and the table is never held whole.
 */
export function* tableLines(header: readonly string[], rows: () => Iterable<readonly string[]>): Generator<string> {
  const widths = header.map(width);
  // A loop, not Math.max(...cells): a spread passes each cell as an argument, and past about 100,000 rows the call overflows the stack.
  for (const row of rows()) {
    for (let i = 0; i < widths.length; i++) widths[i] = Math.max(widths[i] ?? 0, width(row[i] ?? ""));
  }
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c + " ".repeat(Math.max(0, (widths[i] ?? 0) - width(c)))))
      .join("   ")
      .trimEnd();
  yield line(header);
  for (const row of rows()) yield line(row);
}

/** Indents every line by two spaces: a table under a heading. */
export function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");
}
