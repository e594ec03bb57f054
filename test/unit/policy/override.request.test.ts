// The rules of an override a request asks for, one place for every surface: its end (until or duration, at most 7 days ahead) and whether it is over.

import assert from "node:assert/strict";
import { test } from "node:test";
import { InputError } from "../../../src/errors.ts";
import { overrideOver, overrideStage, requestedOverrideEnd } from "../../../src/policy/index.ts";

const NOW = Date.parse("2026-11-23T10:00:00.500Z");

test("requestedOverrideEnd: a duration counts from now to the second, an until is taken as it is", () => {
  assert.equal(requestedOverrideEnd({ duration: "4h" }, NOW), Date.parse("2026-11-23T14:00:00Z"));
  assert.equal(requestedOverrideEnd({ until: "2026-11-24T00:00:00Z" }, NOW), Date.parse("2026-11-24T00:00:00Z"));
  assert.equal(requestedOverrideEnd({ duration: "168h" }, NOW), Date.parse("2026-11-30T10:00:00Z"));
});

test("requestedOverrideEnd refuses at the field that gave the end", () => {
  const cases: Array<[{ until?: string; duration?: string }, string, RegExp]> = [
    [{ duration: "200h" }, "duration", /^duration: 200h is more than 7 days/],
    [{ duration: "soon" }, "duration", /^duration: /],
    [{ duration: "0s" }, "duration", /^duration: /],
    [{ until: "2026-12-24T00:00:00Z" }, "until", /^until: 2026-12-24T00:00:00Z is more than 7 days ahead/],
    [{ until: "2026-11-22T00:00:00Z" }, "until", /must be in the future/],
    [{ until: "tomorrow" }, "until", /^until tomorrow: give an RFC 3339 time/],
    [{}, "until", /give exactly one of until/],
  ];
  for (const [request, field, message] of cases) {
    assert.throws(
      () => requestedOverrideEnd(request, NOW),
      (e: unknown) => e instanceof InputError && e.problems.length === 1 && e.problems[0]?.path === field && message.test(e.message),
      JSON.stringify(request),
    );
  }
});

test("overrideOver is the stages after active: expired and cancelled, not pending or active", () => {
  const timing = { start: 1000, end: 2000, until: 3000, cancelled: { at: 2000, by: "alice" } };
  for (const now of [500, 1500, 2500, 3500])
    assert.equal(overrideOver(timing, now), ["expired", "cancelled"].includes(overrideStage(timing, now)), String(now));
  assert.equal(overrideOver(timing, 500), false);
  assert.equal(overrideOver(timing, 1500), false);
  assert.equal(overrideOver(timing, 2500), true);
});

test("every surface that takes an override's end keeps the one rule (overrideEndProblem): 7 days from the request's second, not a moment more", async () => {
  const { openOrFreeze } = await import("../../../src/cli/open.ts");
  const { fleetFreeze } = await import("../../../src/cli/fleet-freeze.ts");
  const { planFleetOverride } = await import("../../../src/gitops/fleet/overrides.ts");
  const { overrideEndProblem, OVERRIDE_LIMIT } = await import("../../../src/policy/index.ts");
  const latest = Date.parse("2026-11-30T10:00:00Z");
  assert.equal(overrideEndProblem(latest, NOW), null);
  assert.deepEqual(overrideEndProblem(latest + 1000, NOW), { problem: "too long", latest });
  assert.equal(overrideEndProblem(NOW, NOW)?.problem, "not in the future");
  // The Config Service's requests.
  assert.equal(requestedOverrideEnd({ duration: "168h" }, NOW), latest);
  assert.throws(() => requestedOverrideEnd({ duration: "168h0m1s" }, NOW), new RegExp(OVERRIDE_LIMIT.replace(/[()]/g, "\\$&")));
  // fluxgate open and freeze: the flags are checked before any cluster is asked.
  const open = { kubeconfig: "/nonexistent", action: "Open" as const, window: "w", reason: "r", wait: false, output: "text" as const, color: false, now: NOW };
  await assert.rejects(openOrFreeze({ ...open, for: "168h0m1s" }), /--for 168h0m1s: an override lasts at most 7 days \(168h\)/);
  await assert.rejects(
    openOrFreeze({ ...open, for: "168h" }),
    (e: Error) => !/at most 7 days/.test(e.message),
    "168h passes the rule (and fails later, on the missing kubeconfig)",
  );
  // fluxgate fleet freeze: before any cluster is rendered.
  const freeze = { repo: "/nonexistent", selector: "ring=canary", reason: "r", windows: [], dryRun: true, env: {}, now: NOW };
  await assert.rejects(fleetFreeze({ ...freeze, for: "168h0m1s" }), /--for 168h0m1s: an override lasts at most 7 days \(168h\)/);
  await assert.rejects(fleetFreeze({ ...freeze, for: "168h" }), (e: Error) => !/at most 7 days/.test(e.message));
  // Fleet overrides as planned from Git (the Config Service's fleet route and the CLI share this planner).
  const plan = (until: number) =>
    planFleetOverride(
      [],
      () => {
        throw new Error("unread");
      },
      { action: "Freeze", reason: "r", until, now: NOW, windows: undefined, name: "f" } as never,
    );
  assert.throws(() => plan(latest + 1000), /an override lasts at most 7 days \(168h\)/);
  assert.doesNotThrow(() => plan(latest));
});
