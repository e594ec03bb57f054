// Fault: the wall clock jumps forward and back (an injected clock, nobody calls resync): decisions follow the new time.

import assert from "node:assert/strict";
import { test } from "node:test";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import {
  createKustomization,
  createWindow,
  getWindow,
  setup,
  startController,
  TestClock,
  waitForSuspend,
  type Setup,
  type WindowObject,
} from "../controller/helpers.ts";

const plane = sharedControlPlane();

/** The controller checks its clock against a monotonic one every second; a jump is acted on within this. */
const FOLLOW_MS = 3_000;

async function windowIn(s: Setup, state: string, field: "nextOpen" | "nextClose", value: string): Promise<WindowObject> {
  return await waitFor(
    `window ${state} with ${field} ${value}`,
    async () => {
      const w = await getWindow(s, "weekdays");
      return w.status?.state === state && w.status[field] === value ? w : undefined;
    },
    { timeoutMs: FOLLOW_MS, intervalMs: 50 },
  );
}

test("clock jumps forward past an open, back before it, and across a whole window: targets and status follow", async () => {
  const s = await setup(plane());
  for (const name of ["apps-rw", "infra-rw"]) await createKustomization(s, name, { labels: { "fluxgate.io/type": "window" } });
  await createWindow(s, "weekdays", {
    timeZone: "Europe/Berlin",
    schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }],
    targets: [{ kind: "Kustomization", labelSelector: { matchLabels: { "fluxgate.io/type": "window" } } }],
  });
  const clock = new TestClock();
  clock.set(Date.parse("2026-11-23T06:00:00Z")); // Monday 07:00 CET, an hour before the open
  const c = await startController(s, clock);
  const jumpsCounted = async (): Promise<number> =>
    Number(/fluxgate_clock_jumps_total (\d+)/.exec(await c.metrics.registry.getSingleMetricAsString("fluxgate_clock_jumps_total"))?.[1] ?? 0);
  let jumps = 0;
  // Each jump is counted by the clock check (every second) before the test jumps again: two jumps
  // within one check would add up to one, whatever re-planned the windows meanwhile.
  // undefined, not false, until it is counted: waitFor takes any other value as done.
  const counted = (n: number): Promise<unknown> =>
    waitFor(`clock jump ${n} counted`, async () => ((await jumpsCounted()) === n ? true : undefined), { timeoutMs: 5_000, intervalMs: 50 });
  const jump = async (to: string): Promise<void> => {
    if (jumps > 0) await counted(jumps);
    clock.set(Date.parse(to));
    jumps++;
  };
  const follow = async (suspend: boolean, state: string, field: "nextOpen" | "nextClose", value: string): Promise<number> => {
    const jumped = Date.now();
    for (const name of ["apps-rw", "infra-rw"]) await waitForSuspend(s, name, suspend, FOLLOW_MS);
    await windowIn(s, state, field, value);
    return Date.now() - jumped;
  };
  try {
    await follow(true, "Closed", "nextOpen", "2026-11-23T07:00:00Z");
    const measured: Record<string, number> = {};

    await jump("2026-11-23T09:00:00Z"); // forward two hours: Monday 10:00, open
    measured.forward = await follow(false, "Open", "nextClose", "2026-11-26T16:00:00Z");

    await jump("2026-11-23T06:30:00Z"); // back before the open: Monday 07:30
    measured.back = await follow(true, "Closed", "nextOpen", "2026-11-23T07:00:00Z");

    await jump("2026-11-28T12:00:00Z"); // forward across the whole window: Saturday
    measured.across = await follow(true, "Closed", "nextOpen", "2026-11-30T07:00:00Z");

    // Back to two seconds before the open: the timer at the new next transition fires on time.
    await jump("2026-11-23T06:59:58Z");
    await follow(true, "Closed", "nextOpen", "2026-11-23T07:00:00Z");
    const opened = await waitForSuspend(s, "apps-rw", false, 5_000);
    const late = opened + clock.offset - Date.parse("2026-11-23T07:00:00Z");
    assert.ok(late < 1_000, `opened ${late} ms after the open on the jumped-back clock`);
    assert.ok(late >= -100, `opened ${-late} ms before the open`);

    await counted(4);
    assert.equal(await jumpsCounted(), 4, "each jump is counted once");
    process.stdout.write(`# clock jumps followed in ${JSON.stringify(measured)} ms\n`);
  } finally {
    await c.stop();
  }
});
