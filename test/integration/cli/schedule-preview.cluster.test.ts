// `fluxgate schedule preview WINDOW`: a window read from the cluster, previewed as a file would be; invalid and unknown windows refused.

import assert from "node:assert/strict";
import { test } from "node:test";
import { fluxgate, sharedFleet } from "./helpers.ts";

const fleet = sharedFleet();

test("a window in the cluster, as JSON and as the table", async () => {
  const { kubeconfig } = await fleet();
  const range = ["--from", "2026-12-21T00:00:00Z", "--to", "2026-12-28T00:00:00Z"];
  const json = await fluxgate("schedule", "preview", "weekday-changes", "--kubeconfig", kubeconfig, "-n", "flux-system", ...range, "-o", "json");
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout), { timeZone: "Europe/Berlin", open: [{ start: "2026-12-21T07:00:00Z", end: "2026-12-24T16:00:00Z" }] });
  const table = await fluxgate("schedule", "preview", "nightly", "--kubeconfig", kubeconfig, "-n", "edge", ...range);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /^Window nightly in America\/New_York\n/);
  assert.match(table.stdout, /^Sun 2026-12-20 22:00 EST\s+Mon 2026-12-21 00:00 EST\s+2026-12-21 03:00Z\s+2026-12-21 05:00Z\s+2h$/m);
});

test("an invalid window, an unknown one, or two windows at once are refused (exit 2)", async () => {
  const { kubeconfig } = await fleet();
  const invalid = await fluxgate("schedule", "preview", "legacy", "--kubeconfig", kubeconfig, "-n", "edge");
  assert.equal(invalid.code, 2);
  assert.match(invalid.stderr, /^error: window legacy in edge is invalid:\nspec\.schedules\[0\]\.start: cron "0 0 30 2 \*": names a date that never exists/);
  const unknown = await fluxgate("schedule", "preview", "weekday", "--kubeconfig", kubeconfig, "-n", "flux-system");
  assert.equal(unknown.code, 2);
  assert.equal(
    unknown.stderr,
    'error: window "weekday" not found in namespace flux-system\nWindows in flux-system: holiday-freeze, live-config, weekday-changes.\n',
  );
  const both = await fluxgate("schedule", "preview", "weekday-changes", "--start", "0 8 * * *", "--duration", "1h", "--kubeconfig", kubeconfig);
  assert.equal(both.code, 2);
  assert.equal(both.stderr, "error: give one window: WINDOW (from the cluster), --file, --start or --recurrence\n");
});
