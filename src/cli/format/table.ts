// Plain-text tables with aligned columns, as kubectl prints them.

import { stripVTControlCharacters } from "node:util";

/** Width on screen: colour codes take none (every one starts with ESC or CSI; a cell without them is measured as it is). */
const width = (s: string): number => (s.includes("\u001b") || s.includes("\u009b") ? stripVTControlCharacters(s).length : s.length);

/** Aligns rows under a header; columns are separated by three spaces. Cells may be coloured. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return [...tableLines(header, () => rows)].join("\n");
}

/** Rows a table keeps from measuring its columns to writing them; a longer one makes its rows again. */
const KEPT_ROWS = 20_000;

/**
 * The lines of `table`, one at a time, for output written as it is made, where the cells' widths are
 * known only from the cells (where they follow from what the cells say, measuredTableLines keeps no
 * row at all). The columns are measured before the first line: `rows` is called
 * once, and its rows kept to be written, for up to KEPT_ROWS rows; past that it is called again
 * to line them up, so that a generator makes each row when it is needed and a long table is never
 * held whole.
 */
export function* tableLines(header: readonly string[], rows: () => Iterable<readonly string[]>): Generator<string> {
  const widths = header.map(width);
  // The last column is not padded: its cells need not be measured.
  const measured = widths.length - 1;
  let kept: Array<readonly string[]> | null = [];
  // A loop, not Math.max(...cells): a spread passes each cell as an argument, and past about 100,000 rows the call overflows the stack.
  for (const row of rows()) {
    for (let i = 0; i < measured; i++) {
      const w = width(row[i] ?? "");
      if (w > (widths[i] as number)) widths[i] = w;
    }
    if (kept === null) continue;
    if (kept.length < KEPT_ROWS) kept.push(row);
    else kept = null;
  }
  const line = lineMaker(widths, width);
  yield line(header);
  if (kept === null) {
    for (const row of rows()) yield line(row);
    return;
  }
  for (let i = 0; i < kept.length; i++) yield line(kept[i] as readonly string[]);
}

/**
 * The lines of a table of `count` rows of plain cells (no colour codes: a cell's width is its
 * length) whose columns the caller has measured: `widths` holds, for each column but the last, the
 * length of its longest cell, or less (a header wider than its cells widens the column). Row `i` is
 * made by `row(i)` as its line is written, none is kept: a preview of a year measures its columns of
 * times by arithmetic (localTimeWidth) rather than keeping 17,000 rows.
 */
export function* measuredTableLines(
  header: readonly string[],
  widths: readonly number[],
  count: number,
  row: (index: number) => readonly string[],
): Generator<string> {
  const line = lineMaker(header.map((h, i) => Math.max(h.length, widths[i] ?? 0)));
  yield line(header);
  for (let i = 0; i < count; i++) yield line(row(i));
}

/**
 * A row's line: each cell but the last padded to its column's width, columns separated by three spaces. `measure`
 * gives a cell's width on screen (colour codes take none); without it, a cell's width is its length (plain cells).
 */
function lineMaker(widths: readonly number[], measure?: (cell: string) => number): (cells: readonly string[]) => string {
  // The spaces after a cell, made once for each length.
  const pads: string[] = [];
  return (cells) => {
    let text = "";
    const last = cells.length - 1;
    for (let i = 0; i < last; i++) {
      const c = cells[i] as string;
      const n = (widths[i] ?? 0) - (measure === undefined ? c.length : measure(c));
      text += n > 0 ? `${c}${(pads[n] ??= " ".repeat(n))}   ` : `${c}   `;
    }
    if (last < 0) return "";
    const end = cells[last] as string;
    // Trimmed as a whole only where the last cell is empty or may end in white space (a space, a control character or
    // a character beyond ASCII, some of which are spaces): a line that ends in anything else has nothing to cut.
    const code = end.charCodeAt(end.length - 1);
    return end === "" || code <= 32 || code >= 0x7f ? `${text}${end}`.trimEnd() : `${text}${end}`;
  };
}

/** Indents every line by two spaces: a table under a heading. */
export function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");
}
