// Changes of a zone's offset at the very first instant of a year (00:00:00Z on 1 January): the year's table holds them
// as it holds any other, so that the evaluator sees the clocks go back or forward there.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Occurrences, parseCron, zoneRules } from "../../../src/schedule/index.ts";
import { at, iso } from "./helpers.ts";

test("a change at 00:00:00Z on 1 January is a change: Inuvik's clocks went back eight hours there in 1953, Madrid's forward in 1901", () => {
  const inuvik = zoneRules("America/Inuvik");
  const change = at("1953-01-01T00:00:00Z");
  assert.deepEqual(inuvik.transitionsIn(change - 1, change), [change]);
  assert.deepEqual(inuvik.transitionsIn(at("1952-12-30T00:00:00Z"), at("1953-01-02T00:00:00Z")), [change]);
  assert.equal(inuvik.offsetAt(change - 1), 0);
  assert.equal(inuvik.offsetAt(change), -8 * 3_600_000);
  // Three hours after the change the clock shows 19:00 on the 31st, having shown 23:59:59 already: 20:00 comes next on the 1st.
  assert.equal(inuvik.maxWallUpTo(at("1953-01-01T03:00:00Z")), at("1952-12-31T23:59:59.999Z"));
  const daily = new Occurrences(parseCron("0 20 * * *"), inuvik);
  assert.equal(iso(daily.after(at("1952-12-31T12:00:00Z"))), "1952-12-31T20:00:00Z");
  assert.equal(iso(daily.after(at("1952-12-31T20:00:00Z"))), "1953-01-02T04:00:00Z");
  assert.equal(iso(daily.after(at("1953-01-01T03:00:00Z"))), "1953-01-02T04:00:00Z");
  assert.equal(iso(daily.atOrBefore(at("1953-01-01T03:00:00Z"))), "1952-12-31T20:00:00Z");

  const madrid = zoneRules("Europe/Madrid");
  const forward = at("1901-01-01T00:00:00Z");
  assert.deepEqual(madrid.transitionsIn(forward - 1, forward), [forward]);
  // 23:50 on 31 December 1900 was skipped (the clocks went from 23:45:15 to 00:00): it fires at the change.
  assert.equal(iso(new Occurrences(parseCron("50 23 * * *"), madrid).after(at("1900-12-31T12:00:00Z"))), "1901-01-01T00:00:00Z");
});
