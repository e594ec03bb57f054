// Plain-text tables with aligned columns, as kubectl prints them.

/** Aligns rows under a header; columns are separated by three spaces. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("   ").trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}
