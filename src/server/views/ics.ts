// An iCalendar (RFC 5545) feed of a cluster's openings and freezes, for Outlook and Google Calendar to subscribe to.

import { createHash } from "node:crypto";
import { localTime, rfc3339 } from "../../schedule/format.ts";
import { Evaluator, zoneRules, type CompiledWindow, type OverrideInput, type RecurrenceSpec, type Segment, type ZoneRules } from "../../schedule/index.ts";
import type { ClusterModel } from "../model/model.ts";
import { reasonOf } from "../../policy/index.ts";
import { recurrenceEvent, vtimezone, type RecurringEvent } from "./ics-recurrence.ts";
import { overridesFor, targetTimelines, type TimelineSource } from "./views.ts";

/** How far past the range the engine looks, so intervals that cross an edge keep their real start and end (and UID). */
const MARGIN_MS = 31 * 86_400_000;

/** Escapes a TEXT value (RFC 5545 §3.3.11): backslash, semicolon, comma and newlines. */
export function escapeText(text: string): string {
  return text
    .replace(/\\/g, "\\\\")
    .replace(/;/g, "\\;")
    .replace(/,/g, "\\,")
    .replace(/\r\n|\r|\n/g, "\\n");
}

/**
 * Folds a content line (RFC 5545 §3.1): no line longer than 75 octets, continuation lines start
 * with one space, and a UTF-8 character is never split.
 */
export function foldLine(line: string): string {
  const bytes = Buffer.from(line, "utf8");
  if (bytes.length <= 75) return line;
  const parts: string[] = [];
  let start = 0;
  let limit = 75;
  while (start < bytes.length) {
    let end = Math.min(start + limit, bytes.length);
    // Step back over UTF-8 continuation bytes (10xxxxxx) so the cut falls between characters.
    while (end < bytes.length && end > start && ((bytes[end] as number) & 0xc0) === 0x80) end--;
    parts.push(bytes.subarray(start, end).toString("utf8"));
    start = end;
    limit = 74;
  }
  return parts.join("\r\n ");
}

/** A UTC DATE-TIME value: 20261123T070000Z. */
export function icsTime(t: number): string {
  return rfc3339(t).replace(/[-:]/g, "");
}

/** A UID that stays the same for the same interval of the same window, whenever the feed is made. */
function uid(cluster: string, window: string, kind: string, start: number): string {
  const digest = createHash("sha256")
    .update(`${cluster}\0${window}\0${kind}\0${rfc3339(start)}`)
    .digest("hex");
  return `${digest.slice(0, 32)}@fluxgate`;
}

export interface CalendarOptions {
  /** The feed's DTSTAMP (when it was made). */
  now: number;
  from: number;
  to: number;
  /** PRODID's version part. */
  version: string;
}

/** One event of a feed. */
export interface CalendarEvent {
  uid: string;
  start: number;
  end: number;
  summary: string;
  description: string;
  category: string;
  /** A recurring event's own date lines (DTSTART with TZID, DURATION, RRULE, EXDATE), written instead of DTSTART and DTEND of `start` and `end`. */
  lines?: string[] | undefined;
}

/** An open or frozen stretch of one window that starts in the feed's range. */
export interface Stretch {
  state: "open" | "frozen";
  start: number;
  end: number;
  /** The engine's segment: its sentence is made only for the events that are written. */
  segment: Segment;
  /** Why it is frozen (the freeze's reason or label); "" when open. */
  why: string;
}

/** Every opening and frozen stretch of a compiled window, with its overrides, that starts in `[from, to)`. */
export function stretchesOf(compiled: CompiledWindow, overrides: OverrideInput[], options: CalendarOptions): Stretch[] {
  const out: Stretch[] = [];
  const evaluator = new Evaluator([compiled], overrides);
  // A frozen stretch is cut where the freeze that decides changes: a run of holidays is an event per holiday, each named.
  const segments = evaluator
    .segments(options.from - MARGIN_MS, options.to + MARGIN_MS)
    .flatMap((s) => (s.state === "frozen" ? evaluator.segments(s.start, s.end, { byRule: true }) : [s]));
  for (const s of segments) {
    if (s.start < options.from || s.start >= options.to || s.state === "closed") continue;
    const open = s.state === "open";
    out.push({ state: open ? "open" : "frozen", start: s.start, end: s.end, segment: s, why: open ? "" : (s.cause?.reason ?? s.cause?.label ?? "freeze") });
  }
  return out;
}

/** The engine's sentence for a stretch. */
export function reasonText(s: Stretch, zone: ZoneRules): string {
  return reasonOf({ ...s.segment, until: null }, zone, null);
}

/** When a stretch is, in the window's zone and in UTC. */
export function when(s: Stretch, zone: ZoneRules): string {
  return `${localTime(s.start, zone)} – ${localTime(s.end, zone)} (${zone.name})\n${rfc3339(s.start)} – ${rfc3339(s.end)} (UTC)`;
}

/** The feed for one cluster: every opening and every frozen stretch of its valid windows that starts in `[from, to)`. */
export function clusterCalendar(cluster: ClusterModel, options: CalendarOptions): string {
  const name = cluster.entry.name;
  const events: CalendarEvent[] = [];
  const zones = new Map<string, ZoneRules>();
  for (const window of cluster.windows) {
    if (window.compiled === null) continue;
    const zone = window.compiled.zone;
    const stretches = stretchesOf(window.compiled, overridesFor(window.name, cluster.overrides), options);
    // Each recurrence schedule and freeze is one event with its RRULE, for the occurrences that are stretches as they are.
    const carried = new Set<Stretch>();
    for (const e of recurrenceEvents(window.compiled, window.window?.spec, stretches, options, `${name}\0${window.name}`)) {
      const open = e.state === "open";
      for (const s of e.event.stretches) carried.add(s);
      if (zone.name !== "UTC") zones.set(zone.name, zone);
      events.push({
        uid: e.event.uid,
        start: e.event.start,
        end: e.event.start,
        summary: open ? `Open: ${window.name} on ${name}` : `Frozen: ${window.name} on ${name} (${e.why})`,
        description: `${open ? "Open" : "Frozen"} by ${e.label} (${zone.name}).\nTargets of window ${window.name} on cluster ${name} ${open ? "may take changes" : "take no changes"}.`,
        category: open ? "Open" : "Frozen",
        lines: e.event.lines,
      });
    }
    for (const s of stretches) {
      if (carried.has(s)) continue;
      const open = s.state === "open";
      events.push({
        uid: uid(name, window.name, s.state, s.start),
        start: s.start,
        end: s.end,
        summary: open ? `Open: ${window.name} on ${name}` : `Frozen: ${window.name} on ${name} (${s.why})`,
        description: `${reasonText(s, zone)}\nTargets of window ${window.name} on cluster ${name} ${open ? "may take changes" : "take no changes"}.\n${when(s, zone)}`,
        category: open ? "Open" : "Frozen",
      });
    }
  }
  // Open and frozen stretches of one window never start at the same instant, so (start, uid) orders the feed.
  return feed(`fluxgate windows of ${name}`, cluster.entry.timeZone, events, options, [...zones.values()]);
}

/**
 * The feed for one target of a cluster (`KIND/NAMESPACE/NAME`): when it may take changes and when it
 * is frozen, from all its windows and overrides together, as the controller decides (the policy
 * layer's per-target intervals); null when no window of the cluster selects such a target.
 */
export function targetCalendar(cluster: TimelineSource, target: string, options: CalendarOptions): string | null {
  const name = cluster.entry.name;
  const lane = targetTimelines(cluster, options.from - MARGIN_MS, options.to + MARGIN_MS).find((t) => `${t.kind}/${t.namespace}/${t.name}` === target);
  if (lane === undefined) return null;
  const zone = zoneRules(cluster.entry.timeZone);
  const label = `${lane.kind} ${lane.namespace}/${lane.name}`;
  const events: CalendarEvent[] = [];
  for (const seg of lane.segments) {
    const [start, end] = [Date.parse(seg.start), Date.parse(seg.end)];
    if (start < options.from || start >= options.to || (seg.state !== "open" && seg.state !== "frozen")) continue;
    const open = seg.state === "open";
    const why = seg.cause === null ? "" : `${seg.cause.reason ?? seg.cause.label} (window ${seg.cause.window})`;
    events.push({
      uid: uid(name, target, seg.state, start),
      start,
      end,
      summary: `${open ? "Open" : "Frozen"}: ${label} on ${name}${!open && why !== "" ? ` (${why})` : ""}`,
      description: `${label} on cluster ${name} ${open ? "may take changes" : "takes no changes"}${why === "" ? "" : `: ${why}`}, by all its windows (${lane.windows.join(", ")}) and overrides.\n${localTime(start, zone)} – ${localTime(end, zone)} (${zone.name})\n${rfc3339(start)} – ${rfc3339(end)} (UTC)`,
      category: open ? "Open" : "Frozen",
    });
  }
  return feed(`fluxgate: ${label} on ${name}`, cluster.entry.timeZone, events, options);
}

/** The recurrence schedules and freezes of a window as events with their RRULE, each with the stretches it carries. */
export function recurrenceEvents(
  compiled: CompiledWindow,
  spec: { schedules?: readonly RecurrenceSpec[] | undefined; freezes?: readonly RecurrenceSpec[] | undefined } | undefined,
  stretches: readonly Stretch[],
  options: CalendarOptions,
  seed: string,
): Array<{ state: "open" | "frozen"; why: string; label: string; event: RecurringEvent<Stretch> }> {
  const out: Array<{ state: "open" | "frozen"; why: string; label: string; event: RecurringEvent<Stretch> }> = [];
  if (spec === undefined) return out;
  for (const [state, rules, entries] of [
    ["open", compiled.allow, spec.schedules ?? []],
    ["frozen", compiled.freeze, spec.freezes ?? []],
  ] as const) {
    for (const rule of rules) {
      const entry = entries[rule.ref.index];
      if (entry?.recurrence === undefined) continue;
      const event = recurrenceEvent(rule, entry, state, compiled.zone, stretches, options, `${seed}\0${state}\0${rule.ref.index}\0${JSON.stringify(entry)}`);
      if (event !== null) out.push({ state, why: entry.reason ?? rule.ref.label, label: rule.ref.label, event });
    }
  }
  return out;
}

/** The VCALENDAR text of `events`, ordered by start. */
function feed(title: string, timeZone: string, events: CalendarEvent[], options: CalendarOptions, zones: readonly ZoneRules[] = []): string {
  return [...feedParts(title, timeZone, events, options, zones)].join("");
}

/** The VCALENDAR text of `events`, ordered by start, in parts: the head, each event, the end; every line folded and ended with CRLF. */
export function* feedParts(
  title: string,
  timeZone: string,
  events: CalendarEvent[],
  options: CalendarOptions,
  zones: readonly ZoneRules[] = [],
): Generator<string> {
  const text = (lines: readonly string[]): string => lines.map((l) => `${foldLine(l)}\r\n`).join("");
  events.sort((a, b) => a.start - b.start || a.uid.localeCompare(b.uid));
  yield text([
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    `PRODID:-//fluxgate//Config Service ${options.version}//EN`,
    "CALSCALE:GREGORIAN",
    "METHOD:PUBLISH",
    `NAME:${escapeText(title)}`,
    `X-WR-CALNAME:${escapeText(title)}`,
    `X-WR-TIMEZONE:${escapeText(timeZone)}`,
    "REFRESH-INTERVAL;VALUE=DURATION:PT1H",
    "X-PUBLISHED-TTL:PT1H",
  ]);
  // The zones of recurring events' TZIDs, from the engine's zone data.
  for (const zone of zones) yield text(vtimezone(zone, options.from, options.to));
  const stamp = icsTime(options.now);
  for (const e of events) {
    yield text([
      "BEGIN:VEVENT",
      `UID:${e.uid}`,
      `DTSTAMP:${stamp}`,
      ...(e.lines ?? [`DTSTART:${icsTime(e.start)}`, `DTEND:${icsTime(e.end)}`]),
      `SUMMARY:${escapeText(e.summary)}`,
      `DESCRIPTION:${escapeText(e.description)}`,
      `CATEGORIES:${escapeText(e.category)}`,
      "TRANSP:TRANSPARENT",
      "STATUS:CONFIRMED",
      "END:VEVENT",
    ]);
  }
  yield text(["END:VCALENDAR"]);
}
