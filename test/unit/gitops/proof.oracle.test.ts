// migrate's model of a CronJob, for the schedules of the fixture repositories, around DST changes and in the zones robfig/cron walks its own way, against
// robfig/cron (the CronJob controller's library); jobs due at one instant; a proof that stops where robfig's Next never returns.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { cronJobRuns, cronJobTimeline, firstTie, prove } from "../../../src/gitops/proof.ts";
import { compileWindow } from "../../../src/schedule/index.ts";
import { CronOracle, type OracleRequest } from "../../harness/cron-oracle.ts";

const DAY = 86_400_000;
const RUNS = 60;

let oracle: CronOracle;
before(async () => {
  oracle = await CronOracle.start();
});
after(async () => {
  await oracle.stop();
});

/** The CronJobs of test/fixtures/gitops (as their clusters render them), and jobs at DST-sensitive times. */
const JOBS: ReadonlyArray<{ schedule: string; zone: string }> = [
  { schedule: "0 20 * * FRI", zone: "Europe/Berlin" }, // suspended-cronjobs, production
  { schedule: "0 6 * * SAT", zone: "Europe/Berlin" },
  { schedule: "* * * * *", zone: "Europe/Berlin" }, // suspended-cronjobs, the base's placeholder
  { schedule: "0 22 * * TUE", zone: "America/New_York" }, // flux-create
  { schedule: "30 23 * * TUE", zone: "America/New_York" },
  { schedule: "0 9 * * SAT", zone: "UTC" }, // old-shapes
  { schedule: "0 13 * * SAT", zone: "UTC" },
  { schedule: "30 2 * * SUN", zone: "Europe/Berlin" }, // skipped in spring, twice in autumn
  { schedule: "30 1 * * *", zone: "America/New_York" },
];

/** Starts: now-ish, and just before the 2026 and 2027 DST changes in Europe and North America. */
const STARTS = [Date.UTC(2026, 10, 23), Date.UTC(2027, 2, 13), Date.UTC(2027, 2, 27), Date.UTC(2027, 9, 30), Date.UTC(2027, 10, 6)];

test("for every fixture schedule and start, the CronJob model runs exactly when robfig/cron does", async () => {
  const cases = JOBS.flatMap((j) => STARTS.map((from) => ({ ...j, from })));
  const answers = await oracle.askAll(cases.map((c): OracleRequest => ({ op: "next", schedule: c.schedule, timeZone: c.zone, from: c.from, count: RUNS })));
  let compared = 0;
  for (const [i, c] of cases.entries()) {
    const theirs = answers[i]?.times ?? [];
    assert.equal(theirs.length, RUNS, `${c.schedule} in ${c.zone}: the oracle answered ${JSON.stringify(answers[i])}`);
    const to = (theirs.at(-1) as number) + 1;
    assert.deepEqual(cronJobRuns(c.schedule, c.zone, c.from + 1, to), theirs, `${c.schedule} in ${c.zone} from ${new Date(c.from).toISOString()}`);
    compared += theirs.length;
  }
  // The DST cases are really exercised: 02:30 on the spring-forward Sunday never runs, and on the fall-back Sunday it runs twice.
  const spring = await oracle.ask({ op: "next", schedule: "30 2 * * SUN", timeZone: "Europe/Berlin", from: Date.UTC(2027, 2, 27), count: 1 });
  assert.deepEqual(spring.times, [Date.UTC(2027, 3, 4, 0, 30)]);
  const autumn = await oracle.ask({ op: "next", schedule: "30 2 * * SUN", timeZone: "Europe/Berlin", from: Date.UTC(2027, 9, 30), count: 2 });
  assert.deepEqual(autumn.times, [Date.UTC(2027, 9, 31, 0, 30), Date.UTC(2027, 9, 31, 1, 30)]);
  assert.equal(compared, JOBS.length * STARTS.length * RUNS);
});

test("a resume and a suspend due at one instant are found (robfig/cron runs both then), and none is found where they never meet", async () => {
  const from = Date.UTC(2026, 10, 23, 12, 0, 30);
  const every = [
    { name: "flux-system/window-open", schedule: "* * * * *", zone: "Europe/Berlin", action: "open" as const },
    { name: "flux-system/window-close", schedule: "* * * * *", zone: "Europe/Berlin", action: "close" as const },
  ];
  const tie = firstTie(every, from, from + 366 * DAY);
  const [open, close] = await oracle.askAll(every.map((j): OracleRequest => ({ op: "next", schedule: j.schedule, timeZone: j.zone, from, count: 1 })));
  assert.deepEqual(open?.times, close?.times);
  assert.deepEqual(tie, { at: open?.times?.[0], open: "flux-system/window-open", close: "flux-system/window-close" });

  const weekly = [
    { name: "o", schedule: "0 20 * * FRI", zone: "Europe/Berlin", action: "open" as const },
    { name: "c", schedule: "0 6 * * SAT", zone: "Europe/Berlin", action: "close" as const },
  ];
  assert.equal(firstTie(weekly, from, from + 366 * DAY), null);
  // Different zones can meet: 22:00 in New York is 03:00 in London, in winter.
  const zones = [
    { name: "o", schedule: "0 22 * * TUE", zone: "America/New_York", action: "open" as const },
    { name: "c", schedule: "0 3 * * WED", zone: "Europe/London", action: "close" as const },
  ];
  assert.deepEqual(firstTie(zones, from, from + 366 * DAY), { at: Date.UTC(2026, 10, 25, 3), open: "o", close: "c" });
});

/**
 * Zones whose changes of offset robfig/cron walks its own way, and a year with changes in each:
 * Lord Howe's clocks move by 30 minutes; Santiago's and Havana's change at midnight, as São Paulo's
 * did until 2019.
 */
const QUIRKY: ReadonlyArray<{ zone: string; year: number }> = [
  { zone: "Australia/Lord_Howe", year: 2026 },
  { zone: "America/Santiago", year: 2026 },
  { zone: "America/Havana", year: 2026 },
  { zone: "America/Sao_Paulo", year: 2018 },
];
const QUIRKY_SCHEDULES = [
  "0 8 */2 * MON-FRI",
  "0 0 * * *",
  "30 0 * * *",
  "59 23 * * *",
  "0 23 * * *",
  "0 1 * * *",
  "30 1 * * *",
  "45 1 * * *",
  "0 2 * * *",
  "30 2 * * *",
  "0 3 * * SUN",
  "0 0-3 * * *",
  "0 * * * *",
  "*/30 * * * *",
  "*/15 1-3 * * *",
  "* 0 * * *",
  "0 0 1 * *",
  "0 0 */2 * *",
  "15 0 * * SUN",
  "0 0 * * SAT",
  "0 22 * * FRI",
  "30 23 * * SAT",
  "0 12 * * MON-FRI",
  "@daily",
];

test("where robfig/cron walks DST changes its own way (Lord Howe, Santiago, Havana, São Paulo in 2018), the CronJob model runs exactly when it does, for a whole year", async () => {
  const cases = QUIRKY.flatMap((z) => QUIRKY_SCHEDULES.map((schedule) => ({ ...z, schedule, from: Date.UTC(z.year, 0, 1), to: Date.UTC(z.year + 1, 0, 1) })));
  const models = cases.map((c) => cronJobTimeline(c.schedule, c.zone, c.from + 1, c.to));
  // One run more than the model finds: robfig's must be past the year (or robfig finds none, or never returns).
  const answers = await oracle.askAll(
    cases.map((c, i): OracleRequest => ({ op: "next", schedule: c.schedule, timeZone: c.zone, from: c.from, count: (models[i]?.runs.length ?? 0) + 1 })),
  );
  const unexplained: string[] = [];
  let runs = 0;
  for (const [i, c] of cases.entries()) {
    const model = models[i] as { runs: number[]; stuckAfter: number | null };
    const answer = answers[i] as { times?: number[]; stuck?: boolean };
    const theirs = (answer.times ?? []).filter((t) => t < c.to);
    runs += theirs.length;
    const sameRuns = JSON.stringify(theirs) === JSON.stringify(model.runs);
    // A Next that never returns is explained only when the model says so at the same run.
    const sameEnd = answer.stuck === true ? model.stuckAfter !== null : model.stuckAfter === null;
    if (!sameRuns || !sameEnd) {
      const k = theirs.findIndex((t, j) => t !== model.runs[j]);
      unexplained.push(
        `${c.schedule} in ${c.zone} ${c.year}: robfig/cron ${theirs.length} runs${answer.stuck === true ? " then stuck" : ""}, the model ${model.runs.length}${model.stuckAfter !== null ? " then stuck" : ""}; first apart: ${k < 0 ? "at the end" : new Date(theirs[k] as number).toISOString()}`,
      );
    }
  }
  assert.deepEqual(unexplained, [], `${unexplained.length} of ${cases.length} cases differ:\n${unexplained.join("\n")}`);
  assert.equal(cases.length, 96);
  assert.ok(runs > 100_000, `${runs} runs compared`);
  // The case that showed it: Santiago's midnight changes give this CronJob 316 runs in 2026, not 315.
  const santiago = QUIRKY_SCHEDULES.indexOf("0 8 */2 * MON-FRI") + QUIRKY_SCHEDULES.length;
  assert.equal(cases[santiago]?.zone, "America/Santiago");
  assert.equal(models[santiago]?.runs.length, 316);
});

test("where robfig/cron's Next never returns (Apia's skipped day, 30 December 2011), the model says so and the proof claims nothing from then on", async () => {
  const jobs = [
    { name: "flux-system/friday-open", schedule: "0 8 * * FRI", zone: "Pacific/Apia", action: "open" as const },
    { name: "flux-system/friday-close", schedule: "0 17 * * FRI", zone: "Pacific/Apia", action: "close" as const },
  ];
  const from = Date.UTC(2011, 10, 1);
  const to = Date.UTC(2012, 1, 1);
  // robfig/cron finds Friday 23 December, then never returns.
  const [open] = await oracle.askAll([{ op: "next", schedule: "0 8 * * FRI", timeZone: "Pacific/Apia", from: Date.UTC(2011, 11, 20), count: 3 }]);
  assert.equal(open?.stuck, true);
  assert.deepEqual(open?.times, [Date.UTC(2011, 11, 23, 18)]);
  const timeline = cronJobTimeline("0 8 * * FRI", "Pacific/Apia", Date.UTC(2011, 11, 20) + 1, to);
  assert.deepEqual(timeline, { runs: [Date.UTC(2011, 11, 23, 18)], stuckAfter: Date.UTC(2011, 11, 23, 18) });

  const window = compileWindow("friday", { timeZone: "Pacific/Apia", schedules: [{ start: "0 8 * * FRI", end: "0 17 * * FRI" }] });
  const proof = prove(jobs, window, from, to);
  assert.equal(proof.equivalent, false);
  assert.deepEqual(proof.differences, [], "the same until robfig stops");
  assert.deepEqual(proof.unproven, [
    { from: Date.UTC(2011, 11, 23, 18), job: "flux-system/friday-open" },
    { from: Date.UTC(2011, 11, 24, 3), job: "flux-system/friday-close" },
  ]);
});
