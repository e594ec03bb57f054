// Time-engine benchmarks: state evaluations and 7-day interval previews over a generated fleet of windows.

import { compileWindow, Evaluator, type RecurringSpec, type WindowTiming } from "../src/schedule/index.ts";

const ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney", "America/Sao_Paulo", "Asia/Kolkata", "Europe/London"];
const DAYS = ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"];

/** A deterministic pseudo-random sequence, so every run measures the same fleet. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** `count` realistic windows: weekday windows, nightly windows, Friday freezes, holiday freezes. */
export function fleet(count: number, seed = 1): WindowTiming[] {
  const rnd = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const out: WindowTiming[] = [];
  for (let i = 0; i < count; i++) {
    const hour = Math.floor(rnd() * 24);
    const schedules: RecurringSpec[] =
      rnd() < 0.5
        ? [{ start: `0 ${hour} * * ${pick(DAYS)}`, end: `0 ${(hour + 9) % 24} * * ${pick(DAYS)}` }]
        : [{ start: `${pick([0, 15, 30, 45])} ${hour} * * ${pick(["*", "MON-FRI", "1-5", "SAT,SUN"])}`, duration: pick(["1h", "2h", "90m", "4h"]) }];
    if (rnd() < 0.3) schedules.push({ start: `0 ${pick([6, 12, 18])} 1,15 * *`, duration: "3h" });
    const freezes = [
      { start: "0 0 * * FRI", duration: "24h", reason: "No deploys on Fridays" },
      ...(rnd() < 0.5 ? [{ from: "2026-12-20T00:00", to: "2027-01-05T00:00", reason: "Holiday freeze" }] : []),
    ];
    out.push({ timeZone: pick(ZONES), schedules, freezes });
  }
  return out;
}

export interface BenchLine {
  bench: string;
  [figure: string]: string | number;
}

/** Times `fn` over `ops` operations, after a warm-up. */
function measure(ops: number, fn: (i: number) => void): number {
  for (let i = 0; i < Math.min(ops, 2000); i++) fn(i);
  const start = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) fn(i);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return ops / seconds;
}

export function scheduleBenches(windows = 10_000): BenchLine[] {
  const evaluators = fleet(windows).map((t, i) => new Evaluator([compileWindow(`w${i}`, t)]));
  const base = Date.UTC(2026, 10, 22, 10);
  const rnd = random(7);
  const instants = Array.from({ length: windows }, () => base + Math.floor(rnd() * 366 * 86_400_000));
  let sink = 0;
  const stateOps = measure(windows * 5, (i) => {
    const d = (evaluators[i % windows] as Evaluator).stateAt(instants[(i * 7919) % windows] as number);
    sink += d.until ?? 0;
  });
  const intervalOps = measure(windows, (i) => {
    const t = instants[i] as number;
    sink += (evaluators[i] as Evaluator).openIntervals(t, t + 7 * 86_400_000).length;
  });
  if (sink === 0) throw new Error("benchmark produced no results");
  return [
    { bench: "schedule.state", windows, opsPerSec: Math.round(stateOps) },
    { bench: "schedule.intervals7d", windows, opsPerSec: Math.round(intervalOps) },
    yearBench("schedule.year", {
      timeZone: "Europe/Berlin",
      schedules: [{ start: "* * * * *", duration: "1m" }],
      freezes: [{ start: "0 * * * *", duration: "10m" }],
    }),
    // A daily RFC 5545 rule (22:00 for 2h) with a month-end freeze by rule and Bavaria's public
    // holidays (date-holidays): the target is under 50 ms a year.
    yearBench("schedule.rrule.year", {
      timeZone: "Europe/Berlin",
      schedules: [{ recurrence: "FREQ=DAILY", at: "22:00", duration: "2h" }],
      freezes: [{ recurrence: "FREQ=MONTHLY;BYDAY=-1FR", at: "00:00", duration: "24h" }, { holidays: { country: "DE", subdivision: "BY" } }],
    }),
  ];
}

/**
 * A year's preview of a window, compiled afresh each run (`schedule.year`: a minute-level window
 * with an hourly freeze, `* * * * *` for 1m, frozen 10 minutes every hour; 17,520 segments):
 * engine time per preview, best and worst of the runs.
 */
function yearBench(bench: string, timing: WindowTiming, runs = 7): BenchLine {
  const from = Date.UTC(2026, 0, 1);
  const to = Date.UTC(2027, 0, 1);
  const ms: number[] = [];
  const cpu: number[] = [];
  let segments = 0;
  for (let i = 0; i < runs + 1; i++) {
    // A fresh window each run: only the zone's table of offset changes is shared (as in the product).
    const evaluator = new Evaluator([compileWindow("year", timing)]);
    const start = process.hrtime.bigint();
    const startCpu = process.cpuUsage();
    segments = evaluator.segments(from, to).length;
    const used = process.cpuUsage(startCpu);
    const took = Number(process.hrtime.bigint() - start) / 1e6;
    // The first run warms up the JIT.
    if (i > 0) {
      ms.push(took);
      cpu.push((used.user + used.system) / 1000);
    }
  }
  const round = (x: number): number => Math.round(x * 10) / 10;
  const stats = (xs: number[]): [number, number, number] => {
    xs.sort((a, b) => a - b);
    return [round(xs[0] as number), round(xs[Math.floor(xs.length / 2)] as number), round(xs[xs.length - 1] as number)];
  };
  const [msMin, msMedian, msMax] = stats(ms);
  const [cpuMsMin, cpuMsMedian, cpuMsMax] = stats(cpu);
  return { bench, segments, runs, msMin, msMedian, msMax, cpuMsMin, cpuMsMedian, cpuMsMax };
}
