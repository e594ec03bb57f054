// Holiday freezes in the evaluator: whole local days of the window's zone, each named by its holiday; bad codes refused with the field and the closest codes.

import assert from "node:assert/strict";
import { test } from "node:test";
import { compileWindow, Evaluator, ScheduleError, type WindowTiming } from "../../../src/schedule/index.ts";
import { at, iso } from "./helpers.ts";

/** The frozen segments (by rule) of a timing within [from, to): "start/end reason". */
function frozen(timing: WindowTiming, from: string, to: string, cluster?: { name: string; labels: Record<string, string> }): string[] {
  const ev = new Evaluator([compileWindow("w", timing, "spec", { cluster })]);
  return ev
    .segments(at(from), at(to), { byRule: true })
    .filter((s) => s.state === "frozen")
    .map((s) => `${iso(s.start)}/${iso(s.end)} ${s.cause?.reason ?? ""}`);
}

function refusal(timing: WindowTiming, cluster?: { name: string; labels: Record<string, string> }): { path: string; message: string }[] {
  try {
    compileWindow("w", timing, "spec", { cluster });
  } catch (e) {
    assert.ok(e instanceof ScheduleError);
    return e.problems.map((p) => ({ path: p.path, message: p.message }));
  }
  assert.fail("compiled");
}

test("Bavaria's public holidays of 2026 are whole Berlin days, each named", () => {
  assert.deepEqual(
    frozen({ timeZone: "Europe/Berlin", freezes: [{ holidays: { country: "DE", subdivision: "BY" } }] }, "2026-04-30T00:00:00Z", "2026-07-01T00:00:00Z"),
    [
      "2026-04-30T22:00:00Z/2026-05-01T22:00:00Z Maifeiertag",
      "2026-05-13T22:00:00Z/2026-05-14T22:00:00Z Christi Himmelfahrt",
      "2026-05-24T22:00:00Z/2026-05-25T22:00:00Z Pfingstmontag",
      "2026-06-03T22:00:00Z/2026-06-04T22:00:00Z Fronleichnam",
    ],
  );
  // Without the subdivision, Fronleichnam is not a holiday in all of Germany.
  const germany = frozen({ timeZone: "Europe/Berlin", freezes: [{ holidays: { country: "DE" } }] }, "2026-06-01T00:00:00Z", "2026-07-01T00:00:00Z");
  assert.deepEqual(germany, []);
});

test("consecutive holidays touch and merge into one frozen stretch, each day keeping its name by rule", () => {
  const timing: WindowTiming = { timeZone: "Europe/Berlin", freezes: [{ holidays: { country: "DE" }, reason: "Public holiday" }] };
  assert.deepEqual(frozen(timing, "2026-12-20T00:00:00Z", "2027-01-03T00:00:00Z"), [
    "2026-12-24T23:00:00Z/2026-12-25T23:00:00Z Public holiday: 1. Weihnachtstag",
    "2026-12-25T23:00:00Z/2026-12-26T23:00:00Z Public holiday: 2. Weihnachtstag",
    "2026-12-31T23:00:00Z/2027-01-01T23:00:00Z Public holiday: Neujahr",
  ]);
  const d = new Evaluator([compileWindow("w", timing)]).stateAt(at("2026-12-25T12:00:00Z"));
  assert.equal(d.state, "frozen");
  assert.equal(iso(d.since), "2026-12-24T23:00:00Z");
  assert.equal(iso(d.until), "2026-12-26T23:00:00Z");
  assert.equal(d.cause?.reason, "Public holiday: 1. Weihnachtstag");
  assert.equal(d.cause?.label, "holidays DE");
});

test("a holiday on a DST day lasts that day's 23 or 25 hours; the day is the window's, not the country's", () => {
  // Brandenburg: Easter Sunday 2027 is 28 March, the day Berlin's clocks go forward (23 hours), and
  // Reformation Day 2027 is 31 October, the day they go back (25 hours).
  const bb: WindowTiming = { timeZone: "Europe/Berlin", freezes: [{ holidays: { country: "DE", subdivision: "BB" } }] };
  assert.deepEqual(frozen(bb, "2027-03-27T00:00:00Z", "2027-03-28T22:00:00Z"), ["2027-03-27T23:00:00Z/2027-03-28T22:00:00Z Ostersonntag"]);
  assert.deepEqual(frozen(bb, "2027-10-30T00:00:00Z", "2027-11-01T00:00:00Z"), ["2027-10-30T22:00:00Z/2027-10-31T23:00:00Z Reformationstag"]);
  // The US's Christmas frozen in Tokyo is Tokyo's 25 December.
  assert.deepEqual(frozen({ timeZone: "Asia/Tokyo", freezes: [{ holidays: { country: "US" } }] }, "2026-12-20T00:00:00Z", "2026-12-31T00:00:00Z"), [
    "2026-12-24T15:00:00Z/2026-12-25T15:00:00Z Christmas Day",
  ]);
});

test("a freeze's own reason goes before each holiday's name; types pick other kinds of holiday", () => {
  const observances = frozen({ freezes: [{ holidays: { country: "US", types: ["observance"] } }] }, "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z");
  assert.deepEqual(observances, ["2026-02-14T00:00:00Z/2026-02-15T00:00:00Z Valentine's Day"]);
});

test("an unknown country or subdivision is refused at its field, with the closest codes", () => {
  assert.deepEqual(refusal({ freezes: [{ holidays: { country: "de" } }] }), [
    {
      path: "spec.freezes[0].holidays.country",
      message:
        'unknown country "de": give an ISO 3166-1 alpha-2 code that date-holidays knows, such as "DE" or "US"; did you mean "DE" (Germany) or "AE" (United Arab Emirates) or "BE" (Belgium)?',
    },
  ]);
  assert.match(refusal({ freezes: [{ holidays: { country: "Germany" } }] })[0]?.message ?? "", /did you mean "DE" \(Germany\)\?$/);
  const sub = refusal({ freezes: [{ reason: "x", start: "0 0 * * *", duration: "1h" }, { holidays: { country: "DE", subdivision: "BYY" } }] });
  assert.equal(sub[0]?.path, "spec.freezes[1].holidays.subdivision");
  assert.match(sub[0]?.message ?? "", /^unknown subdivision "BYY" of DE: give one of BB, BE, BW, BY, .*; did you mean "BY" \(Bayern\)\?$/);
  assert.equal(refusal({ freezes: [{ holidays: { country: "DE", types: ["national"] } }] })[0]?.path, "spec.freezes[0].holidays.types[0]");
  assert.match(refusal({ freezes: [{ holidays: { country: "DE" }, start: "0 0 * * *", duration: "1h" }] })[0]?.message ?? "", /^mixes a holiday freeze/);
});

test("a fleet window takes the country and subdivision from the cluster's labels, and refuses a cluster without them", () => {
  const timing: WindowTiming = {
    timeZone: "Europe/Berlin",
    freezes: [{ holidays: { fromClusterLabels: { country: "country", subdivision: "subdivision" } } }],
  };
  const munich = { name: "edge-munich", labels: { country: "DE", subdivision: "BY" } };
  assert.deepEqual(frozen(timing, "2026-06-01T00:00:00Z", "2026-07-01T00:00:00Z", munich), ["2026-06-03T22:00:00Z/2026-06-04T22:00:00Z Fronleichnam"]);
  // An empty subdivision label: the whole country.
  assert.deepEqual(frozen(timing, "2026-06-01T00:00:00Z", "2026-07-01T00:00:00Z", { name: "edge-berlin", labels: { country: "DE", subdivision: "" } }), []);
  assert.deepEqual(refusal(timing, { name: "edge-paris", labels: { country: "FR" } }), [
    {
      path: "spec.freezes[0].holidays.fromClusterLabels.subdivision",
      message:
        'cluster edge-paris has no label "subdivision": give it one in fluxgate.yaml (its subdivision code) — a fleet window never takes "no holidays" for a cluster it cannot place',
    },
  ]);
  assert.deepEqual(
    refusal(timing, { name: "edge-x", labels: { country: "XX", subdivision: "" } })[0]?.path,
    "spec.freezes[0].holidays.fromClusterLabels.country",
  );
  assert.match(refusal(timing, { name: "edge-x", labels: { country: "XX", subdivision: "" } })[0]?.message ?? "", /\(label country of cluster edge-x\)/);
  assert.deepEqual(refusal(timing)[0]?.path, "spec.freezes[0].holidays.fromClusterLabels");
});
