// Freezes from an iCalendar file (RFC 5545, read by ical.js): each event becomes one freeze of a window, or a refusal that names it.
//
// One-off timed events become `from`/`to` in the window's zone (with an explicit offset where the
// local time alone would be ambiguous), all-day events whole local days, recurring events a
// recurrence freeze. A recurring event is written only when the engine, reading the freeze, gives
// exactly the intervals that ical.js expands from the event, occurrence by occurrence over ten
// years (or to the rule's end): an event in another zone whose local time moves against the
// window's, say, is refused by name rather than approximated.

import ICAL from "ical.js";
import { InputError, type FieldProblem } from "../../errors.ts";
import { MAX_REASON_LENGTH } from "../../api/index.ts";
import { vtimezone } from "./vtimezone.ts";
import { compileWindow, parseRecurrence, ScheduleError, zoneRules, type FreezeSpec, type ZoneRules } from "../../schedule/index.ts";
import { endOf, EventRefused, goDuration, ianaZone, localText, readTime, readTimeValue, wallText, type Component, type ReadTime } from "./event-times.ts";

/** Longest event a calendar may freeze with: a freeze longer than this is almost surely a mistake (an end year typed wrong). */
export const MAX_EVENT_DAYS = 366;
/** Biggest calendar file read. */
export const MAX_CALENDAR_BYTES = 2 * 1024 * 1024;
/** How far a recurring event's expansion is compared with the engine's reading of its freeze. */
const CHECK_YEARS = 10;
/** Most occurrences compared (a daily rule over ten years is 3,653). */
const MAX_CHECKED = 20_000;
const MINUTE = 60_000;
const DAY = 86_400_000;

/** A freeze as written to the window: the fields of `spec.freezes[]`, `uid` last. */
export type ImportedFreezeSpec = FreezeSpec & { uid: string; reason: string };

/** One event read from the calendar, as the freeze it becomes. */
export interface ImportedFreeze {
  uid: string;
  summary: string;
  /** How the event was read: for the report. */
  kind: "one-off" | "all-day" | "recurring";
  freeze: ImportedFreezeSpec;
}

/** What a calendar holds for a window. */
export interface CalendarFreezes {
  /** X-WR-CALNAME, when the file names itself. */
  name: string | null;
  freezes: ImportedFreeze[];
  /** UIDs of events marked STATUS:CANCELLED: their freezes are removed. */
  cancelled: string[];
}

/** The calendar (or some of its events) cannot be written as freezes; `problems` names each event with its reason. */
export class CalendarImportError extends InputError {
  constructor(message: string, problems?: readonly FieldProblem[]) {
    super(message, { reason: "InvalidCalendar", ...(problems === undefined ? {} : { problems }) });
  }
}

/** How a fleet window's freezes are read besides in its own zone. */
export interface ReadOptions {
  /**
   * Write one-off timed events with their UTC offset, so every cluster reads the same instants
   * whatever zone its patch gives the window (all-day and floating events stay local).
   */
  absolute?: boolean | undefined;
  /** Other zones the freezes will be read in (clusters that patch a fleet window's zone): a recurring event must be exact in each too. */
  alsoReadIn?: ReadonlyArray<{ timeZone: string; who: string }> | undefined;
}

/** What every event is read with. */
interface Reading {
  window: ZoneRules;
  zones: ReadonlyMap<string, InstanceType<typeof ICAL.Timezone>>;
  absolute: boolean;
  also: ReadonlyArray<{ zone: ZoneRules; who: string }>;
}

/**
 * Reads `text` (an iCalendar file) as freezes of a window in `timeZone`. Throws a
 * CalendarImportError that names every event it cannot represent exactly (by SUMMARY and UID,
 * with the reason), or says why the file is not a calendar; nothing is returned in part.
 *
 * @example freezesFromCalendar(icsText, "Europe/Berlin").freezes[0].freeze // { from: "2026-12-24T00:00", to: "2026-12-27T00:00", reason: "Holidays", uid: "..." }
 */
export function freezesFromCalendar(text: string, timeZone: string, options: ReadOptions = {}): CalendarFreezes {
  if (Buffer.byteLength(text, "utf8") > MAX_CALENDAR_BYTES)
    throw new CalendarImportError(`the calendar is larger than ${MAX_CALENDAR_BYTES / 1024 / 1024} MiB: export only the events to freeze`);
  const window = zoneRules(timeZone);
  const calendar = parseCalendar(text);
  // ical.js looks zones up by TZID in one registry for the process: the file's own VTIMEZONEs are
  // registered for this (synchronous) read only, so two files never see each other's.
  const zones = new Map<string, InstanceType<typeof ICAL.Timezone>>();
  for (const c of calendar.getAllSubcomponents("vtimezone")) {
    const tz = new ICAL.Timezone(c);
    if (tz.tzid) zones.set(tz.tzid, tz);
  }
  // An IANA TZID the file does not define (a VTIMEZONE is optional for them) gets one from the engine's zone data,
  // so ical.js reads its local times as the engine does (UNTIL in UTC, say).
  const defined = new Map(zones);
  for (const tzid of eventTzids(calendar)) {
    const iana = defined.has(tzid) ? null : ianaZone(tzid);
    if (iana === null || iana.name === "UTC") continue;
    const text = [
      "BEGIN:VCALENDAR",
      ...vtimezone(iana, GENERATED_FROM, GENERATED_TO).map((l) => (l === `TZID:${iana.name}` ? `TZID:${tzid}` : l)),
      "END:VCALENDAR",
      "",
    ];
    const component = new ICAL.Component(ICAL.parse(text.join("\r\n")) as ConstructorParameters<typeof ICAL.Component>[0]).getFirstSubcomponent("vtimezone");
    if (component !== null) defined.set(tzid, new ICAL.Timezone(component));
  }
  const registered = [...defined.keys()].filter((id) => !ICAL.TimezoneService.has(id));
  for (const id of registered) ICAL.TimezoneService.register(defined.get(id) as InstanceType<typeof ICAL.Timezone>, id);
  try {
    const also = (options.alsoReadIn ?? []).map((r) => ({ zone: zoneRules(r.timeZone), who: r.who })).filter((r) => r.zone.name !== window.name);
    return readEvents(calendar, { window, zones, absolute: options.absolute === true, also });
  } finally {
    for (const id of registered) ICAL.TimezoneService.remove(id);
  }
}

/** The span of a VTIMEZONE made for an IANA TZID: the zone's changes from 1970 to 2100. */
const GENERATED_FROM = Date.UTC(1970, 0, 1);
const GENERATED_TO = Date.UTC(2100, 0, 1);

/** The TZIDs the events' DTSTART, DTEND, EXDATE and RECURRENCE-ID name (read before their values are, which resolve the zone). */
function eventTzids(calendar: Component): Set<string> {
  const out = new Set<string>();
  for (const e of calendar.getAllSubcomponents("vevent")) {
    for (const name of ["dtstart", "dtend", "exdate", "recurrence-id"]) {
      for (const p of e.getAllProperties(name)) {
        const tzid = p.getParameter("tzid");
        if (typeof tzid === "string") out.add(tzid);
      }
    }
  }
  return out;
}

function parseCalendar(text: string): Component {
  if (text.trim() === "") throw new CalendarImportError("the calendar is empty: give an iCalendar file (BEGIN:VCALENDAR ... END:VCALENDAR)");
  let parsed: unknown;
  try {
    parsed = ICAL.parse(text);
  } catch (e) {
    throw new CalendarImportError(`the file is not a valid iCalendar file (RFC 5545): ${(e as Error).message}`, undefined);
  }
  const first = (Array.isArray(parsed) && Array.isArray(parsed[0]) ? parsed[0] : parsed) as unknown[];
  if (!Array.isArray(first) || first[0] !== "vcalendar")
    throw new CalendarImportError("the file is not an iCalendar file: it does not start with BEGIN:VCALENDAR");
  if (Array.isArray(parsed) && Array.isArray(parsed[0]) && parsed.length > 1)
    throw new CalendarImportError(`the file holds ${parsed.length} calendars (VCALENDAR blocks): give one`);
  return new ICAL.Component(first);
}

function readEvents(calendar: Component, reading: Reading): CalendarFreezes {
  const events = calendar.getAllSubcomponents("vevent");
  if (events.length === 0) {
    const other = ["vtodo", "vjournal", "vfreebusy"].filter((k) => calendar.getAllSubcomponents(k).length > 0).map((k) => k.toUpperCase());
    throw new CalendarImportError(`the calendar has no events (VEVENT)${other.length > 0 ? `, only ${other.join(", ")}` : ""}: nothing to import as freezes`);
  }
  const problems: FieldProblem[] = [];
  const freezes: ImportedFreeze[] = [];
  const cancelled: string[] = [];
  const seen = new Map<string, number>();
  const cancelledOccurrences = cancelOccurrences(events);
  events.forEach((event, i) => {
    if (cancelledOccurrences.has(event)) return;
    const uid = textOf(event, "uid");
    const summary = textOf(event, "summary");
    const label = `event ${i + 1}${summary === null ? "" : ` "${summary}"`}${uid === null ? "" : ` (UID ${uid})`}`;
    try {
      if (uid === null) throw new EventRefused("has no UID: a later import could not find its freeze again (RFC 5545 requires one)");
      if (event.hasProperty("recurrence-id"))
        throw new EventRefused(
          "changes one occurrence of a recurring event (RECURRENCE-ID): a freeze cannot hold a moved or changed occurrence; change the series, or leave the occurrence out with EXDATE",
        );
      if (seen.has(uid)) throw new EventRefused(`has the UID of event ${(seen.get(uid) as number) + 1}: each event needs its own UID`);
      seen.set(uid, i);
      if (textOf(event, "status")?.toUpperCase() === "CANCELLED") {
        cancelled.push(uid);
        return;
      }
      if (summary === null) throw new EventRefused("has no SUMMARY: the freeze's reason is the event's summary");
      if (summary.length > MAX_REASON_LENGTH)
        throw new EventRefused(`has a SUMMARY of ${summary.length} characters: a freeze's reason has at most ${MAX_REASON_LENGTH}`);
      freezes.push(eventFreeze(event, uid, summary, reading));
    } catch (e) {
      // ical.js decodes values when they are read, and says what is wrong with a plain Error.
      const invalid = e instanceof Error && e.constructor === Error;
      if (!(e instanceof EventRefused || e instanceof ScheduleError || invalid)) throw e;
      const message = e instanceof ScheduleError ? `cannot be a freeze: ${e.message}` : invalid ? `is not valid iCalendar (RFC 5545): ${e.message}` : e.message;
      problems.push({ path: label, message });
    }
  });
  if (problems.length > 0) {
    const lines = problems.map((p) => `${p.path}: ${p.message}`);
    throw new CalendarImportError(
      `the calendar cannot be imported; ${problems.length === 1 ? "one event" : `${problems.length} events`} refused:\n${lines.join("\n")}`,
      problems,
    );
  }
  return { name: textOf(calendar, "x-wr-calname"), freezes, cancelled };
}

/**
 * Occurrences a calendar cancels one by one (Outlook writes a deleted occurrence as an event with
 * its RECURRENCE-ID and STATUS:CANCELLED): each becomes an EXDATE of its series, as if the series
 * left it out. Returns those events, which are then not events of their own.
 */
function cancelOccurrences(events: readonly Component[]): Set<Component> {
  const out = new Set<Component>();
  for (const e of events) {
    if (!e.hasProperty("recurrence-id") || textOf(e, "status")?.toUpperCase() !== "CANCELLED") continue;
    const uid = textOf(e, "uid");
    const series = events.find((m) => m !== e && !m.hasProperty("recurrence-id") && textOf(m, "uid") === uid && m.hasProperty("rrule"));
    const id = e.getFirstProperty("recurrence-id");
    if (series === undefined || id === null) continue;
    const exdate = series.addPropertyWithValue("exdate", id.getFirstValue());
    const tzid = id.getParameter("tzid");
    if (typeof tzid === "string") exdate.setParameter("tzid", tzid);
    out.add(e);
  }
  return out;
}

function textOf(c: Component, name: string): string | null {
  const v = c.getFirstPropertyValue(name);
  if (typeof v !== "string") return null;
  const t = v.trim();
  return t === "" ? null : t;
}

/** The freeze of one event. */
function eventFreeze(event: Component, uid: string, summary: string, reading: Reading): ImportedFreeze {
  const { window, zones } = reading;
  for (const unsupported of ["rdate", "exrule"]) {
    if (event.hasProperty(unsupported))
      throw new EventRefused(
        `has ${unsupported.toUpperCase()}: only RRULE with EXDATE is imported (a freeze repeats by one rule); split the extra dates into events of their own`,
      );
  }
  if (event.getAllProperties("rrule").length > 1)
    throw new EventRefused("has more than one RRULE: a freeze repeats by one rule; split it into one event per rule");
  const startProp = event.getFirstProperty("dtstart");
  if (startProp === null) throw new EventRefused("has no DTSTART");
  const start = readTime(event, "dtstart", zones, window);
  const end = endOf(event, start, zones, window);
  const length = end.instant - start.instant;
  if (start.allDay !== end.allDay) throw new EventRefused("mixes a date (all-day) with a date-time in DTSTART and DTEND");
  if (length <= 0) throw new EventRefused(`ends at or before it starts (DTSTART ${start.text}, end ${end.text}): a freeze must last a positive time`);
  const days = length / DAY;
  if (days > MAX_EVENT_DAYS)
    throw new EventRefused(
      `lasts ${Math.round(days)} days (${start.text} to ${end.text}): a freeze from a calendar lasts at most ${MAX_EVENT_DAYS} days; check the event's end`,
    );
  const rrule = event.getFirstPropertyValue("rrule");
  if (rrule === null) {
    if (event.hasProperty("exdate")) throw new EventRefused("has EXDATE without RRULE");
    const local = start.zone.floating || !reading.absolute;
    const freeze = { from: localText(start.instant, window, local), to: localText(end.instant, window, local), reason: summary, uid };
    return { uid, summary, kind: start.allDay ? "all-day" : "one-off", freeze };
  }
  return { uid, summary, kind: "recurring", freeze: recurringFreeze(event, uid, summary, String(rrule), start, end, reading) };
}

/** The recurrence freeze of a recurring event, checked against ical.js's own expansion of the event. */
function recurringFreeze(
  event: Component,
  uid: string,
  summary: string,
  written: string,
  start: ReadTime,
  end: ReadTime,
  reading: Reading,
): ImportedFreezeSpec {
  const { window, zones } = reading;
  // An all-day event's UNTIL is a date (RFC 5545: the same value type as DTSTART), the last day it may start on;
  // the window reads it as that day's local midnight, the time its occurrences start.
  const rrule = start.allDay ? written.replace(/(^|;)UNTIL=(\d{8})(?=;|$)/i, "$1UNTIL=$2T000000") : written;
  parseRecurrence(rrule);
  const startWall = start.allDay ? start.wall : window.wallAt(start.instant);
  if (startWall % MINUTE !== 0) throw new EventRefused(`starts at ${start.text}, with seconds: a recurring freeze starts at a whole minute`);
  const exdates: string[] = [];
  for (const prop of event.getAllProperties("exdate")) {
    const tzid = prop.getParameter("tzid");
    for (const v of prop.getValues()) {
      if (!(v instanceof ICAL.Time)) throw new EventRefused("has an EXDATE that is not a date or date-time");
      const x = readTimeValue(
        v,
        typeof tzid === "string" ? tzid : start.zone.iana === "UTC" && start.zone.name === "UTC" ? null : start.zone.name,
        zones,
        window,
      );
      exdates.push(x.allDay ? wallText(x.wall, false) : wallText(window.wallAt(x.instant)));
    }
  }
  const at = wallText(startWall).slice(11, 16);
  const base = { recurrence: rrule, dtstart: wallText(startWall, false), at };
  const tail = { ...(exdates.length > 0 ? { exdates: [...new Set(exdates)].sort() } : {}), reason: summary, uid };
  const length = end.instant - start.instant;
  // An all-day event of one day ends at the next local midnight, 23 or 25 hours later on a day that
  // changes the clocks: endAt says that; a timed event lasts the same exact time each occurrence (RFC 5545 §3.8.5.3).
  const candidates: ImportedFreezeSpec[] =
    start.allDay && end.wall - start.wall === DAY
      ? [{ ...base, endAt: "00:00", ...tail }]
      : [
          { ...base, duration: goDuration(length), ...tail },
          ...(length < DAY ? [{ ...base, endAt: wallText(window.wallAt(end.instant)).slice(11, 16), ...tail }] : []),
        ];
  const walls = icalWalls(event, start);
  const expected = icalIntervals(walls, start, end, window);
  let difference = "";
  for (const candidate of candidates) {
    difference = compare(expected, candidate, window, horizonOf(start, window));
    if (difference !== "") continue;
    // A fleet window's cluster that patches its zone reads the same freeze in its own.
    for (const { zone, who } of reading.also) {
      const there = compare(icalIntervals(walls, start, end, zone), candidate, zone, horizonOf(start, zone));
      if (there !== "") throw new EventRefused(`repeats in a way the fleet window cannot hold exactly on ${who}, which reads it in ${zone.name}: ${there}`);
    }
    return candidate;
  }
  const zoneWords = start.zone.floating || start.zone.iana === window.name ? "" : ` (its times are in ${start.zone.name}, the window's in ${window.name})`;
  throw new EventRefused(`repeats in a way a freeze in ${window.name} cannot hold exactly${zoneWords}: ${difference}`);
}

/** The starts of the event's occurrences as ical.js expands them (RRULE, EXDATE, UNTIL, COUNT), as wall-clock times, a little past CHECK_YEARS of its start. */
function icalWalls(event: Component, start: ReadTime): number[] {
  const last = start.wall + CHECK_YEARS * 366 * DAY + 2 * DAY;
  const iterator = new ICAL.Event(event).iterator();
  const out: number[] = [];
  for (let next = iterator.next(); next !== undefined && next !== null; next = iterator.next()) {
    const wall = Date.UTC(next.year, next.month - 1, next.day, next.isDate ? 0 : next.hour, next.isDate ? 0 : next.minute, next.isDate ? 0 : next.second);
    if (wall > last || out.length >= MAX_CHECKED) break;
    out.push(wall);
  }
  return out;
}

/** Where the comparison of a recurring event stops when read in `reader`: CHECK_YEARS after its DTSTART. */
function horizonOf(start: ReadTime, reader: ZoneRules): number {
  const span = CHECK_YEARS * 366 * DAY;
  return start.zone.floating ? reader.resolveRfc5545(start.wall + span) : start.instant + span;
}

/** The occurrences at `walls` as intervals when the window reads them in `reader` (a floating or all-day event is local wherever it is read). */
function icalIntervals(walls: readonly number[], start: ReadTime, end: ReadTime, reader: ZoneRules): Array<{ start: number; end: number }> {
  const horizon = horizonOf(start, reader);
  const out: Array<{ start: number; end: number }> = [];
  for (const wall of walls) {
    const s = start.zone.floating ? reader.resolveRfc5545(wall) : start.zone.instant(wall);
    if (s >= horizon) break;
    const e = start.allDay ? reader.resolveRfc5545(wall + (end.wall - start.wall)) : s + (end.instant - start.instant);
    out.push({ start: s, end: e });
  }
  return out;
}

/** "" when the engine reads `freeze` as exactly `expected` (both up to `horizon`), else the first difference in words. */
function compare(expected: ReadonlyArray<{ start: number; end: number }>, freeze: ImportedFreezeSpec, window: ZoneRules, horizon: number): string {
  let rule;
  try {
    rule = compileWindow("import", { timeZone: window.name, freezes: [freeze] }).freeze[0];
  } catch (e) {
    if (e instanceof ScheduleError) return e.message;
    throw e;
  }
  if (rule === undefined) return "it compiles to nothing";
  const first = expected[0];
  if (first === undefined) return "it has no occurrence at all";
  const at = (t: number): string => new Date(t).toISOString().replace(/:00\.000Z$/, "Z");
  let t = first.start - 1;
  for (let i = 0; i <= expected.length; i++) {
    const got = rule.after(t);
    const want = expected[i];
    const gotIn = got !== null && got.start < horizon && (want !== undefined || expected.length < MAX_CHECKED);
    if (want === undefined) return gotIn && got !== null ? `the freeze would also start at ${at(got.start)}, which the calendar does not` : "";
    if (!gotIn || got === null) return `the calendar's occurrence at ${at(want.start)} would be missing`;
    if (got.start !== want.start) return `the calendar has an occurrence at ${at(want.start)}, the freeze would start at ${at(got.start)} instead`;
    if (got.end !== want.end) return `the calendar's occurrence at ${at(want.start)} ends at ${at(want.end)}, the freeze's at ${at(got.end)}`;
    t = got.start;
  }
  return "";
}
