// Freezes from .ics files shaped as Outlook and Google Calendar export them: what each event becomes, the refusals that name the event, and ical.js as an independent reader.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import ICAL from "ical.js";
import { CalendarImportError, freezesFromCalendar, type ImportedFreeze } from "../../../src/gitops/calendar/ics-import.ts";
import { compileWindow, type Interval } from "../../../src/schedule/index.ts";

const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/calendars/${name}`, import.meta.url), "utf8");
const OUTLOOK_WEEKLY_UID = "040000008200E00074C5B7101A82E00800000000B1C2D3E4F54BDB010000000000000000100000001122334455667788990011223344556677";

/** A calendar of the given VEVENT bodies. */
function ics(...events: string[]): string {
  return ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", ...events.map((e) => `BEGIN:VEVENT\n${e.trim()}\nEND:VEVENT`), "END:VCALENDAR", ""].join(
    "\n",
  );
}

function refused(text: string, zone: string): CalendarImportError {
  try {
    freezesFromCalendar(text, zone);
  } catch (e) {
    assert.ok(e instanceof CalendarImportError, String(e));
    return e;
  }
  assert.fail("the calendar was imported");
}

test("an Outlook export (VTIMEZONE with a Windows zone name, CRLF, folded UIDs): a one-off, a weekly event with EXDATE, an all-day event", () => {
  const read = freezesFromCalendar(fixture("outlook.ics"), "Europe/Berlin");
  assert.equal(read.name, "Change freezes");
  assert.deepEqual(
    read.freezes.map((f) => [f.kind, f.freeze]),
    [
      ["one-off", { from: "2026-12-31T18:00", to: "2027-01-02T08:00", reason: "Year-end close", uid: read.freezes[0]?.uid }],
      [
        "recurring",
        {
          recurrence: "FREQ=WEEKLY;BYDAY=WE",
          dtstart: "2026-12-02",
          at: "22:00",
          duration: "9h",
          exdates: ["2026-12-23T22:00", "2026-12-30T22:00"],
          reason: "Database maintenance (no deploys)",
          uid: OUTLOOK_WEEKLY_UID,
        },
      ],
      ["all-day", { from: "2026-12-24T00:00", to: "2026-12-28T00:00", reason: "Christmas freeze", uid: read.freezes[2]?.uid }],
    ],
  );
  // Folded lines are unfolded: the UID is whole.
  assert.match(read.freezes[0]?.uid ?? "", /^040000008200E00074C5B7101A82E00800000000D0A6B5E1F54BDB01.*A5D7E0E1C6B4A54C8E8E1F2A2C3D4E5F$/);
});

test("events are converted to the window's zone: London is an hour behind Berlin all year, so the weekly event is exact there too", () => {
  const read = freezesFromCalendar(fixture("outlook.ics"), "Europe/London");
  assert.deepEqual(read.freezes[0]?.freeze.from, "2026-12-31T17:00");
  assert.deepEqual(read.freezes[1]?.freeze, { ...read.freezes[1]?.freeze, at: "21:00", exdates: ["2026-12-23T21:00", "2026-12-30T21:00"] });
  // All-day events are whole days of the window's zone, as holidays are.
  assert.deepEqual(read.freezes[2]?.freeze.from, "2026-12-24T00:00");
});

test("a recurring event whose zone moves against the window's is refused by name, with the first occurrence that would differ", () => {
  const e = refused(fixture("outlook.ics"), "Asia/Tokyo");
  assert.equal(e.problems.length, 1);
  assert.equal(e.problems[0]?.path, `event 2 "Database maintenance (no deploys)" (UID ${OUTLOOK_WEEKLY_UID})`);
  assert.match(
    e.message,
    /repeats in a way a freeze in Asia\/Tokyo cannot hold exactly \(its times are in W\. Europe Standard Time, the window's in Asia\/Tokyo\): the calendar has an occurrence at 2026-12-02T21:00Z, the freeze would start at 2026-12-08T21:00Z instead$/m,
  );
});

test("a Google export: monthly last Friday with EXDATE, a yearly all-day event, UTC events; a cancelled event is reported for removal", () => {
  const read = freezesFromCalendar(fixture("google.ics"), "Europe/Berlin");
  assert.equal(read.name, "Platform freezes");
  assert.deepEqual(
    read.freezes.map((f) => f.freeze),
    [
      {
        recurrence: "FREQ=MONTHLY;BYDAY=-1FR",
        dtstart: "2027-01-29",
        at: "12:00",
        duration: "11h59m",
        exdates: ["2027-03-26T12:00"],
        reason: "Last Friday: no releases after noon",
        uid: "0q7m4d1n2c3o4v5e6r7s8i9o0n@google.com",
      },
      // One day each year, midnight to midnight: 23 or 25 hours on a day the clocks change, so endAt, not a duration.
      { recurrence: "FREQ=YEARLY", dtstart: "2027-05-01", at: "00:00", endAt: "00:00", reason: "Labour Day", uid: "1abcdefghijklmnopqrstuvwx@google.com" },
      { from: "2027-03-15T07:00", to: "2027-03-15T11:00", reason: "Data-centre migration", uid: "2migrationwindow0000000000@google.com" },
      // 00:30Z is 01:30 CET; 01:30Z is 03:30 CEST, after the clocks went forward.
      { from: "2027-03-28T01:30", to: "2027-03-28T03:30", reason: "Network change across the clock change", uid: "3nightbeforeclockchange000@google.com" },
    ],
  );
  assert.deepEqual(read.cancelled, ["4cancelledreview0000000000@google.com"]);
});

test("a UTC event in the hour the clocks go back is written with its offset: the local time alone would name the first of the two", () => {
  const read = freezesFromCalendar(ics("UID:x\nSUMMARY:Second 02:30\nDTSTART:20271031T013000Z\nDTEND:20271031T030000Z"), "Europe/Berlin");
  assert.deepEqual(read.freezes[0]?.freeze, { from: "2027-10-31T02:30+01:00", to: "2027-10-31T04:00", reason: "Second 02:30", uid: "x" });
});

test("ical.js, reading the file on its own with the file's VTIMEZONEs, expands every event to the intervals the engine gives the imported freezes (2027)", () => {
  const text = fixture("google.ics");
  const read = freezesFromCalendar(text, "Europe/Berlin");
  const calendar = new ICAL.Component(ICAL.parse(text));
  const from = Date.UTC(2027, 0, 1);
  const to = Date.UTC(2028, 0, 1);
  const zones = calendar.getAllSubcomponents("vtimezone").map((c) => new ICAL.Timezone(c));
  const berlin = zones.find((z) => z.tzid === "Europe/Berlin");
  assert.ok(berlin);
  for (const z of zones) ICAL.TimezoneService.register(z);
  try {
    for (const f of read.freezes) {
      const event = new ICAL.Event(calendar.getAllSubcomponents("vevent").find((v) => v.getFirstPropertyValue("uid") === f.uid));
      const want: Interval[] = [];
      const it = event.iterator();
      for (let next = it.next(); next; next = it.next()) {
        const details = event.getOccurrenceDetails(next);
        // All-day times are floating dates: ical.js reads them as UTC; the window reads them in its zone.
        const instant = (t: InstanceType<typeof ICAL.Time>): number =>
          t.isDate ? new ICAL.Time({ year: t.year, month: t.month, day: t.day, hour: 0, isDate: false }, berlin).toUnixTime() * 1000 : t.toUnixTime() * 1000;
        const iv = { start: instant(details.startDate), end: instant(details.endDate) };
        if (iv.start >= to) break;
        if (iv.end > from) want.push(iv);
      }
      assert.deepEqual(engineIntervals(f, from, to), want, f.summary);
    }
  } finally {
    for (const z of zones) ICAL.TimezoneService.remove(z.tzid);
  }
});

function engineIntervals(f: ImportedFreeze, from: number, to: number): Interval[] {
  const rule = compileWindow("w", { timeZone: "Europe/Berlin", freezes: [f.freeze] }).freeze[0];
  assert.ok(rule);
  const out: Interval[] = [];
  const first = rule.atOrBefore(from);
  if (first !== null && first.end > from) out.push(first);
  for (let iv = rule.after(from); iv !== null && iv.start < to; iv = rule.after(iv.start)) out.push(iv);
  return out;
}

test("refusals name each event by SUMMARY and UID, all at once, and say why", () => {
  const e = refused(
    ics(
      "UID:moved\nSUMMARY:Moved occurrence\nRECURRENCE-ID:20270105T090000Z\nDTSTART:20270106T090000Z\nDTEND:20270106T100000Z",
      "UID:rdate\nSUMMARY:Extra dates\nDTSTART:20270105T090000Z\nDTEND:20270105T100000Z\nRRULE:FREQ=WEEKLY\nRDATE:20270110T090000Z",
      "UID:decade\nSUMMARY:Ten years\nDTSTART;VALUE=DATE:20270101\nDTEND;VALUE=DATE:20370101",
      "SUMMARY:No uid\nDTSTART:20270105T090000Z\nDTEND:20270105T100000Z",
      "UID:nosummary\nDTSTART:20270105T090000Z\nDTEND:20270105T100000Z",
      "UID:zone\nSUMMARY:Unknown zone\nDTSTART;TZID=Mars Standard Time:20270105T090000\nDTEND;TZID=Mars Standard Time:20270105T100000",
      "UID:hourly\nSUMMARY:Each hour\nDTSTART:20270105T090000Z\nDTEND:20270105T093000Z\nRRULE:FREQ=DAILY;BYHOUR=9,15",
      "UID:instant\nSUMMARY:No end\nDTSTART:20270105T090000Z",
      "UID:backwards\nSUMMARY:Backwards\nDTSTART:20270105T090000Z\nDTEND:20270105T080000Z",
    ),
    "UTC",
  );
  assert.deepEqual(
    e.problems.map((p) => p.path),
    [
      'event 1 "Moved occurrence" (UID moved)',
      'event 2 "Extra dates" (UID rdate)',
      'event 3 "Ten years" (UID decade)',
      'event 4 "No uid"',
      "event 5 (UID nosummary)",
      'event 6 "Unknown zone" (UID zone)',
      'event 7 "Each hour" (UID hourly)',
      'event 8 "No end" (UID instant)',
      'event 9 "Backwards" (UID backwards)',
    ],
  );
  const messages = e.problems.map((p) => p.message);
  assert.match(messages[0] ?? "", /RECURRENCE-ID/);
  assert.match(messages[1] ?? "", /has RDATE: only RRULE with EXDATE is imported/);
  assert.equal(messages[2], "lasts 3653 days (2027-01-01 to 2037-01-01): a freeze from a calendar lasts at most 366 days; check the event's end");
  assert.match(messages[3] ?? "", /has no UID/);
  assert.match(messages[4] ?? "", /has no SUMMARY: the freeze's reason is the event's summary/);
  assert.equal(messages[5], 'has TZID "Mars Standard Time", which is neither an IANA time zone nor defined by a VTIMEZONE of the file');
  assert.match(messages[6] ?? "", /^cannot be a freeze: .*BYHOUR/);
  assert.match(messages[7] ?? "", /has no DTEND or DURATION/);
  assert.match(messages[8] ?? "", /ends at or before it starts/);
  assert.match(e.message, /^the calendar cannot be imported; 9 events refused:\n/);
});

test("files that are not calendars, or hold no events, are refused with what is wrong", () => {
  assert.match(refused("", "UTC").message, /the calendar is empty/);
  assert.match(refused("hello", "UTC").message, /^the file is not a valid iCalendar file \(RFC 5545\): invalid line/);
  assert.match(refused("BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:x\n", "UTC").message, /not a valid iCalendar file .*did not end/);
  assert.match(refused("BEGIN:VCARD\nVERSION:4.0\nFN:A\nEND:VCARD\n", "UTC").message, /does not start with BEGIN:VCALENDAR/);
  assert.equal(
    refused("BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VTODO\nUID:t\nSUMMARY:Todo\nEND:VTODO\nEND:VCALENDAR\n", "UTC").message,
    "the calendar has no events (VEVENT), only VTODO: nothing to import as freezes",
  );
  assert.deepEqual(refused(ics("UID:a\nSUMMARY:A\nDTSTART:2027XX05\nDTEND:20270106T100000Z"), "UTC").problems, [
    { path: 'event 1 "A" (UID a)', message: 'is not valid iCalendar (RFC 5545): invalid date-time value: "2027-XX-05T::"' },
  ]);
});

test("a DURATION instead of DTEND: days are nominal (the same local time), hours exact", () => {
  const read = freezesFromCalendar(
    ics(
      "UID:d\nSUMMARY:Two days\nDTSTART;TZID=Europe/Berlin:20270327T120000\nDURATION:P2D",
      "UID:h\nSUMMARY:Two days of hours\nDTSTART;TZID=Europe/Berlin:20270327T120000\nDURATION:PT48H",
      "UID:a\nSUMMARY:All-day week\nDTSTART;VALUE=DATE:20270327\nDURATION:P1W",
    ),
    "Europe/Berlin",
  );
  assert.deepEqual(
    read.freezes.map((f) => [f.freeze.from, f.freeze.to]),
    [
      ["2027-03-27T12:00", "2027-03-29T12:00"],
      ["2027-03-27T12:00", "2027-03-29T13:00"],
      ["2027-03-27T00:00", "2027-04-03T00:00"],
    ],
  );
});

test("London keeps an hour behind Berlin, UTC does not: an unbounded weekly event in Berlin time is refused for a UTC window at the first clock change", () => {
  const e = refused(fixture("outlook.ics"), "UTC");
  assert.match(e.message, /the calendar has an occurrence at 2027-03-31T20:00Z, the freeze would start at 2027-03-31T21:00Z instead$/m);
});

test("a DTSTART that is not itself an occurrence (a monthly last-Friday rule from a Thursday): both readings are compared over the same ten years", () => {
  const read = freezesFromCalendar(
    ics("UID:m\nSUMMARY:Month end\nDTSTART;TZID=Europe/Berlin:20270304T060000\nDTEND;TZID=Europe/Berlin:20270304T100000\nRRULE:FREQ=MONTHLY;BYDAY=-1FR"),
    "Europe/Berlin",
  );
  assert.deepEqual(read.freezes[0]?.freeze, {
    recurrence: "FREQ=MONTHLY;BYDAY=-1FR",
    dtstart: "2027-03-04",
    at: "06:00",
    duration: "4h",
    reason: "Month end",
    uid: "m",
  });
});

test("an occurrence cancelled on its own (RECURRENCE-ID with STATUS:CANCELLED, as Outlook writes a deleted one) is left out of its series", () => {
  const read = freezesFromCalendar(
    ics(
      "UID:w\nSUMMARY:Weekly\nDTSTART;TZID=Europe/Berlin:20270106T220000\nDTEND;TZID=Europe/Berlin:20270107T020000\nRRULE:FREQ=WEEKLY;COUNT=10",
      "UID:w\nSUMMARY:Weekly\nRECURRENCE-ID;TZID=Europe/Berlin:20270113T220000\nDTSTART;TZID=Europe/Berlin:20270113T220000\nDTEND;TZID=Europe/Berlin:20270114T020000\nSTATUS:CANCELLED",
    ),
    "Europe/Berlin",
  );
  assert.deepEqual(
    read.freezes.map((f) => f.freeze),
    [{ recurrence: "FREQ=WEEKLY;COUNT=10", dtstart: "2027-01-06", at: "22:00", duration: "4h", exdates: ["2027-01-13T22:00"], reason: "Weekly", uid: "w" }],
  );
  assert.deepEqual(read.cancelled, []);
  // A changed occurrence (moved, renamed) is still refused: a freeze cannot hold it.
  const moved = refused(
    ics(
      "UID:w\nSUMMARY:Weekly\nDTSTART;TZID=Europe/Berlin:20270106T220000\nDTEND;TZID=Europe/Berlin:20270107T020000\nRRULE:FREQ=WEEKLY",
      "UID:w\nSUMMARY:Weekly\nRECURRENCE-ID;TZID=Europe/Berlin:20270113T220000\nDTSTART;TZID=Europe/Berlin:20270113T230000\nDTEND;TZID=Europe/Berlin:20270114T030000",
    ),
    "Europe/Berlin",
  );
  assert.match(moved.message, /event 2 "Weekly" \(UID w\): changes one occurrence of a recurring event \(RECURRENCE-ID\)/);
});

test("an all-day recurring event's UNTIL is a date, the last day it may start on: the window reads it as that day's midnight", () => {
  const read = freezesFromCalendar(
    ics("UID:b\nSUMMARY:Tuesdays\nDTSTART;VALUE=DATE:20270105\nDTEND;VALUE=DATE:20270106\nRRULE:FREQ=WEEKLY;UNTIL=20270601"),
    "Europe/Berlin",
  );
  assert.deepEqual(read.freezes[0]?.freeze, {
    recurrence: "FREQ=WEEKLY;UNTIL=20270601T000000",
    dtstart: "2027-01-05",
    at: "00:00",
    endAt: "00:00",
    reason: "Tuesdays",
    uid: "b",
  });
});

test("an IANA TZID without a VTIMEZONE is read with the engine's zone data, by ical.js too: an UNTIL in UTC at an occurrence keeps it", () => {
  const read = freezesFromCalendar(
    ics(
      "UID:a\nSUMMARY:Weekly\nDTSTART;TZID=Europe/Berlin:20270106T220000\nDTEND;TZID=Europe/Berlin:20270106T230000\nRRULE:FREQ=WEEKLY;UNTIL=20270224T210000Z",
    ),
    "Europe/Berlin",
  );
  assert.equal(read.freezes[0]?.freeze.recurrence, "FREQ=WEEKLY;UNTIL=20270224T210000Z");
});
