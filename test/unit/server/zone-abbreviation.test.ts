// The dashboard's zone labels: the abbreviation people use where the zone has one (CET, EST, JST), in standard and daylight time, else the GMT offset.

import assert from "node:assert/strict";
import { test } from "node:test";
import { zoneAbbreviation } from "../../../src/server/dashboard/client/time.ts";

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
