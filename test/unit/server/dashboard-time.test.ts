// The dashboard's instants for people: written once per zone and instant, the same whether the instant comes as the service writes it or as a number, and
// in UTC read off the service's text as a Date would read it.

import assert from "node:assert/strict";
import { test } from "node:test";
import { localTime, utcTime } from "../../../src/server/dashboard/client/time.ts";

test("a local time reads the same from the service's text and from its number, and again from what was written before", () => {
  const text = "2026-11-23T07:00:00Z";
  const t = Date.parse(text);
  assert.equal(localTime(text, "Europe/Berlin"), "Mon 23 Nov, 08:00 CET");
  assert.equal(localTime(t, "Europe/Berlin"), "Mon 23 Nov, 08:00 CET");
  assert.equal(localTime(text, "Europe/Berlin"), "Mon 23 Nov, 08:00 CET");
  // The same instant in another zone is written for that zone, not taken from the first.
  assert.equal(localTime(text, "America/New_York"), "Mon 23 Nov, 02:00 EST");
  assert.equal(localTime(Date.parse("2026-07-15T12:30:00Z"), "Europe/Berlin"), "Wed 15 Jul, 14:30 CEST");
});

test("a UTC time of the service's text is what a Date makes of it; other texts and numbers go through a Date", () => {
  for (const text of ["2026-11-23T07:00:00Z", "2026-02-28T23:59:59Z", "1999-12-31T00:05:00Z"]) {
    assert.equal(utcTime(text), `${new Date(text).toISOString().slice(0, 16).replace("T", " ")} UTC`, text);
    assert.equal(utcTime(text), utcTime(Date.parse(text)), text);
  }
  assert.equal(utcTime("2026-11-23T07:00:00.500Z"), "2026-11-23 07:00 UTC");
  assert.equal(utcTime("2026-11-23T08:00:00+01:00"), "2026-11-23 07:00 UTC");
  assert.equal(utcTime(Date.parse("2026-11-23T07:45:00Z")), "2026-11-23 07:45 UTC");
});
