// Calendar benchmarks: reading an .ics file into freezes (each recurring event checked against ical.js over ten years) and writing a year's feed with RRULE events.

import { freezesFromCalendar } from "../src/gitops/calendar/ics-import.ts";
import { compileWindow } from "../src/schedule/index.ts";
import { recurrenceEvents, stretchesOf } from "../src/server/views/ics.ts";
import type { BenchLine } from "./schedule.ts";

/** A calendar of `events` events as a CAB keeps them: recurring ones (daily, weekly, monthly) with EXDATEs, all-day and one-off ones, in Europe/Berlin. */
export function cabCalendar(events: number): string {
  const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//bench//EN"];
  for (let i = 0; i < events; i++) {
    const day = String(1 + (i % 28)).padStart(2, "0");
    const body =
      i % 4 === 0
        ? [
            `DTSTART;TZID=Europe/Berlin:202701${day}T220000`,
            `DTEND;TZID=Europe/Berlin:202701${day}T230000`,
            "RRULE:FREQ=DAILY",
            `EXDATE;TZID=Europe/Berlin:202702${day}T220000`,
          ]
        : i % 4 === 1
          ? [`DTSTART;TZID=Europe/Berlin:202701${day}T080000`, `DTEND;TZID=Europe/Berlin:202701${day}T120000`, "RRULE:FREQ=WEEKLY;BYDAY=MO,TH"]
          : i % 4 === 2
            ? [`DTSTART;VALUE=DATE:202712${day}`, `DTEND;VALUE=DATE:202801${day}`]
            : [`DTSTART;TZID=Europe/Berlin:202703${day}T060000`, `DTEND;TZID=Europe/Berlin:202703${day}T100000`, "RRULE:FREQ=MONTHLY;BYDAY=-1FR"];
    lines.push("BEGIN:VEVENT", `UID:bench-${i}@example.com`, `SUMMARY:Freeze ${i}`, ...body, "END:VEVENT");
  }
  lines.push("END:VCALENDAR", "");
  return lines.join("\r\n");
}

function ms(fn: () => void, runs: number): number {
  fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) fn();
  return Number(process.hrtime.bigint() - start) / 1e6 / runs;
}

export function calendarBenches(events: number, runs: number): BenchLine[] {
  const text = cabCalendar(events);
  const window = freezesFromCalendar(text, "Europe/Berlin");
  const importMs = ms(() => freezesFromCalendar(text, "Europe/Berlin"), runs);
  // A fleet window taken by clusters in three more zones: each recurring event is checked in each.
  const fleetMs = ms(
    () =>
      freezesFromCalendar(text, "Europe/Berlin", {
        absolute: true,
        alsoReadIn: ["Europe/Paris", "Europe/Rome", "Europe/Madrid"].map((timeZone) => ({ timeZone, who: timeZone })),
      }),
    runs,
  );
  const spec = { timeZone: "Europe/Berlin", freezes: window.freezes.map((f) => f.freeze), schedules: [{ start: "0 8 * * MON-FRI", duration: "9h" }] };
  const compiled = compileWindow("bench", spec);
  const options = { now: Date.UTC(2027, 0, 1), from: Date.UTC(2027, 0, 1), to: Date.UTC(2028, 0, 1), version: "bench" };
  const stretches = stretchesOf(compiled, [], options);
  const feedMs = ms(() => recurrenceEvents(compiled, spec, stretchesOf(compiled, [], options), options, "bench"), runs);
  // The feed's default range: two weeks back, 92 days ahead (what calendar apps poll, on the event loop).
  const near = { ...options, from: Date.UTC(2027, 0, 1) - 14 * 86_400_000, to: Date.UTC(2027, 0, 1) + 92 * 86_400_000 };
  const nearMs = ms(() => recurrenceEvents(compiled, spec, stretchesOf(compiled, [], near), near, "bench"), runs);
  return [
    { bench: "calendar.import", events, ms: Number(importMs.toFixed(1)) },
    { bench: "calendar.feed.rrule-default-range", rules: window.freezes.filter((f) => f.kind === "recurring").length, ms: Number(nearMs.toFixed(1)) },
    { bench: "calendar.import.fleet-zones", events, zones: 4, ms: Number(fleetMs.toFixed(1)) },
    {
      bench: "calendar.feed.rrule-year",
      rules: window.freezes.filter((f) => f.kind === "recurring").length,
      stretches: stretches.length,
      ms: Number(feedMs.toFixed(1)),
    },
  ];
}
