// The engine at the edges of the calendar: years 0-99 are those years (not 1900-1999), and instants near the end of Date's range give no occurrence rather than
// an error or an endless walk.

import assert from "node:assert/strict";
import { test } from "node:test";
import { nextWall, Occurrences, parseCron, parseLocalDateTime, prevWall, zoneRules } from "../../../src/schedule/index.ts";

test("a date-time in the years 0-99 is that year", () => {
  assert.equal(new Date(parseLocalDateTime("0050-03-01T00:00Z", zoneRules("UTC"))).toISOString(), "0050-03-01T00:00:00.000Z");
  assert.equal(new Date(parseLocalDateTime("0099-12-31T23:59", zoneRules("UTC"))).toISOString(), "0099-12-31T23:59:00.000Z");
  assert.throws(() => parseLocalDateTime("0099-02-29T00:00", zoneRules("UTC")), /has no day 29/, "99 is not a leap year; 1999 is not either, but 0096 is");
  assert.equal(new Date(parseLocalDateTime("0096-02-29T00:00", zoneRules("UTC"))).toISOString(), "0096-02-29T00:00:00.000Z");
});

test("the cron walk crosses from year 99 to year 100 and back", () => {
  const daily = parseCron("0 12 * * *");
  assert.equal(new Date(nextWall(daily, Date.parse("0099-12-31T13:00:00Z")) as number).toISOString(), "0100-01-01T12:00:00.000Z");
  assert.equal(new Date(prevWall(daily, Date.parse("0100-01-01T11:00:00Z")) as number).toISOString(), "0099-12-31T12:00:00.000Z");
  const berlin = new Occurrences(daily, zoneRules("Europe/Berlin"));
  const next = berlin.after(Date.parse("0050-06-01T00:00:00Z"));
  assert.ok(next !== null && next > Date.parse("0050-06-01T00:00:00Z") && next < Date.parse("0050-06-02T00:00:00Z"), `next ${String(next)}`);
});

test("near the end of Date's range there are no occurrences, and no error", () => {
  const every = parseCron("* * * * *");
  for (const zone of ["UTC", "Europe/Berlin", "GMT"]) {
    const occurrences = new Occurrences(every, zoneRules(zone));
    for (const t of [8.64e15, -8.64e15, 8.64e15 - 1, -8.64e15 + 1]) {
      assert.equal(occurrences.after(t), null, `${zone} after ${t}`);
      assert.equal(occurrences.atOrBefore(t), null, `${zone} atOrBefore ${t}`);
    }
  }
  assert.equal(nextWall(every, Number.NaN), null);
  assert.equal(prevWall(every, Number.POSITIVE_INFINITY), null);
});
