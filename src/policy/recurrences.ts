// A window's recurrence entries as people read them: the rule, what it says in words, and its current or next interval in the window's zone.

import type { WindowTimingSpec } from "../api/index.ts";
import { describeRecurrence, localTime, type CompiledWindow, type Interval } from "../schedule/index.ts";

/** One schedule or freeze of a window given by an RFC 5545 rule. */
export interface RecurrenceEntry {
  kind: "allow" | "freeze";
  /** Its field path, e.g. `spec.schedules[1]`. */
  path: string;
  /** The rule as written, e.g. `FREQ=MONTHLY;BYDAY=2SU`. */
  rule: string;
  /** The rule in words, e.g. "the second Sunday of each month". */
  words: string;
  /** The rule with its time and length, as reasons name it: `FREQ=MONTHLY;BYDAY=2SU at 02:00 → 06:00`. */
  label: string;
  /** The interval active at `now`, else the next one; null when it never starts again. */
  next: Interval | null;
  active: boolean;
  /** `next` in the window's zone: `Sun 2026-12-13 02:00 CET → Sun 2026-12-13 06:00 CET`. */
  local: string | null;
}

/**
 * The recurrence entries of a valid window, in the order of its spec (schedules, then freezes).
 *
 * @example recurrenceEntries(spec, compiled, now)[0]?.words // "the second Sunday of each month"
 */
export function recurrenceEntries(spec: WindowTimingSpec, compiled: CompiledWindow, now: number): RecurrenceEntry[] {
  const out: RecurrenceEntry[] = [];
  const add = (kind: "allow" | "freeze", list: readonly { recurrence?: string | undefined }[] | undefined, field: string): void => {
    (list ?? []).forEach((entry, index) => {
      if (entry.recurrence === undefined) return;
      const rule = (kind === "allow" ? compiled.allow : compiled.freeze).find((r) => r.ref.index === index);
      if (rule === undefined) return;
      const current = rule.atOrBefore(now);
      const active = current !== null && current.end > now;
      const next = active ? current : rule.after(now);
      out.push({
        kind,
        path: `spec.${field}[${index}]`,
        rule: entry.recurrence.trim(),
        words: describeRecurrence(entry.recurrence),
        label: rule.ref.label,
        next,
        active,
        local: next === null ? null : `${localTime(next.start, compiled.zone)} → ${localTime(next.end, compiled.zone)}`,
      });
    });
  };
  add("allow", spec.schedules, "schedules");
  add("freeze", spec.freezes, "freezes");
  return out;
}
