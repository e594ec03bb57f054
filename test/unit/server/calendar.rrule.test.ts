// The .ics feed writes recurrence schedules and freezes as events with their RRULE, EXDATE and TZID (with a VTIMEZONE), not expanded; ical.js, as a calendar
// program, reads the feed back to exactly the engine's open and frozen stretches over a year.

import assert from "node:assert/strict";
import { test } from "node:test";
import ICAL from "ical.js";
import { compileWindow, zoneRules } from "../../../src/schedule/index.ts";
import { computeFleetCalendar } from "../../../src/server/views/fleet-calendar.ts";
import { vtimezone } from "../../../src/server/views/ics-recurrence.ts";
import { stretchesOf } from "../../../src/server/views/ics.ts";
import { fixture, NOW } from "../../support/server.ts";

const FROM = Date.UTC(2027, 0, 1);
const TO = Date.UTC(2028, 0, 1);

const SPEC = {
  timeZone: "Europe/Berlin",
  schedules: [
    { recurrence: "FREQ=WEEKLY;BYDAY=MO,WE", at: "08:00", duration: "9h" },
    { start: "0 22 * * FRI", duration: "2h" },
    { recurrence: "FREQ=DAILY;INTERVAL=10", dtstart: "2027-01-03", at: "00:00", endAt: "00:00" },
  ],
  freezes: [
    { recurrence: "FREQ=MONTHLY;BYDAY=-1FR", at: "12:00", endAt: "23:59", exdates: ["2027-03-26"], reason: "Last Friday" },
    { recurrence: "FREQ=YEARLY;BYMONTH=3,10;BYDAY=-1SU", at: "02:30", duration: "1h", reason: "Clock change" },
    { from: "2027-05-03T10:00", to: "2027-05-03T12:00", reason: "Cuts a Monday opening" },
    { recurrence: "FREQ=WEEKLY;INTERVAL=2;BYDAY=WE;COUNT=10", dtstart: "2027-02-03", at: "16:00", duration: "3h", reason: "Overlaps Wednesday openings" },
  ],
  targets: [{ kind: "Kustomization", name: "apps-rw" }],
};

/** Every event of a feed as ical.js expands it, `Open|start|end` or `Frozen|start|end` in UTC ms, sorted; and the raw VEVENTs. */
function readFeed(text: string): { intervals: string[]; events: Array<InstanceType<typeof ICAL.Component>> } {
  const calendar = new ICAL.Component(ICAL.parse(text));
  const zones = calendar.getAllSubcomponents("vtimezone").map((c) => new ICAL.Timezone(c));
  for (const z of zones) ICAL.TimezoneService.register(z);
  try {
    const out: string[] = [];
    const events = calendar.getAllSubcomponents("vevent");
    for (const v of events) {
      const event = new ICAL.Event(v);
      const category = String(v.getFirstPropertyValue("categories"));
      if (!event.isRecurring()) {
        out.push(`${category}|${event.startDate.toUnixTime() * 1000}|${event.endDate.toUnixTime() * 1000}`);
        continue;
      }
      const it = event.iterator();
      for (let next = it.next(); next; next = it.next()) {
        const d = event.getOccurrenceDetails(next) as { startDate: InstanceType<typeof ICAL.Time>; endDate: InstanceType<typeof ICAL.Time> };
        out.push(`${category}|${d.startDate.toUnixTime() * 1000}|${d.endDate.toUnixTime() * 1000}`);
      }
    }
    return { intervals: out.sort(), events };
  } finally {
    for (const z of zones) ICAL.TimezoneService.remove(z.tzid);
  }
}

test("a year of a cluster's feed: recurrence rules are RRULE events, and ical.js expands the feed to the engine's stretches of every window", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const put = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/calendar-rules", { body: { spec: SPEC, reason: "rules for the feed" } });
  assert.equal(put.status, 201, put.text);
  const r = await f.call("GET", `/api/v1/clusters/edge-berlin/calendar.ics?from=${new Date(FROM).toISOString()}&to=${new Date(TO).toISOString()}`, {
    token: f.tokens.viewer,
  });
  assert.equal(r.status, 200, r.text);
  const { intervals, events } = readFeed(r.text);

  // The engine's stretches of every window of the cluster, as the feed's range has them.
  const windows = await f.call("GET", "/api/v1/clusters/edge-berlin/windows");
  const want: string[] = [];
  for (const w of windows.body.windows as Array<{ name: string; spec: unknown }>) {
    const compiled = compileWindow(w.name, w.spec as Parameters<typeof compileWindow>[1]);
    for (const s of stretchesOf(compiled, [], { now: NOW, from: FROM, to: TO, version: "test" }))
      want.push(`${s.state === "open" ? "Open" : "Frozen"}|${s.start}|${s.end}`);
  }
  assert.equal(intervals.length, want.length);
  assert.deepEqual(intervals, want.sort());

  // The rules are written natively: one event each, with its zone, far fewer events than stretches.
  const recurring = events.filter((v) => v.hasProperty("rrule") && String(v.getFirstPropertyValue("summary")).includes("calendar-rules"));
  const rules = recurring.map((v) => String(v.getFirstPropertyValue("rrule")));
  assert.ok(
    rules.some((x) => x.startsWith("FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=")),
    rules.join("\n"),
  );
  assert.ok(rules.some((x) => x.startsWith("FREQ=MONTHLY;BYDAY=-1FR;UNTIL=")));
  assert.ok(rules.some((x) => x.startsWith("FREQ=DAILY;INTERVAL=10;UNTIL=")));
  const weekly = recurring.find((v) => String(v.getFirstPropertyValue("rrule")).startsWith("FREQ=WEEKLY;BYDAY=MO,WE"));
  assert.equal(weekly?.getFirstProperty("dtstart")?.getParameter("tzid"), "Europe/Berlin");
  // The opening cut by the one-off freeze, and those the fortnightly freeze overlaps, are left out of the rule (EXDATE) and written as they are.
  assert.ok((weekly?.getAllProperties("exdate").length ?? 0) >= 1);
  assert.match(r.text, /BEGIN:VTIMEZONE\r\nTZID:Europe\/Berlin\r\n/);
  // Besides the rules' events, the window's feed has the cron schedule's 53 Friday openings and the few stretches a rule does not carry as they are.
  const own = events.filter((v) => String(v.getFirstPropertyValue("summary")).includes("calendar-rules"));
  const oneOff = own.filter((v) => !v.hasProperty("rrule") && new ICAL.Event(v).startDate.dayOfWeek() !== 6);
  assert.equal(recurring.length, 5, rules.join("\n"));
  // The openings cut by the fortnightly freeze or the one-off one, and those joined to the ten-daily one, are written as they are.
  assert.ok(oneOff.length <= 14, `${oneOff.length} one-off events besides the cron openings`);
  // The rule that starts in the spring-forward gap (02:30 is read as 03:30, RFC 5545 §3.3.5) and in the repeated hour: written from its first
  // start as it is; the repeated hour, which calendar programs read as they please, stays an event of its own.
  const clock = recurring.find((v) => String(v.getFirstPropertyValue("rrule")).startsWith("FREQ=YEARLY"));
  assert.equal(clock?.getFirstProperty("dtstart")?.toICALString(), "DTSTART;TZID=Europe/Berlin:20270328T033000");
});

test("the VTIMEZONE made from the engine's zone data gives ical.js the engine's local times on either side of each change", () => {
  const zone = zoneRules("America/New_York");
  const text = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//EN", ...vtimezone(zone, FROM, TO), "END:VCALENDAR", ""].join("\r\n");
  const tz = new ICAL.Timezone(new ICAL.Component(ICAL.parse(text)).getFirstSubcomponent("vtimezone") ?? undefined);
  for (const t of [...zone.transitionsIn(FROM, TO)].flatMap((x) => [x - 1000, x, x + 3_600_000])) {
    const wall = new Date(zone.wallAt(t));
    const time = new ICAL.Time(
      {
        year: wall.getUTCFullYear(),
        month: wall.getUTCMonth() + 1,
        day: wall.getUTCDate(),
        hour: wall.getUTCHours(),
        minute: wall.getUTCMinutes(),
        second: wall.getUTCSeconds(),
      },
      tz,
    );
    // A repeated local time is ambiguous: ical.js takes one of its instants; the other direction is exact.
    const back = time.toUnixTime() * 1000;
    assert.equal(zone.wallAt(back), zone.wallAt(t), new Date(t).toISOString());
  }
  assert.equal(compileWindow("w", { timeZone: "UTC" }).zone.name, "UTC");
});

test("the fleet's feed: one RRULE event per rule for all the clusters whose window writes it alike, and ical.js reads it back to the engine's stretches", () => {
  const window = { apiVersion: "fluxgate.io/v1alpha1", kind: "ReconciliationWindow", metadata: { name: "calendar-rules" }, spec: SPEC } as never;
  const tokyo = { ...(window as object), spec: { ...SPEC, timeZone: "Asia/Tokyo" } } as never;
  const input = {
    now: NOW,
    from: FROM,
    to: TO,
    version: "test",
    title: "fleet",
    maxEvents: 20_000,
    names: ["edge-1", "edge-2", "edge-3"],
    groups: [
      { name: "calendar-rules", window, overrides: [], clusters: [0, 1], cluster: { name: "edge-1", labels: {} } },
      { name: "calendar-rules", window: tokyo, overrides: [], clusters: [2], cluster: { name: "edge-3", labels: {} } },
    ],
  };
  const outcome = computeFleetCalendar(input);
  assert.ok(outcome.ok);
  const text = new TextDecoder().decode(outcome.ics);
  const { intervals, events } = readFeed(text);
  const want = new Map<string, number>();
  for (const spec of [SPEC, { ...SPEC, timeZone: "Asia/Tokyo" }]) {
    for (const s of stretchesOf(compileWindow("calendar-rules", spec), [], { now: NOW, from: FROM, to: TO, version: "test" })) {
      const key = `${s.state === "open" ? "Open" : "Frozen"}|${s.start}|${s.end}`;
      want.set(key, 1);
    }
  }
  // A stretch two zones share is one event in the fleet's feed: compare the sets.
  assert.deepEqual([...new Set(intervals)].sort(), [...want.keys()].sort());
  const weekly = events.filter((v) => String(v.getFirstPropertyValue("rrule")).startsWith("FREQ=WEEKLY;BYDAY=MO,WE"));
  assert.deepEqual(weekly.map((v) => v.getFirstProperty("dtstart")?.getParameter("tzid")).sort(), ["Asia/Tokyo", "Europe/Berlin"]);
  assert.match(
    String(weekly.find((v) => v.getFirstProperty("dtstart")?.getParameter("tzid") === "Europe/Berlin")?.getFirstPropertyValue("summary")),
    /on 2 clusters$/,
  );
  assert.match(text, /BEGIN:VTIMEZONE\r\nTZID:Asia\/Tokyo\r\n/);
});
