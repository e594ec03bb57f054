// Override semantics in one place: start (creation or requested-at, whichever is earlier), end, stage, default name; instants people type.

import assert from "node:assert/strict";
import { test } from "node:test";
import { overrideName, overrideStage, overrideStart, overrideTiming, parseInstant } from "../../../src/policy/index.ts";

const T = Date.parse;

test("a file in Git without a creation time starts at its requested-at stamp; with neither, when it is read (never the week before until)", () => {
  const until = "2026-11-25T12:00:00Z";
  assert.deepEqual(overrideStart({ annotations: { "fluxgate.io/requested-at": "2026-11-25T10:00:00Z" }, until }, T("2026-11-26T00:00:00Z")), {
    start: T("2026-11-25T10:00:00Z"),
    known: true,
  });
  assert.deepEqual(overrideStart({ until }, T("2026-11-25T11:00:00Z")), { start: T("2026-11-25T11:00:00Z"), known: false });
  // Read after its end: it is over, not invalid.
  const late = overrideTiming({ until }, T("2026-11-26T00:00:00Z"));
  assert.deepEqual([late.start, late.end, overrideStage(late, T("2026-11-26T00:00:00Z"))], [T(until), T(until), "expired"]);
});

test("stages: pending before its start, active, then expired, or cancelled when a cancellation ended it early", () => {
  const timing = overrideTiming(
    {
      creationTimestamp: "2026-11-25T10:00:00Z",
      annotations: { "fluxgate.io/cancelled-at": "2026-11-25T11:00:00Z", "fluxgate.io/cancelled-by": "alice" },
      until: "2026-11-25T12:00:00Z",
    },
    0,
  );
  assert.equal(timing.end, T("2026-11-25T11:00:00Z"));
  assert.equal(overrideStage(timing, T("2026-11-25T09:00:00Z")), "pending");
  assert.equal(overrideStage(timing, T("2026-11-25T10:30:00Z")), "active");
  assert.equal(overrideStage(timing, T("2026-11-25T11:00:00Z")), "cancelled");
  assert.equal(overrideStage({ ...timing, cancelled: null, end: timing.until }, T("2026-11-25T12:00:00Z")), "expired");
});

test("a default name is the window, the action and the UTC time, within 253 characters", () => {
  assert.equal(overrideName("weekday-changes", "Open", T("2026-11-22T11:09:35Z")), "weekday-changes-open-20261122-110935");
  const long = overrideName(`${"a".repeat(250)}`, "Freeze", T("2026-11-22T11:09:35Z"));
  assert.equal(long.length, 253);
  assert.match(long, /^a+-freeze-20261122-110935$/);
});

test("instants people type: RFC 3339 with an offset, else a message that says so", () => {
  assert.equal(parseInstant("2026-03-29T00:00:00Z"), T("2026-03-29T00:00:00Z"));
  assert.equal(parseInstant("2026-03-29t01:00:00+01:00"), T("2026-03-29T00:00:00Z"));
  assert.throws(() => parseInstant("2026-03-29T00:00"), /give an RFC 3339 time with an offset/);
});

test("instants with fractions of a second are read to the millisecond; a malformed one is told what an instant looks like, not a local time", () => {
  assert.equal(parseInstant("2026-01-01T00:00:00.123Z"), T("2026-01-01T00:00:00Z") + 123);
  assert.equal(parseInstant("2026-01-01T01:00:00.5+01:00"), T("2026-01-01T00:00:00Z") + 500);
  assert.equal(parseInstant("2026-01-01T00:00:00.123456789Z"), T("2026-01-01T00:00:00Z") + 123, "past the millisecond, cut");
  assert.equal(parseInstant("2026-01-01T00:00:00.570Z"), T("2026-01-01T00:00:00Z") + 570);
  for (const text of ["2026-01-01T00:00:00.Z", "2026-01-01T00:00:00,5Z", "yesterdayZ"]) {
    assert.throws(
      () => parseInstant(text),
      (e: Error) => {
        assert.equal(e.message, `"${text}" is not an RFC 3339 time: write it like 2026-03-29T00:00:00Z, 2026-03-29T00:00:00.250Z or 2026-03-29T01:00:00+01:00`);
        return true;
      },
    );
  }
  assert.throws(() => parseInstant("2026-13-01T00:00:00.5Z"), /month 13 does not exist/);
});
