// The decision at an instant: state, the rule behind it, since and until; transitions; override precedence.

import assert from "node:assert/strict";
import { test } from "node:test";
import { compileWindow, Evaluator, type OverrideInput, type WindowTiming } from "../../../src/schedule/index.ts";
import { at, iso } from "./helpers.ts";

const weekday: WindowTiming = {
  timeZone: "Europe/Berlin",
  schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }],
  freezes: [
    { start: "0 0 * * FRI", duration: "24h", reason: "No deploys on Fridays" },
    { from: "2026-12-20T00:00", to: "2027-01-05T00:00", reason: "Holiday freeze" },
  ],
};

const decide = (timing: WindowTiming, t: string, overrides: OverrideInput[] = []) => {
  const d = new Evaluator([compileWindow("weekday-changes", timing)], overrides).stateAt(at(t));
  return { state: d.state, overridden: d.overridden, kind: d.cause?.kind ?? null, reason: d.cause?.reason ?? null, since: iso(d.since), until: iso(d.until) };
};

test("open inside an allow interval, with its bounds", () => {
  assert.deepEqual(decide(weekday, "2026-11-24T10:00:00Z"), {
    state: "open",
    overridden: false,
    kind: "allow",
    reason: null,
    since: "2026-11-23T07:00:00Z", // Mon 08:00 CET
    until: "2026-11-26T16:00:00Z", // Thu 17:00 CET
  });
});

test("closed between intervals: since the last close, until the next open", () => {
  assert.deepEqual(decide(weekday, "2026-11-22T10:00:00Z"), {
    state: "closed",
    overridden: false,
    kind: null,
    reason: null,
    since: "2026-11-20T23:00:00Z", // the Friday freeze ended Sat 00:00 CET
    until: "2026-11-23T07:00:00Z",
  });
});

test("frozen by a recurring freeze, with its reason", () => {
  assert.deepEqual(decide(weekday, "2026-11-27T12:00:00Z"), {
    state: "frozen",
    overridden: false,
    kind: "freeze",
    reason: "No deploys on Fridays",
    since: "2026-11-26T23:00:00Z",
    until: "2026-11-27T23:00:00Z",
  });
});

test("a freeze beats an allow interval that is active at the same time", () => {
  assert.deepEqual(decide(weekday, "2026-12-21T10:00:00Z"), {
    state: "frozen",
    overridden: false,
    kind: "freeze",
    reason: "Holiday freeze",
    since: "2026-12-19T23:00:00Z",
    until: "2027-01-04T23:00:00Z", // and then the Monday window is open
  });
  assert.equal(decide(weekday, "2027-01-04T23:00:00Z").state, "open");
});

test("instants at the edges: intervals are half-open", () => {
  assert.equal(decide(weekday, "2026-11-23T06:59:59Z").state, "closed");
  assert.equal(decide(weekday, "2026-11-23T07:00:00Z").state, "open");
  assert.equal(decide(weekday, "2026-11-26T15:59:59Z").state, "open");
  assert.equal(decide(weekday, "2026-11-26T16:00:00Z").state, "closed");
});

test("the next transitions strictly increase and alternate", () => {
  const ev = new Evaluator([compileWindow("weekday-changes", weekday)]);
  const got = ev.transitions(at("2026-12-14T00:00:00Z"), 6).map((t) => `${iso(t.at)} ${t.state}`);
  assert.deepEqual(got, [
    "2026-12-14T07:00:00Z open",
    "2026-12-17T16:00:00Z closed",
    "2026-12-17T23:00:00Z frozen", // Friday
    "2026-12-18T23:00:00Z closed",
    "2026-12-19T23:00:00Z frozen", // holiday freeze
    "2027-01-04T23:00:00Z open",
  ]);
});

const override = (action: "Open" | "Freeze", start: string, end: string): OverrideInput => ({
  name: `${action.toLowerCase()}-now`,
  window: "weekday-changes",
  action,
  start: at(start),
  end: at(end),
  reason: `${action} for the incident`,
});

test("precedence: Freeze override > Open override > scheduled freeze > scheduled allow > closed", () => {
  const openOv = override("Open", "2026-11-27T10:00:00Z", "2026-11-27T12:00:00Z");
  const freezeOv = override("Freeze", "2026-11-27T11:00:00Z", "2026-11-27T11:30:00Z");
  // Friday: frozen by schedule, but the Open override wins...
  assert.deepEqual(decide(weekday, "2026-11-27T10:30:00Z", [openOv, freezeOv]), {
    state: "open",
    overridden: true,
    kind: "override-open",
    reason: "Open for the incident",
    since: "2026-11-27T10:00:00Z",
    until: "2026-11-27T11:00:00Z",
  });
  // ...and the Freeze override beats the Open override.
  assert.deepEqual(decide(weekday, "2026-11-27T11:15:00Z", [openOv, freezeOv]), {
    state: "frozen",
    overridden: true,
    kind: "override-freeze",
    reason: "Freeze for the incident",
    since: "2026-11-27T11:00:00Z",
    until: "2026-11-27T11:30:00Z",
  });
  // When the overrides end, the schedule decides again, to the second.
  assert.equal(decide(weekday, "2026-11-27T11:59:59Z", [openOv, freezeOv]).kind, "override-open");
  assert.deepEqual(decide(weekday, "2026-11-27T12:00:00Z", [openOv, freezeOv]).kind, "freeze");
  // A Freeze override stops an open window.
  assert.deepEqual(decide(weekday, "2026-11-24T10:00:00Z", [override("Freeze", "2026-11-24T09:00:00Z", "2026-11-24T18:00:00Z")]).state, "frozen");
});

test("windows selecting one target combine: any allow opens, any freeze wins", () => {
  const nights = compileWindow("nights", { schedules: [{ start: "0 22 * * *", duration: "2h" }] });
  const holiday = compileWindow("holiday-freeze", {
    timeZone: "Europe/Berlin",
    freezes: [{ from: "2026-12-20T00:00", to: "2027-01-05T00:00", reason: "Holiday freeze" }],
  });
  const ev = new Evaluator([nights, holiday]);
  assert.equal(ev.stateAt(at("2026-12-18T22:30:00Z")).state, "open");
  const frozen = ev.stateAt(at("2026-12-22T22:30:00Z"));
  assert.equal(frozen.state, "frozen");
  assert.equal(frozen.cause?.window, "holiday-freeze");
  assert.equal(ev.stateAt(at("2026-12-22T21:00:00Z")).cause?.window, "holiday-freeze");
});

test("a window that is always open reports no change within the horizon", () => {
  const ev = new Evaluator([compileWindow("always", { schedules: [{ start: "0 * * * *", duration: "2h" }] })]);
  const d = ev.stateAt(at("2026-06-01T00:30:00Z"));
  assert.equal(d.state, "open");
  assert.equal(d.until, null);
  assert.deepEqual(ev.transitions(at("2026-06-01T00:30:00Z"), 3), []);
});

test("segments by rule: a merged run of touching schedules is cut where the deciding rule changes; a rule's own touching occurrences stay one segment", () => {
  const timing: WindowTiming = {
    timeZone: "UTC",
    // Overlapping: the first listed wins where both are active, so the second decides only from 10:00.
    schedules: [
      { start: "0 8 * * MON", duration: "3h" },
      { start: "0 10 * * MON", duration: "2h" },
      { start: "0 * * * SAT", duration: "1h" },
    ],
  };
  const e = new Evaluator([compileWindow("w", timing)]);
  const from = at("2026-11-23T00:00:00Z");
  const to = at("2026-11-30T00:00:00Z");
  const open = (options?: { byRule: boolean }) =>
    e
      .segments(from, to, options)
      .filter((s) => s.state === "open")
      .map((s) => [iso(s.start), iso(s.end), s.cause?.index]);
  assert.deepEqual(open(), [
    ["2026-11-23T08:00:00Z", "2026-11-23T12:00:00Z", 0],
    ["2026-11-28T00:00:00Z", "2026-11-29T00:00:00Z", 2],
  ]);
  assert.deepEqual(open({ byRule: true }), [
    ["2026-11-23T08:00:00Z", "2026-11-23T11:00:00Z", 0],
    ["2026-11-23T11:00:00Z", "2026-11-23T12:00:00Z", 1],
    ["2026-11-28T00:00:00Z", "2026-11-29T00:00:00Z", 2],
  ]);
  // Each segment by rule names the rule that decides every instant of it.
  for (const s of e.segments(from, to, { byRule: true })) {
    for (const t of [s.start, Math.floor((s.start + s.end) / 2), s.end - 1]) assert.deepEqual(e.stateAt(t).cause, s.cause, iso(t) ?? "");
  }
});

test("segmentsByRule cuts each range as segments by rule does; eachSegment yields, slice after slice, what segments returns", () => {
  const timing: WindowTiming = {
    timeZone: "Europe/Berlin",
    schedules: [{ start: "*/5 * * * *", duration: "3m" }],
    // Touching and overlapping freezes, and holidays named day by day: frozen stretches that by rule are cut in several.
    freezes: [
      { start: "0 * * * *", duration: "10m", reason: "hourly" },
      { start: "5 * * * *", duration: "20m", reason: "overlapping" },
      { start: "0 0 * * SAT", duration: "24h", reason: "saturday" },
      { holidays: { country: "DE", subdivision: "BY" } },
    ],
  };
  const e = new Evaluator(
    [compileWindow("w", timing)],
    [{ name: "hold", window: "w", action: "Freeze", start: at("2026-05-14T10:00:00Z"), end: at("2026-05-15T10:00:00Z"), reason: "release" }],
  );
  const from = at("2026-05-01T00:00:00Z");
  const to = at("2026-06-01T00:00:00Z");
  const segments = e.segments(from, to);
  const frozen = segments.filter((s) => s.state === "frozen");
  const byRule = e.segmentsByRule(frozen);
  assert.deepEqual(
    byRule,
    frozen.flatMap((s) => e.segments(s.start, s.end, { byRule: true })),
  );
  assert.ok(byRule.length > frozen.length, `some stretches are cut: ${byRule.length} segments of ${frozen.length} stretches`);
  assert.ok(segments.length > 2 * 1024, `more than two slices: ${segments.length}`);
  assert.deepEqual([...e.eachSegment(from, to)], segments);
  assert.deepEqual([...e.eachSegment(from, to, { byRule: true })], e.segments(from, to, { byRule: true }));
});
