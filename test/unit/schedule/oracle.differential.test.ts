// fluxgate against robfig/cron v3.0.1 (the CronJob controller's library) and Kubernetes' CronJob validation, on thousands of random cases.
//
// Four lists are compared for each (schedule, zone, start): the oracle's runs, migrate's model of
// a CronJob (`cronJobTimeline`: robfig's Next, step for step), the wall-clock reading of the
// schedule (every instant whose wall clock matches), and fluxgate's occurrences.
// - model vs oracle: equal, run for run, and the model says its Next never returns exactly where
//   robfig's does not (over Pacific/Apia's skipped day, 30 Dec 2011).
// - wall-clock reading vs oracle: equal, except robfig/cron's own way with some changes, which
//   is listed and asserted: in zones whose clocks move by 30 minutes (Australia/Lord_Howe) it
//   misses runs on the day of the change; in zones whose clocks change at midnight (Asia/Tehran,
//   America/Sao_Paulo, America/Santiago) it misses or invents runs on the day of the change.
// - fluxgate vs wall-clock reading: equal, except DESIGN §3's intended difference, derived here
//   independently and asserted exactly: a run skipped by a spring-forward gap happens at the end
//   of the gap, and a wall-clock time repeated by a fall-back happens once, at its first instant.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import fc from "fast-check";
import { cronJobRuns, cronJobTimeline } from "../../../src/gitops/proof.ts";
import { nextWall, Occurrences, parseCron, ScheduleError, zoneRules, type CronSchedule } from "../../../src/schedule/index.ts";
import { CronOracle, type OracleRequest } from "../../harness/cron-oracle.ts";
import { cronText } from "../fuzz/inputs.ts";

const SEED = 20261123;
const MINUTE = 60_000;
const DAY = 86_400_000;
const RUNS_PER_CASE = 12;

/** Zones where robfig/cron is right at every change, and the ones where it is not (and how). */
const CORRECT_ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Adelaide", "Asia/Kolkata"];
const MISBEHAVING: Readonly<Record<string, "30-minute shift" | "change at midnight" | "skipped day">> = {
  "Australia/Lord_Howe": "30-minute shift",
  "Asia/Tehran": "change at midnight",
  "America/Sao_Paulo": "change at midnight",
  "America/Santiago": "change at midnight",
  "Pacific/Apia": "skipped day",
};
const ZONES = [...CORRECT_ZONES, ...Object.keys(MISBEHAVING)];

let oracle: CronOracle;
before(async () => {
  oracle = await CronOracle.start();
});
after(async () => {
  await oracle.stop();
});

/** Whether a wall-clock minute matches, written out here from robfig/cron's rules (not fluxgate's walk). */
function matchesWall(c: CronSchedule, wall: number): boolean {
  const d = new Date(wall);
  if (!c.minutes[d.getUTCMinutes()] || !c.hours[d.getUTCHours()] || !c.months[d.getUTCMonth() + 1]) return false;
  const dom = c.daysOfMonth[d.getUTCDate()] === true;
  const dow = c.daysOfWeek[d.getUTCDay()] === true;
  return c.domStar || c.dowStar ? dom && dow : dom || dow;
}

/** Offset changes in `(from, to]` with the offsets before and after. */
function changes(zone: string, from: number, to: number): Array<{ at: number; before: number; after: number }> {
  const z = zoneRules(zone);
  return z.transitionsIn(from, to).map((x) => ({ at: x, before: z.offsetAt(x - 1), after: z.offsetAt(x) }));
}

/**
 * What DESIGN §3 makes of a CronJob's runs: a run in the second pass of a repeated hour is dropped;
 * a gap that skips a matching wall-clock minute adds a run at the gap's end.
 */
function designFromModel(c: CronSchedule, zone: string, model: readonly number[], from: number, to: number): number[] {
  const z = zoneRules(zone);
  const out = new Set<number>();
  for (const r of model) {
    const secondPass = changes(zone, r - 2 * DAY, r).some(
      (x) => x.before > x.after && r < x.at + (x.before - x.after) && z.wallAt(r - (x.before - x.after)) === z.wallAt(r),
    );
    if (!secondPass) out.add(r);
  }
  for (const x of changes(zone, from, to)) {
    if (x.after <= x.before || x.at <= from || x.at > to) continue;
    // Wall-clock minutes the gap skips: [wall just before the change, wall at the change).
    const first = Math.ceil((x.at - 1 + x.before + 1) / MINUTE) * MINUTE;
    for (let w = first; w < x.at + x.after; w += MINUTE) {
      if (matchesWall(c, w)) {
        out.add(x.at);
        break;
      }
    }
  }
  return [...out].sort((a, b) => a - b);
}

/**
 * The wall-clock reading of a schedule: the instants in `[from, to)` whose wall-clock time in `zone` matches it (a time in a gap never, a repeated one twice).
 */
function wallClockRuns(schedule: string, zone: string, from: number, to: number): number[] {
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
  return [...new Set(out)].sort((a, b) => a - b);
}

function fluxgateRuns(c: CronSchedule, zone: string, from: number, to: number): number[] {
  const occ = new Occurrences(c, zoneRules(zone));
  const out: number[] = [];
  for (let t = occ.after(from); t !== null && t <= to; t = occ.after(t)) out.push(t);
  return out;
}

const within = (list: readonly number[], from: number, to: number): number[] => list.filter((t) => t > from && t <= to);
const isoList = (list: readonly number[]): string => list.map((t) => new Date(t).toISOString().slice(0, 16)).join(" ");

// Five-field schedules as CronJob users write them, with *\/N and ? in the day fields.
const term = (min: number, max: number, names: readonly string[] = []): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant("*") },
    { weight: 3, arbitrary: fc.integer({ min, max }).map(String) },
    { weight: 1, arbitrary: names.length > 0 ? fc.constantFrom(...names) : fc.integer({ min, max }).map(String) },
    { weight: 2, arbitrary: fc.integer({ min: 2, max: Math.max(2, Math.floor((max - min) / 2)) }).map((s) => `*/${s}`) },
    { weight: 2, arbitrary: fc.tuple(fc.integer({ min, max }), fc.integer({ min, max })).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`) },
    { weight: 1, arbitrary: fc.tuple(fc.integer({ min, max }), fc.integer({ min: 2, max: 9 })).map(([a, s]) => `${a}/${s}`) },
  );
const listOf = (t: fc.Arbitrary<string>): fc.Arbitrary<string> => fc.array(t, { minLength: 1, maxLength: 2 }).map((a) => a.join(","));
const dayTerm = (min: number, max: number, names: readonly string[] = []): fc.Arbitrary<string> =>
  fc.oneof({ weight: 6, arbitrary: listOf(term(min, max, names)) }, { weight: 1, arbitrary: fc.constant("?") });
const schedule: fc.Arbitrary<string> = fc
  .tuple(
    listOf(term(0, 59)),
    listOf(term(0, 23)),
    dayTerm(1, 31),
    listOf(term(1, 12, ["JAN", "mar", "Oct", "DEC"])),
    dayTerm(0, 6, ["SUN", "mon", "Fri", "SAT"]),
  )
  .map((f) => f.join(" "));

test("accept and refuse: fluxgate and a CronJob agree, except schedules a CronJob accepts and never runs, and @every", async () => {
  const texts = fc.sample(fc.oneof({ weight: 3, arbitrary: cronText }, { weight: 1, arbitrary: schedule }), { seed: SEED, numRuns: 4000 });
  const answers = await oracle.askAll(texts.map((schedule): OracleRequest => ({ op: "validate", schedule })));
  let agreed = 0;
  const neverRuns: string[] = [];
  const every: string[] = [];
  const problems: string[] = [];
  for (const [i, text] of texts.entries()) {
    const cronJob = (answers[i] as { ok: boolean }).ok;
    let refusal: ScheduleError | null = null;
    try {
      parseCron(text);
    } catch (e) {
      if (!(e instanceof ScheduleError)) throw e;
      refusal = e;
    }
    if (cronJob === (refusal === null)) agreed++;
    else if (cronJob && refusal !== null && /never runs|never exists/.test(refusal.message)) neverRuns.push(text);
    else if (cronJob && refusal !== null && text.startsWith("@every ") && /@every is not supported/.test(refusal.message)) every.push(text);
    else
      problems.push(
        `${JSON.stringify(text)}: CronJob ${cronJob ? "accepts" : "refuses"}, fluxgate ${refusal === null ? "accepts" : `refuses (${refusal.message})`}`,
      );
  }
  assert.deepEqual(problems, [], problems.slice(0, 20).join("\n"));
  // The schedules fluxgate refuses as never running: robfig/cron finds no run from any of several starts.
  const starts = [Date.UTC(2026, 0, 1), Date.UTC(2027, 5, 15), Date.UTC(2028, 1, 28)];
  const runs = await oracle.askAll(neverRuns.flatMap((schedule) => starts.map((from): OracleRequest => ({ op: "next", schedule, from, count: 1 }))));
  runs.forEach((a, i) => assert.deepEqual(a.times ?? [], [], `${neverRuns[Math.floor(i / starts.length)]} runs for CronJob`));
  assert.ok(agreed > 3000 && neverRuns.length > 0, `agreed ${agreed}, never runs ${neverRuns.length}`);
  process.stdout.write(`# accept/refuse: ${agreed} of ${texts.length} agree; intended differences: ${neverRuns.length} never run, ${every.length} @every\n`);
});

interface Case {
  schedule: string;
  zone: string;
  from: number;
}

/** Starts: any minute 1990-2060, or within a day of one of the zone's offset changes. */
function cases(): Case[] {
  const arb = fc.tuple(
    schedule,
    fc.constantFrom(...ZONES),
    fc.boolean(),
    fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2060, 0, 1) }),
    fc.nat(),
    fc.integer({ min: -26 * 60, max: 6 * 60 }),
  );
  const accepted = (s: string): boolean => {
    try {
      parseCron(s);
      return true;
    } catch {
      return false; // refusals are compared in the test above
    }
  };
  return fc
    .sample(
      arb.filter(([s]) => accepted(s)),
      { seed: SEED, numRuns: 4000 },
    )
    .map(([s, zone, nearChange, any, k, minutes]) => {
      let from = Math.floor(any / MINUTE) * MINUTE;
      const near = changes(zone, Date.UTC(2005, 0, 1), Date.UTC(2030, 0, 1));
      if (nearChange && near.length > 0) from = (near[k % near.length] as { at: number }).at + minutes * MINUTE;
      return { schedule: s, zone, from };
    });
}

test("next runs: the CronJob model = robfig/cron, run for run; fluxgate = the wall-clock reading with DESIGN §3's DST rule; the wall-clock reading = robfig/cron except its listed ways", async () => {
  const all = cases();
  const answers = await oracle.askAll(
    all.map((c): OracleRequest => ({ op: "next", schedule: c.schedule, timeZone: c.zone, from: c.from, count: RUNS_PER_CASE })),
  );
  const tally = {
    cases: 0,
    instants: 0,
    identical: 0,
    gapRuns: 0,
    repeatedRuns: 0,
    stuck: 0,
    misbehaviour: { "30-minute shift": 0, "change at midnight": 0, "skipped day": 0 },
  };
  const problems: string[] = [];
  for (const [i, c] of all.entries()) {
    const answer = answers[i] as { ok: boolean; times?: number[]; stuck?: boolean; errors?: string[] };
    const cron = parseCron(c.schedule);
    assert.ok(answer.ok, `${c.schedule}: CronJob refuses (${answer.errors?.join("; ")}) what fluxgate accepts`);
    const where = `${JSON.stringify(c.schedule)} in ${c.zone} after ${new Date(c.from).toISOString()}`;
    const kind = MISBEHAVING[c.zone];
    const theirs = answer.times ?? [];
    // The model: robfig's runs, and its Next that never returns where robfig's does not.
    const modelEnd = answer.stuck === true || theirs.length === 0 ? c.from + 6 * 366 * DAY : (theirs[theirs.length - 1] as number) + 1;
    const model = cronJobTimeline(c.schedule, c.zone, c.from + 1, modelEnd);
    const modelRuns = model.runs.slice(0, RUNS_PER_CASE);
    // (robfig was asked for RUNS_PER_CASE runs only: whether the Next after them returns is not known.)
    const stuckApart = answer.stuck === true && (model.stuckAfter === null || model.runs.length !== theirs.length);
    if (JSON.stringify(modelRuns) !== JSON.stringify(theirs) || stuckApart) {
      problems.push(
        `${where}: robfig/cron ${isoList(theirs)}${answer.stuck === true ? " then stuck" : ""} but the CronJob model ${isoList(modelRuns)}${model.stuckAfter !== null ? " then stuck" : ""}`,
      );
      continue;
    }
    if (answer.stuck === true) {
      // robfig/cron loops forever only when its next run is on or past Apia's skipped day: the
      // clocks went from 29 Dec 2011 23:59:59 (-10:00) to 31 Dec 00:00 (+14:00) at 10:00Z.
      const last = theirs.at(-1) ?? c.from;
      const jump = Date.UTC(2011, 11, 30, 10);
      const nextWallRun = wallClockRuns(c.schedule, c.zone, last + 1, jump + 400 * DAY)[0] ?? Infinity;
      if (kind === "skipped day" && last < jump && nextWallRun > jump - 2 * DAY) tally.misbehaviour["skipped day"]++;
      else problems.push(`${where}: robfig/cron is stuck`);
      tally.stuck++;
      continue;
    }
    if (theirs.length === 0) continue;
    const to = theirs[theirs.length - 1] as number;
    tally.cases++;
    tally.instants += theirs.length;
    const wall = wallClockRuns(c.schedule, c.zone, c.from + 1, to + 1);
    if (JSON.stringify(wall) !== JSON.stringify(theirs)) {
      // Only robfig/cron's listed ways, only on the local day of an offset change.
      const wrong = [...theirs.filter((t) => !wall.includes(t)), ...wall.filter((t) => !theirs.includes(t))];
      const nearChange = (t: number): boolean => changes(c.zone, t - 2 * DAY, t + 2 * DAY).length > 0;
      const missesOnly = theirs.every((t) => wall.includes(t));
      const explained = kind !== undefined && wrong.every(nearChange) && (kind !== "30-minute shift" || missesOnly);
      if (!explained) problems.push(`${where}: robfig/cron ${isoList(theirs)} but the wall-clock reading ${isoList(wall)}`);
      else tally.misbehaviour[kind as "30-minute shift" | "change at midnight"]++;
      continue;
    }
    const ours = fluxgateRuns(cron, c.zone, c.from, to);
    const intended = within(designFromModel(cron, c.zone, wall, c.from, to), c.from, to);
    if (JSON.stringify(ours) !== JSON.stringify(intended)) {
      problems.push(`${where}: fluxgate ${isoList(ours)} but CronJob with DESIGN §3's rule ${isoList(intended)} (CronJob ${isoList(theirs)})`);
      continue;
    }
    if (JSON.stringify(ours) === JSON.stringify(theirs)) tally.identical++;
    tally.gapRuns += ours.filter((t) => !theirs.includes(t)).length;
    tally.repeatedRuns += theirs.filter((t) => !ours.includes(t)).length;
  }
  assert.deepEqual(problems, [], `${problems.length} unexplained:\n${problems.slice(0, 15).join("\n")}`);
  // The intended differences are exercised, not merely allowed.
  assert.ok(tally.gapRuns > 0 && tally.repeatedRuns > 0, JSON.stringify(tally));
  assert.ok(tally.misbehaviour["30-minute shift"] > 0 && tally.misbehaviour["change at midnight"] > 0, JSON.stringify(tally));
  assert.ok(tally.identical > 3000, JSON.stringify(tally));
  const none = answers.filter((a) => a.stuck !== true && (a.times ?? []).length === 0).length;
  process.stdout.write(
    `# next runs: ${all.length} cases (${tally.stuck} where robfig/cron is stuck, ${none} where it finds no run), ${JSON.stringify(tally)}\n`,
  );
});

test("robfig/cron's misbehaviour, exactly: Lord Howe's 30-minute fall-back loses half an hour of runs; Tehran's midnight change runs on a day the schedule excludes", async () => {
  const [howe, tehran] = await oracle.askAll([
    { op: "next", schedule: "* 3 1-15 * *", timeZone: "Australia/Lord_Howe", from: Date.parse("2008-04-05T10:00:00Z"), count: 1 },
    { op: "next", schedule: "0-26 8 */2 * *", timeZone: "Asia/Tehran", from: Date.parse("2010-03-21T16:30:00Z"), count: 2 },
  ]);
  // 03:00 on 6 April 2008 (+10:30, after the clocks went back from 02:00 to 01:30) is 16:30Z.
  assert.deepEqual(howe?.times, [Date.parse("2008-04-05T17:00:00Z")]);
  assert.deepEqual(fluxgateRuns(parseCron("* 3 1-15 * *"), "Australia/Lord_Howe", Date.parse("2008-04-05T10:00:00Z"), Date.parse("2008-04-05T16:31:00Z")), [
    Date.parse("2008-04-05T16:30:00Z"),
    Date.parse("2008-04-05T16:31:00Z"),
  ]);
  // 22 March is even, and */2 is the odd days; robfig/cron runs at 08:00 on it anyway, and so does migrate's model of the CronJob.
  assert.deepEqual(tehran?.times, [Date.parse("2010-03-22T03:30:00Z"), Date.parse("2010-03-23T03:30:00Z")]);
  assert.deepEqual(wallClockRuns("0-26 8 */2 * *", "Asia/Tehran", Date.parse("2010-03-21T16:30:00Z"), Date.parse("2010-03-23T03:31:00Z")), [
    Date.parse("2010-03-23T03:30:00Z"),
  ]);
  assert.deepEqual(cronJobRuns("0-26 8 */2 * *", "Asia/Tehran", Date.parse("2010-03-21T16:30:00Z") + 1, Date.parse("2010-03-23T03:31:00Z")), tehran?.times);
  assert.deepEqual(cronJobRuns("* 3 1-15 * *", "Australia/Lord_Howe", Date.parse("2008-04-05T10:00:00Z") + 1, Date.parse("2008-04-05T17:00:01Z")), howe?.times);
});

test("Kubernetes' time-zone rule: a CronJob refuses what fluxgate refuses, and the zones fluxgate reads are ones it accepts", async () => {
  const zones = ["Europe/Berlin", "europe/berlin", "UTC", "Etc/UTC", "+01:00", "Mars/Olympus", "America/Argentina/Buenos_Aires", ...ZONES];
  const answers = await oracle.askAll(zones.map((timeZone): OracleRequest => ({ op: "validate", schedule: "0 8 * * *", timeZone })));
  zones.forEach((zone, i) => {
    let ours = true;
    try {
      zoneRules(zone);
    } catch {
      ours = false;
    }
    assert.equal(ours, (answers[i] as { ok: boolean }).ok, zone);
  });
});
