// The equivalence proof of migrate: when legacy suspend/resume CronJobs leave targets open, against a window's open intervals.
//
// A CronJob runs when robfig/cron's Next says, asked by the CronJob controller for the run after
// the last one in the CronJob's zone (cronjob-next.ts): in most zones, at the instants whose
// wall-clock time matches its schedule (a time in a spring-forward gap never runs, a time in a
// repeated fall-back hour runs twice); where the clocks change at midnight or by half an hour, as
// robfig's walk over the fields makes it, which no reading of the schedule gives. A target is open
// from a resume run until the next suspend run. fluxgate's windows follow DESIGN §3 instead, so
// the two can differ around DST changes; the proof finds every such difference, and where
// robfig's Next never returns, it says from when it cannot tell rather than guess.

import { Evaluator, parseCron, zoneRules, type CompiledWindow, type Interval } from "../schedule/index.ts";
import { robfigNext } from "./cronjob-next.ts";

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

/** From `from` on, the proof cannot say what the CronJobs do: robfig/cron's Next never returns for `job` there. */
export interface Unproven {
  from: number;
  job: string;
}

export interface Proof {
  /** The CronJobs and the window are open at exactly the same times over the whole range. */
  equivalent: boolean;
  from: number;
  to: number;
  legacy: Interval[];
  window: Interval[];
  /** Where they differ, before the first instant the proof cannot tell. */
  differences: Difference[];
  /** The instants from which the proof cannot tell, one per CronJob whose next run robfig/cron never finds. */
  unproven: Unproven[];
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

/** A CronJob's runs within a range, and where the controller stops finding them. */
export interface CronJobRuns {
  runs: number[];
  /**
   * The instant after which robfig/cron's Next never returns (its loop does not end at this
   * zone's change of offset), so the controller never runs the CronJob again; null when it always returns.
   */
  stuckAfter: number | null;
}

/**
 * The runs in `[from, to)` of a CronJob with this schedule in `zone`, as the CronJob controller
 * finds them: robfig/cron's Next of the instant before `from`, then of each run in turn.
 */
export function cronJobTimeline(schedule: string, zone: string, from: number, to: number): CronJobRuns {
  const cron = parseCron(schedule);
  const rules = zoneRules(zone);
  const runs: number[] = [];
  for (let t = from - 1; ;) {
    const next = robfigNext(cron, rules, t);
    if ("stuck" in next) return { runs, stuckAfter: t };
    if ("none" in next || next.at >= to) return { runs, stuckAfter: null };
    runs.push(next.at);
    t = next.at;
  }
}

/** The instants in `[from, to)` at which a CronJob with this schedule runs in `zone` (none after a Next that never returns). */
export function cronJobRuns(schedule: string, zone: string, from: number, to: number): number[] {
  return cronJobTimeline(schedule, zone, from, to).runs;
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
  return legacyTimeline(jobs, from, to).open;
}

function legacyTimeline(jobs: readonly LegacyJob[], from: number, to: number): { open: Interval[]; unproven: Unproven[] } {
  const events: Array<{ at: number; open: boolean }> = [];
  const unproven: Unproven[] = [];
  for (const j of jobs) {
    const timeline = cronJobTimeline(j.schedule, j.zone, from - LOOK_BACK, to);
    for (const at of timeline.runs) events.push({ at, open: j.action === "open" });
    if (timeline.stuckAfter !== null) unproven.push({ from: Math.max(from, timeline.stuckAfter), job: j.name });
  }
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
  return { open: out.filter((i) => i.end > i.start), unproven: unproven.sort((a, b) => a.from - b.from) };
}

/**
 * Compares the jobs and the window over `[from, to)`. Where robfig/cron's Next never returns for
 * a job, what the jobs do from then on is not known: the proof reports the differences before it
 * and claims nothing after.
 */
export function prove(jobs: readonly LegacyJob[], window: CompiledWindow, from: number, to: number): Proof {
  const { open: legacy, unproven } = legacyTimeline(jobs, from, to);
  const windowOpen = new Evaluator([window]).openIntervals(from, to);
  const known = unproven[0]?.from ?? to;
  const differences = difference(legacy, windowOpen, from, to)
    .filter((d) => d.start < known)
    .map((d) => ({ ...d, end: Math.min(d.end, known) }));
  return { equivalent: differences.length === 0 && unproven.length === 0, from, to, legacy, window: windowOpen, differences, unproven };
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
