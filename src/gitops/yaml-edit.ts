// Minimal edits of YAML source text: documents of a multi-document file, and the items of a top-level list.
//
// The yaml library locates nodes (their source ranges); the edits splice the source text, so every
// comment, quote, blank line and indentation that the edit does not touch stays byte for byte.

import { isMap, isScalar, isSeq, parseDocument, stringify, type Node, type Pair, type YAMLSeq } from "yaml";
import { RepositoryInputError } from "./errors.ts";

/** One document of a multi-document file, with the source text it spans (its `---` line included). */
export interface DocChunk {
  start: number;
  end: number;
  text: string;
  /** The document as plain data; null for an empty document (comments only). */
  value: unknown;
}

const SEPARATOR = /^---(?:[ \t].*)?$/;

/**
 * Cuts a YAML stream into its documents. Throws a RepositoryInputError naming `file` when a
 * document is not valid YAML.
 */
export function splitDocuments(text: string, file: string): DocChunk[] {
  const starts = [0];
  let offset = 0;
  for (const line of text.split("\n")) {
    if (offset > 0 && SEPARATOR.test(line)) starts.push(offset);
    else if (offset === 0 && SEPARATOR.test(line)) starts[0] = 0;
    offset += line.length + 1;
  }
  const chunks: DocChunk[] = [];
  starts.forEach((start, i) => {
    const end = i + 1 < starts.length ? (starts[i + 1] as number) : text.length;
    const chunk = text.slice(start, end);
    const doc = parseDocument(chunk, { uniqueKeys: false });
    const error = doc.errors[0];
    if (error !== undefined) {
      const lines = text.replace(/\n$/, "").split("\n").length;
      const line = Math.min(lines, text.slice(0, start).split("\n").length + (error.linePos?.[0].line ?? 1) - 1);
      throw new RepositoryInputError(`${file}:${line}: not valid YAML: ${error.message.split("\n")[0] ?? ""}`);
    }
    chunks.push({ start, end, text: chunk, value: doc.contents === null ? null : (doc.toJS() as unknown) });
  });
  return chunks;
}

/** The 1-based line at which a document's content starts (after its `---` line and leading comments). */
export function documentLine(text: string, chunk: DocChunk): number {
  const lines = chunk.text.split("\n");
  let i = 0;
  while (i < lines.length && (SEPARATOR.test(lines[i] as string) || /^\s*(#.*)?$/.test(lines[i] as string))) i++;
  return text.slice(0, chunk.start).split("\n").length + (i < lines.length ? i : 0);
}

/** Joins chosen documents back into one stream, each separated by `---`. */
export function joinDocuments(chunks: readonly DocChunk[]): string {
  let out = "";
  for (const c of chunks) {
    let text = c.text;
    if (out === "" && /^---[ \t]*\n/.test(text)) text = text.replace(/^---[ \t]*\n/, "");
    if (out !== "" && !text.startsWith("---")) text = `---\n${text}`;
    if (out !== "" && !out.endsWith("\n")) out += "\n";
    out += text;
  }
  return out;
}

/** One item of a top-level list, with the source lines it spans. */
export interface ListItem {
  value: unknown;
  /** Start of the item's first line (its `- ` indicator) and end of its last line, newline included. */
  start: number;
  end: number;
  /** A comment after the item on its last line (`  # why`), kept when the item is replaced. */
  comment: string;
  /** Comment lines right above the item (they go with it when it moves or goes). */
  leading: string[];
}

interface ListNode {
  pair: Pair<Node, Node | null> | null;
  seq: YAMLSeq | null;
  items: ListItem[];
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf("\n", at - 1) + 1;
}

function lineEnd(text: string, at: number): number {
  const nl = text.indexOf("\n", at);
  return nl === -1 ? text.length : nl + 1;
}

function parsed(text: string, file: string): ReturnType<typeof parseDocument> {
  const doc = parseDocument(text, { uniqueKeys: false });
  if (doc.errors.length > 0) throw new RepositoryInputError(`${file}: not valid YAML: ${doc.errors[0]?.message.split("\n")[0] ?? ""}`);
  return doc;
}

function locate(text: string, key: string, file: string, doc = parsed(text, file)): ListNode {
  const root = doc.contents;
  if (root === null) return { pair: null, seq: null, items: [] };
  if (!isMap(root)) throw new RepositoryInputError(`${file}: expected a mapping at the top`);
  const pair = root.items.find((p) => isScalar(p.key) && p.key.value === key) as Pair<Node, Node | null> | undefined;
  if (pair === undefined) return { pair: null, seq: null, items: [] };
  if (pair.value === null || (isScalar(pair.value) && pair.value.value === null)) return { pair, seq: null, items: [] };
  if (!isSeq(pair.value)) throw new RepositoryInputError(`${file}: ${key} must be a list`);
  const seq = pair.value;
  const keyLine = lineEnd(text, (pair.key.range ?? [0])[0]) - 1;
  const items = seq.items.map((node) => {
    const n = node as Node;
    const range = n.range ?? [0, 0, 0];
    const end = seq.flow === true ? range[1] : lineEnd(text, Math.max(range[0], range[1] - 1));
    const tail = seq.flow === true ? "" : text.slice(range[1], end).replace(/\n$/, "");
    let start = seq.flow === true ? range[0] : lineStart(text, range[0]);
    const leading: string[] = [];
    while (seq.flow !== true && start > 0) {
      const prev = lineStart(text, start - 1);
      const line = text.slice(prev, start - 1);
      if (!/^[ \t]*#/.test(line) || prev <= keyLine) break;
      leading.unshift(line.trim());
      start = prev;
    }
    return {
      value: n.toJSON() as unknown,
      start,
      end,
      comment: /^[ \t]+#/.test(tail) ? tail : "",
      leading,
    };
  });
  return { pair, seq, items };
}

/** The items of the top-level list `key` (empty when the key is missing or null). */
export function listItems(text: string, key: string, file: string): ListItem[] {
  return locate(text, key, file).items;
}

/** The items of several top-level lists, the text parsed once: `listItems` of each key. */
export function listsItems<K extends string>(text: string, keys: readonly K[], file: string): Record<K, ListItem[]> {
  const doc = parsed(text, file);
  return Object.fromEntries(keys.map((k) => [k, locate(text, k, file, doc).items])) as Record<K, ListItem[]>;
}

function scalarText(value: string): string {
  return stringify(value).trimEnd();
}

function flowText(values: readonly unknown[]): string {
  return `[${values.map((v) => (typeof v === "string" ? scalarText(v) : stringify(v, { flow: true } as never).trimEnd())).join(", ")}]`;
}

/** Indentation used for list items in this file: that of an existing block item, else two spaces. */
function itemIndent(text: string): string {
  const m = /^([ \t]*)- /m.exec(text);
  return m?.[1] ?? "  ";
}

/**
 * Rewrites the list `key`: keeps, drops or replaces each item (`edit` returns the item's new
 * values: `[value]` keeps it, `[]` drops it, several values replace it), then appends `append`.
 * Block lists are spliced line by line; flow lists (`[a, b]`) are written again in flow style.
 * Removing the last item leaves `key: []`.
 */
export function editList(
  text: string,
  key: string,
  file: string,
  edit: (value: unknown, index: number) => readonly unknown[] | "keep",
  append: readonly unknown[] = [],
  options: { dropEmpty?: boolean } = {},
): string {
  const { pair, seq, items } = locate(text, key, file);
  const kept: unknown[] = [];
  const replaced: Array<{ item: ListItem; values: readonly unknown[] | "keep" }> = items.map((item, i) => ({ item, values: edit(item.value, i) }));
  for (const r of replaced) kept.push(...(r.values === "keep" ? [r.item.value] : r.values));
  kept.push(...append);
  if (replaced.every((r) => r.values === "keep") && append.length === 0) return text;

  if (seq === null || seq.flow === true) {
    if (pair === null) {
      if (kept.length === 0) return text;
      const indent = itemIndent(text);
      const sep = text === "" || text.endsWith("\n") ? "" : "\n";
      return `${text}${sep}${key}:\n${kept.map((v) => `${leadingOf(v, indent)}${indent}- ${itemText(v, indent)}\n`).join("")}`;
    }
    if (seq === null) {
      // `key:` with no value: write a block list under it.
      const keyLineEnd = lineEnd(text, (pair.key.range ?? [0])[0]);
      const indent = itemIndent(text);
      const head = text
        .slice(0, keyLineEnd)
        .replace(/:[ \t]*(~|null)?[ \t]*(#.*)?\n?$/, (_m, _n, comment: string | undefined) => `:${comment ? ` ${comment}` : ""}\n`);
      return `${head}${kept.map((v) => `${leadingOf(v, indent)}${indent}- ${itemText(v, indent)}\n`).join("")}${text.slice(keyLineEnd)}`;
    }
    const range = seq.range ?? [0, 0, 0];
    if (items.length === 0 && kept.length > 0) {
      // `key: []` becomes a block list.
      const indent = itemIndent(text);
      const end = lineEnd(text, range[1]);
      const rest = text.slice(range[1], end).replace(/\n$/, "");
      return `${text.slice(0, range[0]).replace(/[ \t]+$/, "")}${rest.trim() === "" ? "" : rest}\n${kept.map((v) => `${leadingOf(v, indent)}${indent}- ${itemText(v, indent)}\n`).join("")}${text.slice(end)}`;
    }
    if (kept.length === 0 && options.dropEmpty === true) return dropKey(text, pair);
    return `${text.slice(0, range[0])}${flowText(kept)}${text.slice(range[1])}`;
  }

  // Block list: splice each item's lines.
  const indent = text.slice(items[0]?.start ?? 0).match(/^([ \t]*)-/)?.[1] ?? itemIndent(text);
  let out = "";
  let at = 0;
  for (const r of replaced) {
    out += text.slice(at, r.item.start);
    if (r.values === "keep") out += text.slice(r.item.start, r.item.end);
    else
      out += r.values
        .map(
          (v, i) =>
            `${i === 0 ? r.item.leading.map((c) => `${indent}${c}\n`).join("") : ""}${indent}- ${itemText(v, indent)}${i === 0 ? r.item.comment : ""}\n`,
        )
        .join("");
    at = r.item.end;
  }
  const last = items[items.length - 1];
  const tailStart = last === undefined ? at : last.end;
  out += text.slice(at, tailStart);
  if (append.length > 0) {
    if (out !== "" && !out.endsWith("\n")) out += "\n";
    out += append.map((v) => `${leadingOf(v, indent)}${indent}- ${itemText(v, indent)}\n`).join("");
  }
  out += text.slice(tailStart);
  if (kept.length === 0 && options.dropEmpty === true) return dropKey(out, locate(out, key, file).pair);
  if (kept.length === 0) {
    // Every item went: leave `key: []` rather than a dangling `key:`.
    const keyStart = lineStart(out, out.indexOf(`${key}:`, lineStart(text, (pair?.key.range ?? [0])[0]) - 1));
    const keyEnd = lineEnd(out, keyStart);
    return `${out.slice(0, keyStart)}${key}: []\n${out.slice(keyEnd)}`;
  }
  return out;
}

/** Removes a top-level key and its (now empty) value, with the comment lines right above it. */
function dropKey(text: string, pair: Pair<Node, Node | null> | null): string {
  if (pair === null) return text;
  const start = lineStart(text, (pair.key.range ?? [0])[0]);
  const valueEnd = pair.value?.range?.[1] ?? (pair.key.range ?? [0, 0])[1];
  const end = lineEnd(text, Math.max(start, valueEnd - 1));
  return `${text.slice(0, start)}${text.slice(end)}`;
}

function leadingOf(value: unknown, indent: string): string {
  return value instanceof RawItem ? value.leading.map((c) => `${indent}${c}\n`).join("") : "";
}

/** Source text of an item value, for a block list written at `indent`. */
function itemText(value: unknown, indent: string): string {
  if (typeof value === "string") return scalarText(value);
  const lines = value instanceof RawItem ? value.lines : stringify(value).trimEnd().split("\n");
  return lines.map((line, i) => (i === 0 || line === "" ? line : `${indent}  ${line}`)).join("\n");
}

/** An item given as source lines (as it stood in another list, comments included), to be moved verbatim. */
export class RawItem {
  /** The first line after `- `, then the following lines relative to the item's content column. */
  readonly lines: readonly string[];
  /** Comment lines that stood right above it. */
  readonly leading: readonly string[];
  constructor(lines: readonly string[], leading: readonly string[] = []) {
    this.lines = lines;
    this.leading = leading;
  }

  /** The source of an item as found by listItems. */
  static of(text: string, item: ListItem, file: string): RawItem {
    const lines = text.slice(item.start, item.end).replace(/\n$/, "").split("\n").slice(item.leading.length);
    const m = /^([ \t]*)- ?/.exec(lines[0] ?? "");
    if (m === null) throw new RepositoryInputError(`${file}: cannot move a list item that is not on its own line`);
    const column = m[0].length;
    const rest = lines.slice(1).map((l) => l.slice(Math.min(column, l.length - l.trimStart().length)));
    return new RawItem([(lines[0] ?? "").slice(column), ...rest], item.leading);
  }
}

/**
 * Sets the scalar at `path` (e.g. `["clusters", 0, "timeZone"]`) in a one-document file, splicing
 * only its text. The key must exist.
 */
export function setScalar(text: string, path: ReadonlyArray<string | number>, value: string, file: string): string {
  const doc = parseDocument(text, { uniqueKeys: false });
  const node = doc.getIn(path, true);
  if (!isScalar(node) || node.range === undefined || node.range === null) throw new RepositoryInputError(`${file}: ${path.join(".")} is not a plain value`);
  return `${text.slice(0, node.range[0])}${scalarText(value)}${text.slice(node.range[1])}`;
}

/**
 * Removes the field at `path` (e.g. `["spec", "suspend"]`) from the document of `kind` `name` in
 * a multi-document file, with its line(s), a comment on them and the comment lines right above
 * it; every other byte stays. Null when the document or field is not there, or when the field
 * sits in a flow mapping (`spec: {suspend: false}`), which is not edited.
 */
export function removeField(text: string, file: string, kind: string, name: string, path: readonly string[]): string | null {
  const chunk = splitDocuments(text, file).find((c) => {
    const v = c.value as { kind?: unknown; metadata?: { name?: unknown } } | null;
    return typeof v === "object" && v !== null && v.kind === kind && v.metadata?.name === name;
  });
  if (chunk === undefined || path.length === 0) return null;
  const doc = parseDocument(chunk.text, { uniqueKeys: false });
  const parent = path.length === 1 ? doc.contents : doc.getIn(path.slice(0, -1), true);
  if (!isMap(parent) || parent.flow === true) return null;
  const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === path[path.length - 1]) as Pair<Node, Node | null> | undefined;
  if (pair === undefined || pair.key.range === undefined || pair.key.range === null) return null;
  const t = chunk.text;
  let start = lineStart(t, pair.key.range[0]);
  const indent = t.slice(start, pair.key.range[0]);
  if (!/^[ \t]*$/.test(indent)) return null; // the key shares its line with something else
  const valueEnd = pair.value?.range?.[1] ?? pair.key.range[1];
  const end = lineEnd(t, Math.max(pair.key.range[0], valueEnd - 1));
  while (start > 0) {
    const prev = lineStart(t, start - 1);
    if (!t.slice(prev, start - 1).startsWith(`${indent}#`)) break;
    start = prev;
  }
  return `${text.slice(0, chunk.start + start)}${text.slice(chunk.start + end)}`;
}

/** Kind and name of each document of a YAML text (the objects a strategic-merge patch addresses); empty when it does not parse. */
export function documentTargets(text: string): Array<{ kind: string | undefined; name: string | undefined }> {
  try {
    return splitDocuments(text, "patch").flatMap((c) => {
      const v = c.value;
      if (typeof v !== "object" || v === null || Array.isArray(v)) return [];
      const o = v as { kind?: unknown; metadata?: { name?: unknown } };
      return [{ kind: typeof o.kind === "string" ? o.kind : undefined, name: typeof o.metadata?.name === "string" ? o.metadata.name : undefined }];
    });
  } catch {
    return [];
  }
}
