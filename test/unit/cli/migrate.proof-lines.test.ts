// migrate's report of a proof that has to stop where robfig/cron's search for the next run never ends: NOT proven, from when, which CronJob.

import assert from "node:assert/strict";
import { test } from "node:test";
import { proofLines } from "../../../src/cli/migrate.ts";
import { prove } from "../../../src/gitops/proof.ts";
import { compileWindow } from "../../../src/schedule/index.ts";

test("a proof over Apia's skipped day (30 December 2011) says NOT proven from the instant robfig/cron stops, naming the CronJob", () => {
  const jobs = [
    { name: "flux-system/friday-open", schedule: "0 8 * * FRI", zone: "Pacific/Apia", action: "open" as const },
    { name: "flux-system/friday-close", schedule: "0 17 * * FRI", zone: "Pacific/Apia", action: "close" as const },
  ];
  const window = compileWindow("friday", { timeZone: "Pacific/Apia", schedules: [{ start: "0 8 * * FRI", end: "0 17 * * FRI" }] });
  const proof = prove(jobs, window, Date.UTC(2011, 10, 1), Date.UTC(2012, 1, 1));
  const lines = proofLines({ proof, zone: "Pacific/Apia" });
  assert.match(
    lines[0] ?? "",
    /^# Proof: NOT proven\. From 2011-11-01T00:00:00Z to 2012-02-01T00:00:00Z they do not differ until Fri 2011-12-23 08:00 \S+, and after that nobody can tell:$/,
  );
  assert.match(
    lines[1] ?? "",
    /^# {3}from Fri 2011-12-23 08:00 \S+ \(2011-12-23T18:00:00Z\): not proven: robfig\/cron, the CronJob controller's cron library, never finds the next run of CronJob flux-system\/friday-open /,
  );
  assert.match(lines[2] ?? "", /CronJob flux-system\/friday-close/);
  assert.equal(lines.length, 4);
});
