// migrate's model of a CronJob, for the schedules of the fixture repositories and around DST changes, against robfig/cron (the CronJob controller's library); and jobs due at one instant.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { cronJobRuns, firstTie } from "../../../src/gitops/proof.ts";
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
