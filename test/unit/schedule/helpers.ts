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

/**
 * Changes of the clocks, each with its zone: Berlin's and New York's both ways, Lord Howe's half hour, Santiago's at
 * midnight, Samoa's day that never was (23:59 on 29 December 2011, then 00:00 on the 31st), and a day in UTC.
 */
export const CLOCK_CHANGES: ReadonlyArray<readonly [string, number]> = [
  ["Europe/Berlin", at("2026-03-29T01:00:00Z")],
  ["Europe/Berlin", at("2026-10-25T01:00:00Z")],
  ["America/New_York", at("2026-03-08T07:00:00Z")],
  ["America/New_York", at("2026-11-01T06:00:00Z")],
  ["Australia/Lord_Howe", at("2026-04-04T15:00:00Z")],
  ["Australia/Lord_Howe", at("2026-10-03T15:30:00Z")],
  ["America/Santiago", at("2026-04-05T03:00:00Z")],
  ["America/Santiago", at("2026-09-06T04:00:00Z")],
  ["Pacific/Apia", at("2011-12-30T10:00:00Z")],
  ["UTC", at("2026-06-01T00:00:00Z")],
];
