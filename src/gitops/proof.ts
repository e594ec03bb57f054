// The equivalence proof of migrate: when legacy suspend/resume CronJobs leave targets open, against a window's open intervals.
//
// A CronJob runs at the instants whose wall-clock time in its zone matches its schedule (the
// CronJob controller's cron library walks instants, not wall-clock dates): a time in a
// spring-forward gap never runs, a time in a repeated fall-back hour runs twice. A target is
// open from a resume run until the next suspend run. fluxgate's windows follow DESIGN §3 instead,
// so the two can differ around DST changes; the proof finds every such difference.

import { Evaluator, nextWall, parseCron, zoneRules, type CompiledWindow, type Interval } from "../schedule/index.ts";

const MINUTE = 60_000;
const DAY = 86_400_000;
/** How far back the state at the start of the proof is looked for. */
const LOOK_BACK = 400 * DAY;

/** One legacy CronJob: when it runs, in which zone, and whether it resumes (open) or suspends (close). */
export interface LegacyJob {
  name: string;
  schedule: string;
  zone: string;
  action: "open" | "close";
}

/** Where the two disagree: `legacy` says what the CronJobs leave the targets in. */
export interface Difference extends Interval {
  legacy: "open" | "closed";
}

export interface Proof {
  equivalent: boolean;
  from: number;
  to: number;
  legacy: Interval[];
  window: Interval[];
  differences: Difference[];
}

/**
 * A CronJob's schedule and zone as the CronJob controller reads them: a `TZ=`/`CRON_TZ=` prefix
 * of the schedule, else `spec.timeZone`; `zone` is undefined when it names none (the controller
 * manager's zone).
 */
export function cronJobSchedule(schedule: string | undefined, timeZone: string | undefined): { schedule: string; zone: string | undefined; prefixed: boolean } {
  const text = schedule ?? "";
  const tz = /^(?:CRON_)?TZ=(\S+)\s+(.*)$/.exec(text.trim());
  return tz === null ? { schedule: text, zone: timeZone, prefixed: false } : { schedule: tz[2] as string, zone: tz[1], prefixed: true };
}

/** The instants in `[from, to)` at which a CronJob with this schedule runs in `zone`. */
export function cronJobRuns(schedule: string, zone: string, from: number, to: number): number[] {
  const cron = parseCron(schedule);
  const rules = zoneRules(zone);
  const out: number[] = [];
  let wall = rules.wallAt(from) - DAY;
  for (;;) {
    const w = nextWall(cron, wall);
    if (w === null || w - 2 * DAY > to) break;
    const candidates = new Set([w - rules.offsetAt(w - DAY), w - rules.offsetAt(w + DAY), w - rules.offsetAt(w)]);
    for (const t of candidates) if (t >= from && t < to && rules.wallAt(t) === w) out.push(t);
    wall = w + MINUTE;
  }
  // Around a change of offset, a later wall-clock time can come first (a repeated half hour).
  return [...new Set(out)].sort((a, b) => a - b);
}

/**
 * The first instant at which a resume job and a suspend job both run, from the look-back before
 * `from` to `to`, or null. Two CronJobs due at one instant run in no defined order, so the state
 * they leave is ambiguous: migrate says so rather than guess.
 */
export function firstTie(jobs: readonly LegacyJob[], from: number, to: number): { at: number; open: string; close: string } | null {
  // One within the range is the one worth showing; one in the look-back decides the state at `from`.
  return tieIn(jobs, from, to) ?? tieIn(jobs, from - LOOK_BACK, from);
}

function tieIn(jobs: readonly LegacyJob[], from: number, to: number): { at: number; open: string; close: string } | null {
  // A week at a time, so that jobs due every minute are found at once, not after a year of runs.
  for (let start = from; start < to; start += 7 * DAY) {
    const end = Math.min(to, start + 7 * DAY);
    const opens = new Map<number, string>();
    for (const j of jobs) if (j.action === "open") for (const at of cronJobRuns(j.schedule, j.zone, start, end)) if (!opens.has(at)) opens.set(at, j.name);
    let best: { at: number; open: string; close: string } | null = null;
    for (const j of jobs) {
      if (j.action !== "close") continue;
      const at = cronJobRuns(j.schedule, j.zone, start, end).find((t) => opens.has(t));
      if (at !== undefined && (best === null || at < best.at)) best = { at, open: opens.get(at) as string, close: j.name };
    }
    if (best !== null) return best;
  }
  return null;
}

/**
 * The intervals in `[from, to)` during which the jobs leave their targets open. At one instant, a
 * suspend is taken to run after a resume; migrate never relies on it, since it refuses jobs that
 * run at one instant (`firstTie`).
 */
export function legacyOpenIntervals(jobs: readonly LegacyJob[], from: number, to: number): Interval[] {
  const events: Array<{ at: number; open: boolean }> = [];
  for (const j of jobs) for (const at of cronJobRuns(j.schedule, j.zone, from - LOOK_BACK, to)) events.push({ at, open: j.action === "open" });
  events.sort((a, b) => a.at - b.at || Number(b.open) - Number(a.open));
  let open = false;
  let since = from;
  const out: Interval[] = [];
  for (const e of events) {
    if (e.at >= from && e.open !== open) {
      if (open) out.push({ start: since, end: e.at });
      since = e.at;
    }
    open = e.open;
    if (e.at < from) since = from;
  }
  if (open) out.push({ start: since, end: to });
  return out.filter((i) => i.end > i.start);
}

/** Compares the jobs and the window over `[from, to)`. */
export function prove(jobs: readonly LegacyJob[], window: CompiledWindow, from: number, to: number): Proof {
  const legacy = legacyOpenIntervals(jobs, from, to);
  const windowOpen = new Evaluator([window]).openIntervals(from, to);
  const differences = difference(legacy, windowOpen, from, to);
  return { equivalent: differences.length === 0, from, to, legacy, window: windowOpen, differences };
}

function isIn(list: readonly Interval[], t: number): boolean {
  return list.some((i) => i.start <= t && t < i.end);
}

function difference(legacy: readonly Interval[], window: readonly Interval[], from: number, to: number): Difference[] {
  const cuts = [...new Set([from, to, ...legacy.flatMap((i) => [i.start, i.end]), ...window.flatMap((i) => [i.start, i.end])])].sort((a, b) => a - b);
  const out: Difference[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const start = cuts[i] as number;
    const end = cuts[i + 1] as number;
    const a = isIn(legacy, start);
    if (a === isIn(window, start)) continue;
    const last = out[out.length - 1];
    const state = a ? "open" : "closed";
    if (last !== undefined && last.end === start && last.legacy === state) last.end = end;
    else out.push({ start, end, legacy: state });
  }
  return out;
}
