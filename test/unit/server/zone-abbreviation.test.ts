// The dashboard's zone labels: the abbreviation people use where the zone has one (CET, EST, JST), in standard and daylight time, else the GMT offset.

import assert from "node:assert/strict";
import { test } from "node:test";
import { findAbbreviation, zoneAbbreviation } from "../../../src/server/dashboard/client/time.ts";

const WINTER = Date.parse("2026-01-15T12:00:00Z");
const SUMMER = Date.parse("2026-07-15T12:00:00Z");

test("zones read as their abbreviations, daylight time too", () => {
  const cases: Array<[string, string, string]> = [
    ["Europe/Berlin", "CET", "CEST"],
    ["America/New_York", "EST", "EDT"],
    ["America/Los_Angeles", "PST", "PDT"],
    ["Europe/London", "GMT", "BST"],
    ["Asia/Tokyo", "JST", "JST"],
    ["Asia/Kolkata", "IST", "IST"],
    ["Australia/Sydney", "AEDT", "AEST"],
    ["Pacific/Auckland", "NZDT", "NZST"],
    ["UTC", "UTC", "UTC"],
  ];
  for (const [zone, winter, summer] of cases) {
    assert.deepEqual([zoneAbbreviation(zone, WINTER), zoneAbbreviation(zone, SUMMER)], [winter, summer], zone);
  }
});

test("a zone without a common abbreviation shows its offset, never a wrong name", () => {
  assert.equal(zoneAbbreviation("Asia/Kathmandu", WINTER), "GMT+5:45");
  assert.equal(zoneAbbreviation("America/Caracas", WINTER), "GMT-4");
});

test("the abbreviation found a day at a time is the instant's own, every hour of a year and every minute of the days zones change", () => {
  // Zones that change by an hour, by half an hour (Lord Howe), at odd minutes of UTC (Chatham's 45), twice for Ramadan (Casablanca), not at all any more
  // (Tehran), or never (Kathmandu), on both hemispheres.
  const zones = [
    "Europe/Berlin",
    "America/New_York",
    "Australia/Sydney",
    "Australia/Lord_Howe",
    "Pacific/Chatham",
    "Africa/Casablanca",
    "America/Santiago",
    "Asia/Tehran",
    "Asia/Kathmandu",
    "Europe/London",
  ];
  const from = Date.parse("2026-01-01T00:00:00Z");
  const HOUR = 3_600_000;
  let changeDays = 0;
  for (const zone of zones) {
    for (let day = from; day < from + 365 * 24 * HOUR; day += 24 * HOUR) {
      const changes = findAbbreviation(zone, day) !== findAbbreviation(zone, day + 24 * HOUR - 1);
      if (changes) changeDays++;
      const step = changes ? 60_000 : HOUR;
      for (let t = day; t < day + 24 * HOUR; t += step) {
        if (zoneAbbreviation(zone, t) !== findAbbreviation(zone, t))
          assert.fail(`${zone} at ${new Date(t).toISOString()}: ${zoneAbbreviation(zone, t)}, the instant's own ${findAbbreviation(zone, t)}`);
      }
    }
  }
  // The sweep met the changes it is there for: two a year in each zone with daylight time, four in Casablanca.
  assert.ok(changeDays >= 14, `${changeDays} days with a change`);
});
