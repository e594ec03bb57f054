// The proof's model of CronJobs: runs at matching instants (none in a gap, two in a repeated hour), open from resume to suspend.

import assert from "node:assert/strict";
import { test } from "node:test";
import { compileWindow } from "../../../src/schedule/index.ts";
import { cronJobRuns, legacyOpenIntervals, prove } from "../../../src/gitops/proof.ts";

const iso = (ts: number[]): string[] => ts.map((t) => new Date(t).toISOString());
const BERLIN = "Europe/Berlin";

test("a CronJob at 02:30 in Berlin skips the spring-forward day and runs twice on the fall-back day", () => {
  assert.deepEqual(iso(cronJobRuns("30 2 * * *", BERLIN, Date.UTC(2026, 2, 28), Date.UTC(2026, 2, 31))), [
    "2026-03-28T01:30:00.000Z",
    "2026-03-30T00:30:00.000Z",
  ]);
  assert.deepEqual(iso(cronJobRuns("30 2 * * *", BERLIN, Date.UTC(2026, 9, 24), Date.UTC(2026, 9, 27))), [
    "2026-10-24T00:30:00.000Z",
    "2026-10-25T00:30:00.000Z",
    "2026-10-25T01:30:00.000Z",
    "2026-10-26T01:30:00.000Z",
  ]);
});

test("the state at the start comes from the last run before it", () => {
  const jobs = [
    { name: "o", schedule: "0 8 * * MON", zone: "UTC", action: "open" as const },
    { name: "c", schedule: "0 17 * * THU", zone: "UTC", action: "close" as const },
  ];
  // Tuesday: open since Monday.
  const from = Date.UTC(2026, 10, 24);
  assert.deepEqual(
    legacyOpenIntervals(jobs, from, from + 7 * 86_400_000).map((i) => [new Date(i.start).toISOString(), new Date(i.end).toISOString()]),
    [
      ["2026-11-24T00:00:00.000Z", "2026-11-26T17:00:00.000Z"],
      ["2026-11-30T08:00:00.000Z", "2026-12-01T00:00:00.000Z"],
    ],
  );
});

test("equivalent over a year away from DST; a suspend in the gap is a difference of a week", () => {
  const from = Date.UTC(2026, 0, 1);
  const to = from + 366 * 86_400_000;
  const weekly = prove(
    [
      { name: "o", schedule: "0 8 * * MON", zone: BERLIN, action: "open" },
      { name: "c", schedule: "0 17 * * THU", zone: BERLIN, action: "close" },
    ],
    compileWindow("w", { timeZone: BERLIN, schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }] }),
    from,
    to,
  );
  assert.equal(weekly.equivalent, true);
  assert.equal(weekly.window.length, 53);

  const gap = prove(
    [
      { name: "o", schedule: "0 1 * * SUN", zone: BERLIN, action: "open" },
      { name: "c", schedule: "30 2 * * SUN", zone: BERLIN, action: "close" },
    ],
    compileWindow("w", { timeZone: BERLIN, schedules: [{ start: "0 1 * * SUN", end: "30 2 * * SUN" }] }),
    from,
    to,
  );
  assert.equal(gap.equivalent, false);
  assert.deepEqual(
    gap.differences.map((d) => [new Date(d.start).toISOString(), new Date(d.end).toISOString(), d.legacy]),
    [["2026-03-29T01:00:00.000Z", "2026-04-04T23:00:00.000Z", "open"]],
  );
});

test("the CronJob model reads */2 in a day field as CronJob does: restricted, so odd days OR Mondays; the proof compares like with like", () => {
  const from = Date.UTC(2026, 5, 1);
  const to = Date.UTC(2026, 5, 10);
  assert.deepEqual(
    iso(cronJobRuns("0 0 */2 * MON", "UTC", from, to)),
    [1, 3, 5, 7, 8, 9].map((d) => `2026-06-${String(d).padStart(2, "0")}T00:00:00.000Z`),
  );
  const jobs = [
    { name: "o", schedule: "0 0 */2 * MON", zone: "UTC", action: "open" as const },
    { name: "c", schedule: "0 1 */2 * MON", zone: "UTC", action: "close" as const },
  ];
  const same = prove(jobs, compileWindow("w", { schedules: [{ start: "0 0 */2 * MON", duration: "1h" }] }), from, to);
  assert.equal(same.equivalent, true);
  assert.equal(same.legacy.length, 6);
  // A window that opens on Mondays alone is not certified.
  const fewer = prove(jobs, compileWindow("w", { schedules: [{ start: "0 0 * * MON", duration: "1h" }] }), from, to);
  assert.equal(fewer.equivalent, false);
  assert.deepEqual(
    fewer.differences.map((d) => new Date(d.start).getUTCDate()),
    [3, 5, 7, 9],
  );
});
