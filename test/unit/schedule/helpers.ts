// Shared helpers for the time-engine tests: instants from ISO text and back.

import { compileWindow, Evaluator, Occurrences, parseCron, zoneRules, type WindowTiming } from "../../../src/schedule/index.ts";

export const at = (iso: string): number => {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) throw new Error(`bad test instant ${iso}`);
  return t;
};

export const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString().replace(".000Z", "Z"));

/** The next `n` occurrences of `cron` in `zone` strictly after `from`, as ISO strings. */
export function nextOccurrences(cron: string, zone: string, from: string, n: number): string[] {
  const occ = new Occurrences(parseCron(cron), zoneRules(zone));
  const out: string[] = [];
  let t = at(from);
  for (let i = 0; i < n; i++) {
    const next = occ.after(t);
    if (next === null) break;
    out.push(iso(next) as string);
    t = next;
  }
  return out;
}

/** Open intervals of a window's timing within [from, to), as "start/end" ISO strings. */
export function openIntervals(timing: WindowTiming, from: string, to: string): string[] {
  const ev = new Evaluator([compileWindow("w", timing)]);
  return ev.openIntervals(at(from), at(to)).map((i) => `${iso(i.start)}/${iso(i.end)}`);
}
