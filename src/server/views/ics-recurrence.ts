// A recurrence schedule or freeze in a calendar feed as one event with its RRULE (and EXDATE, TZID, VTIMEZONE), not one event per occurrence.
//
// The feed's stretches are the window's merged state (allow minus freezes, with overrides): an
// occurrence of a rule is one stretch only when nothing cut it or joined it to another. The
// rule's event carries the occurrences that are such stretches; every other day its RRULE picks
// is an EXDATE, and those stretches stay events of their own. ical.js reads the event back as
// written (its zone from the VTIMEZONE made from the engine's zone data) before it is used, so
// the event means exactly the stretches it replaces, or is not written.

import { createHash } from "node:crypto";
import ICAL from "ical.js";
import { wallValue, vtimezone } from "../../gitops/calendar/vtimezone.ts";
import type { CompiledWindow, RecurrenceSpec, Segment, ZoneRules } from "../../schedule/index.ts";

export { vtimezone } from "../../gitops/calendar/vtimezone.ts";

type Rule = CompiledWindow["allow"][number];
/** What ical.js says of one occurrence (its declared type does not resolve). */
type Occurrence = { startDate: InstanceType<typeof ICAL.Time>; endDate: InstanceType<typeof ICAL.Time> };

/** What the feed knows of one stretch (ics.ts's Stretch). */
export interface Stretch {
  state: "open" | "frozen";
  start: number;
  end: number;
  segment: Segment;
}

/** A feed event given by its own date lines (DTSTART, DURATION, RRULE, EXDATE) instead of one start and end. */
export interface RecurringEvent<S extends Stretch = Stretch> {
  uid: string;
  /** Its first start: the feed is ordered by it. */
  start: number;
  /** The content lines between UID and SUMMARY. */
  lines: string[];
  /** The stretches it stands for (taken out of the feed's one-off events). */
  stretches: Set<S>;
}

function utcValue(t: number): string {
  return `${wallValue(t)}Z`;
}

/** An RRULE for the feed: the rule as written, its COUNT and UNTIL replaced by an UNTIL at the last occurrence the event carries. */
function feedRule(spec: string, until: number): string {
  const parts = spec
    .trim()
    .replace(/^RRULE:/i, "")
    .split(";")
    .filter((p) => p.trim() !== "" && !/^\s*(COUNT|UNTIL)\s*=/i.test(p));
  return [...parts.map((p) => p.trim().toUpperCase()), `UNTIL=${utcValue(until)}`].join(";");
}

/** A date line of an event in `zone`: a TZID'd local time (the instant's own, so a start moved past a gap is written where it is), or UTC. */
function timeLine(name: string, t: number, zone: ZoneRules): string {
  return zone.name === "UTC" ? `${name}:${utcValue(t)}` : `${name};TZID=${zone.name}:${wallValue(zone.wallAt(t))}`;
}

/** What ical.js makes of the event: each occurrence's start and end (epoch ms), in order. */
function readBack(lines: readonly string[], zone: ZoneRules, range: { from: number; to: number }, until: number): Array<{ start: number; end: number }> {
  const text = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//fluxgate//check//EN",
    ...(zone.name === "UTC" ? [] : vtimezone(zone, range.from, range.to)),
    "BEGIN:VEVENT",
    "UID:check",
    "DTSTAMP:20260101T000000Z",
    ...lines,
    "END:VEVENT",
    "END:VCALENDAR",
    "",
  ].join("\r\n");
  const calendar = new ICAL.Component(ICAL.parse(text) as ConstructorParameters<typeof ICAL.Component>[0]);
  const tz = calendar.getFirstSubcomponent("vtimezone");
  // ical.js resolves TZIDs through one registry for the process: this zone is registered for this synchronous read only.
  const registered = tz !== null && !ICAL.TimezoneService.has(zone.name);
  if (tz !== null && registered) ICAL.TimezoneService.register(new ICAL.Timezone(tz), zone.name);
  try {
    const event = new ICAL.Event(calendar.getFirstSubcomponent("vevent") ?? undefined);
    const out: Array<{ start: number; end: number }> = [];
    const iterator = event.iterator();
    for (let next = iterator.next(); next; next = iterator.next()) {
      const details = event.getOccurrenceDetails(next) as Occurrence;
      const start = details.startDate.toUnixTime() * 1000;
      if (start > until) break;
      out.push({ start, end: details.endDate.toUnixTime() * 1000 });
    }
    return out;
  } finally {
    if (registered) ICAL.TimezoneService.remove(zone.name);
  }
}

/**
 * The event of one recurrence rule of a window (a schedule for `state` "open", a freeze for
 * "frozen"), carrying the stretches among `stretches` that are exactly one of its occurrences;
 * null when none is. `uidSeed` makes its UID (the same rule, the same UID, feed after feed).
 */
export function recurrenceEvent<S extends Stretch>(
  rule: Rule,
  spec: RecurrenceSpec,
  state: "open" | "frozen",
  zone: ZoneRules,
  stretches: readonly S[],
  range: { from: number; to: number },
  uidSeed: string,
): RecurringEvent<S> | null {
  if (spec.recurrence === undefined) return null;
  const own = new Map<number, S>();
  for (const s of stretches) {
    const c = s.segment.cause;
    if (s.state === state && !s.segment.overridden && c !== null && c.kind === rule.ref.kind && c.index === rule.ref.index && c.window === rule.ref.window)
      own.set(s.start, s);
  }
  // The rule's occurrences that start in the range and are a stretch of their own, as they are.
  const carried: S[] = [];
  for (let iv = rule.after(range.from - 1); iv !== null && iv.start < range.to; iv = rule.after(iv.start)) {
    const s = own.get(iv.start);
    if (s !== undefined && s.end === iv.end) carried.push(s);
  }
  const first = carried[0];
  const last = carried[carried.length - 1];
  if (first === undefined || last === undefined) return null;
  const length = first.end - first.start;
  const lines = [timeLine("DTSTART", first.start, zone), `DURATION:PT${Math.round(length / 1000)}S`, `RRULE:${feedRule(spec.recurrence, last.start)}`];
  // What a calendar program will make of it: each of its occurrences is a carried stretch, or is left out.
  const byStart = new Map(carried.map((s) => [s.start, s]));
  const kept = new Set<S>();
  const exdates: number[] = [];
  for (const o of readBack(lines, zone, range, last.start)) {
    const s = byStart.get(o.start);
    if (s !== undefined && s.end === o.end) kept.add(s);
    else exdates.push(o.start);
  }
  if (kept.size === 0) return null;
  for (const x of exdates) lines.push(timeLine("EXDATE", x, zone));
  // EXDATE can only take occurrences out; check once more that what is left is what is carried.
  if (exdates.length > 0) {
    const left = readBack(lines, zone, range, last.start);
    if (left.length !== kept.size || left.some((o) => byStart.get(o.start)?.end !== o.end)) return null;
  }
  const uid = `${createHash("sha256").update(uidSeed).digest("hex").slice(0, 32)}@fluxgate`;
  return { uid, start: first.start, lines, stretches: kept };
}
