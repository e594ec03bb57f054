/// <reference lib="dom" />
// The form fields of a schedule or freeze given by an RFC 5545 recurrence rule: the rule (with what it says in words), its time of day, length, first date and
// left-out dates.

import { html } from "htm/preact";
import type { VNode } from "preact";
import type { FieldProblem } from "../../../api/index.ts";
import { describeRecurrence } from "../../../schedule/rrule-words.ts";
import type { RecurrenceDraft } from "./draft.ts";
import { Field, Select } from "./fields.ts";

/** The rule in words, or null while it is not a rule the engine reads (the check under the field says why). */
export function ruleWords(rule: string): string | null {
  if (rule.trim() === "") return null;
  try {
    return describeRecurrence(rule);
  } catch {
    return null;
  }
}

/** The fields of one recurrence entry at `path` (e.g. `spec.schedules[1]`); `change` edits the row's draft. */
export function RecurrenceFields(props: {
  path: string;
  rule: RecurrenceDraft;
  problems: readonly FieldProblem[];
  change: (edit: (r: RecurrenceDraft) => void) => void;
}): VNode {
  const { path, rule: r, problems, change } = props;
  const words = ruleWords(r.recurrence);
  return html`<${Field}
      label="Rule (RFC 5545)"
      path=${`${path}.recurrence`}
      value=${r.recurrence}
      problems=${problems}
      placeholder="FREQ=MONTHLY;BYDAY=2SU"
      hint=${words === null ? "e.g. FREQ=MONTHLY;BYDAY=2SU, FREQ=WEEKLY;INTERVAL=2;BYDAY=TU" : `= ${words}`}
      onInput=${(v: string) => change((d) => void (d.recurrence = v))}
    />
    <${Field} label="At (local)" path=${`${path}.at`} value=${r.at} problems=${problems} placeholder="02:00" onInput=${(v: string) => change((d) => void (d.at = v))} />
    <${Select} label="Ends by" value=${r.lengthKind} options=${["endAt", "duration"]} onChange=${(v: string) => change((d) => void (d.lengthKind = v as "endAt" | "duration"))} />
    <${Field}
      label=${r.lengthKind === "endAt" ? "End at (local)" : "Duration"}
      path=${`${path}.${r.lengthKind}`}
      value=${r.length}
      problems=${problems}
      placeholder=${r.lengthKind === "endAt" ? "06:00" : "4h"}
      onInput=${(v: string) => change((d) => void (d.length = v))}
    />
    <${Field} label="First date (dtstart)" path=${`${path}.dtstart`} value=${r.dtstart} problems=${problems} placeholder="2026-01-06" hint="where INTERVAL and COUNT count from" onInput=${(v: string) => change((d) => void (d.dtstart = v))} />
    <${Field}
      label="Left out (exdates)"
      path=${`${path}.exdates`}
      value=${r.exdates}
      problems=${problems.map((p) => (p.path.startsWith(`${path}.exdates[`) ? { ...p, path: `${path}.exdates`, message: `${p.path.slice(path.length + 1)}: ${p.message}` } : p))}
      placeholder="2026-12-13, 2027-01-10T02:00"
      onInput=${(v: string) => change((d) => void (d.exdates = v))}
    />`;
}
