// Puts a calendar's freezes into a window file by UID: an event imported before is updated in place, a new one appended, comments and hand-written freezes kept.
//
// Rules (docs/schedules.md, "Freezes from a calendar"): a freeze whose `uid` is an event of the
// calendar is replaced by that event's freeze (left as it is when equal); a new event's freeze is
// appended; a cancelled event (STATUS:CANCELLED) removes its freeze; a freeze with a `uid` the
// calendar no longer has is kept, and removed only with `prune` (a window may take freezes from
// several calendars). Freezes without a `uid` are never touched.

import { isDeepStrictEqual } from "node:util";
import { isMap, isScalar, isSeq, parseDocument, visit, type Document, type Node, type YAMLMap } from "yaml";
import { inContext } from "../../errors.ts";
import { DEFAULT_TIME_ZONE, validateWindow } from "../../api/index.ts";
import { RepositoryInputError } from "../errors.ts";
import { readYaml } from "../yaml-read.ts";
import { freezesFromCalendar, type CalendarFreezes, type ImportedFreeze, type ReadOptions } from "./ics-import.ts";

/** A freeze the import leaves out, by its UID and reason. */
export interface DroppedFreeze {
  uid: string;
  reason: string | null;
}

/** What importing a calendar does to one window file. */
export interface FreezeImport {
  /** The file's new text (the same text when nothing changes). */
  text: string;
  timeZone: string;
  calendarName: string | null;
  added: ImportedFreeze[];
  updated: ImportedFreeze[];
  unchanged: ImportedFreeze[];
  removed: DroppedFreeze[];
  /** Freezes imported before whose events the calendar no longer has, kept (without prune). */
  kept: DroppedFreeze[];
}

export interface FreezeImportRequest extends ReadOptions {
  /** The calendar file's text. */
  calendar: string;
  /** Remove the freezes with a `uid` that the calendar does not have. */
  prune?: boolean | undefined;
}

/** Fields written quoted: Kubernetes' YAML 1.1 reader would take "18:00" for a number. */
const QUOTED = new Set(["from", "to", "at", "endAt", "dtstart", "uid", "recurrence"]);

/**
 * Plans the import of a calendar into the window held by `text` (file `file`, a ReconciliationWindow
 * manifest): the events read in the window's `spec.timeZone`. The new window is validated as the
 * controller validates it; any refused event or invalid result throws, naming it, and nothing is
 * planned in part.
 *
 * @example planFreezeImport(windowYaml, "clusters/edge/windows/changes.yaml", { calendar: icsText }, Date.now()).added
 */
export function planFreezeImport(text: string, file: string, request: FreezeImportRequest, now: number): FreezeImport {
  const doc = parseDocument(text);
  const read = readYaml(text);
  if (doc.errors.length > 0 || read.problem !== null)
    throw new RepositoryInputError(`${file}: not valid YAML (${doc.errors[0]?.message ?? read.problem ?? ""}); fix it first`);
  const manifest = read.value as Record<string, unknown> | null;
  const spec = manifest?.spec as Record<string, unknown> | undefined;
  if (!isMap(doc.contents) || manifest?.kind !== "ReconciliationWindow" || typeof spec !== "object" || spec === null)
    throw new RepositoryInputError(`${file}: not a ReconciliationWindow manifest with a spec`);
  const timeZone = typeof spec.timeZone === "string" ? spec.timeZone : DEFAULT_TIME_ZONE;
  const calendar = freezesFromCalendar(request.calendar, timeZone, request);
  const plan = mergeFreezes(doc, calendar, request.prune === true);
  // No folding: a long UID (Outlook writes 100 characters) stays on one line, as people search for it.
  const out = doc.toString({ lineWidth: 0 });
  inContext({ heading: `${file}: with the calendar's freezes the window would not be valid; nothing was written` }, () =>
    validateWindow(readYaml(out).value, now),
  );
  return { ...plan, text: plan.changed ? out : text, timeZone, calendarName: calendar.name };
}

function mergeFreezes(
  doc: Document,
  calendar: CalendarFreezes,
  prune: boolean,
): Omit<FreezeImport, "text" | "timeZone" | "calendarName"> & { changed: boolean } {
  const byUid = new Map(calendar.freezes.map((f) => [f.uid, f]));
  const cancelled = new Set(calendar.cancelled);
  const existing = doc.getIn(["spec", "freezes"], true);
  if (existing !== undefined && existing !== null && !isSeq(existing)) throw new RepositoryInputError("spec.freezes is not a list; fix it first");
  const items = isSeq(existing) ? [...existing.items] : [];
  const out: unknown[] = [];
  const result = {
    added: [] as ImportedFreeze[],
    updated: [] as ImportedFreeze[],
    unchanged: [] as ImportedFreeze[],
    removed: [] as DroppedFreeze[],
    kept: [] as DroppedFreeze[],
  };
  const done = new Set<string>();
  for (const item of items) {
    const uid = isMap(item) ? scalarText(item, "uid") : null;
    if (uid === null) {
      out.push(item);
      continue;
    }
    const dropped = { uid, reason: scalarText(item as YAMLMap, "reason") };
    const imported = byUid.get(uid);
    if (imported !== undefined && !done.has(uid)) {
      done.add(uid);
      if (isDeepStrictEqual((item as YAMLMap).toJSON(), imported.freeze)) {
        result.unchanged.push(imported);
        out.push(item);
      } else {
        result.updated.push(imported);
        out.push(freezeNode(doc, imported));
      }
    } else if (cancelled.has(uid) || prune || done.has(uid)) {
      result.removed.push(dropped);
    } else {
      result.kept.push(dropped);
      out.push(item);
    }
  }
  for (const f of calendar.freezes) {
    if (done.has(f.uid)) continue;
    result.added.push(f);
    out.push(freezeNode(doc, f));
  }
  const changed = result.added.length + result.updated.length + result.removed.length > 0;
  if (changed) {
    if (isSeq(existing)) {
      existing.items = out;
      existing.flow = false;
    } else doc.setIn(["spec", "freezes"], doc.createNode(out));
  }
  return { ...result, changed };
}

function scalarText(map: YAMLMap, key: string): string | null {
  const v = map.get(key, true);
  return isScalar(v) && (typeof v.value === "string" || typeof v.value === "number") ? String(v.value) : null;
}

function freezeNode(doc: Document, f: ImportedFreeze): Node {
  const node = doc.createNode(f.freeze);
  visit(node, {
    Pair(_, pair) {
      if (!isScalar(pair.key) || !QUOTED.has(String(pair.key.value))) return;
      if (isScalar(pair.value)) pair.value.type = "QUOTE_DOUBLE";
    },
    Seq(_, seq) {
      for (const x of seq.items) if (isScalar(x)) x.type = "QUOTE_DOUBLE";
    },
  });
  return node;
}
