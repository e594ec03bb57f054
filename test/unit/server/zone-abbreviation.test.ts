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

test("the abbreviation found a day at a time is the instant's own, every hour of a year, in zones that change and zones that do not", () => {
  // Zones that change by an hour, by half an hour (Lord Howe), with an offset of 45 minutes (Chatham), for Ramadan (Casablanca), not at all any more
  // (Tehran), or never (Kathmandu), on both hemispheres. A zone that changed there and back within a UTC day would show here: the day's ends agree, the
  // hours between do not.
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
  // Days whose hours do not all have the same abbreviation, read from the locale data, not from the code under test.
  let changeDays = 0;
  for (const zone of zones) {
    for (let day = from; day < from + 365 * 24 * HOUR; day += 24 * HOUR) {
      const first = findAbbreviation(zone, day);
      let changes = false;
      for (let t = day; t < day + 24 * HOUR; t += HOUR) {
        const own = findAbbreviation(zone, t);
        if (own !== first) changes = true;
        if (zoneAbbreviation(zone, t) !== own) assert.fail(`${zone} at ${new Date(t).toISOString()}: ${zoneAbbreviation(zone, t)}, the instant's own ${own}`);
      }
      if (changes) changeDays++;
    }
  }
  // The sweep met the changes it is there for: two a year in each of the eight zones that change.
  assert.ok(changeDays >= 16, `${changeDays} days with a change`);
});

test("no zone the browser's data knows changes there and back within a UTC day in 2026: where a day's ends agree, its noon does too", () => {
  // zoneAbbreviation reads a day whose first and last millisecond agree as having no change; here, every zone's every day, by its UTC offset (a change of
  // abbreviation is a change of offset), at its noon.
  const from = Date.parse("2026-01-01T00:00:00Z");
  const DAY = 86_400_000;
  let zones = 0;
  for (const zone of Intl.supportedValuesOf("timeZone")) {
    zones++;
    const format = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" });
    const offset = (t: number): string => format.formatToParts(t).find((p) => p.type === "timeZoneName")?.value ?? "";
    for (let day = from; day < from + 365 * DAY; day += DAY) {
      const first = offset(day);
      if (first !== offset(day + DAY - 1)) continue;
      if (offset(day + DAY / 2) !== first) assert.fail(`${zone} changes there and back on ${new Date(day).toISOString().slice(0, 10)}`);
    }
  }
  assert.ok(zones > 300, `${zones} zones`);
});
