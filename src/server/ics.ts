// An iCalendar (RFC 5545) feed of a cluster's openings and freezes, for Outlook and Google Calendar to subscribe to.

import { createHash } from "node:crypto";
import { localTime, rfc3339 } from "../schedule/format.ts";
import { Evaluator, zoneRules, type CompiledWindow, type OverrideInput, type ZoneRules } from "../schedule/index.ts";
import { InputError } from "../errors.ts";
import type { ClusterModel } from "./model.ts";
import { reasonOf } from "../policy/index.ts";
import { overridesFor, targetTimelines, type TimelineSource } from "./views.ts";

/** How far past the range the engine looks, so intervals that cross an edge keep their real start and end (and UID). */
const MARGIN_MS = 31 * 86_400_000;

/** Escapes a TEXT value (RFC 5545 §3.3.11): backslash, semicolon, comma and newlines. */
export function escapeText(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/;/g, "\\;").replace(/,/g, "\\,").replace(/\r\n|\r|\n/g, "\\n");
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
  const digest = createHash("sha256").update(`${cluster}\0${window}\0${kind}\0${rfc3339(start)}`).digest("hex");
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

interface Event {
  uid: string;
  start: number;
  end: number;
  summary: string;
  description: string;
  category: string;
}

/** An open or frozen stretch of one window that starts in the feed's range. */
interface Stretch {
  state: "open" | "frozen";
  start: number;
  end: number;
  /** The engine's sentence for it. */
  reason: string;
  /** Why it is frozen (the freeze's reason or label); "" when open. */
  why: string;
}

/** Every opening and frozen stretch of a compiled window, with its overrides, that starts in `[from, to)`. */
function stretchesOf(compiled: CompiledWindow, overrides: OverrideInput[], options: CalendarOptions): Stretch[] {
  const out: Stretch[] = [];
  const evaluator = new Evaluator([compiled], overrides);
  for (const s of evaluator.segments(options.from - MARGIN_MS, options.to + MARGIN_MS)) {
    if (s.start < options.from || s.start >= options.to || s.state === "closed") continue;
    const open = s.state === "open";
    out.push({ state: open ? "open" : "frozen", start: s.start, end: s.end, reason: reasonOf({ ...s, until: null }, compiled.zone, null), why: open ? "" : (s.cause?.reason ?? s.cause?.label ?? "freeze") });
  }
  return out;
}

/** When a stretch is, in the window's zone and in UTC. */
function when(s: Stretch, zone: ZoneRules): string {
  return `${localTime(s.start, zone)} – ${localTime(s.end, zone)} (${zone.name})\n${rfc3339(s.start)} – ${rfc3339(s.end)} (UTC)`;
}

/** The feed for one cluster: every opening and every frozen stretch of its valid windows that starts in `[from, to)`. */
export function clusterCalendar(cluster: ClusterModel, options: CalendarOptions): string {
  const name = cluster.entry.name;
  const events: Event[] = [];
  for (const window of cluster.windows) {
    if (window.compiled === null) continue;
    const zone = window.compiled.zone;
    for (const s of stretchesOf(window.compiled, overridesFor(window.name, cluster.overrides), options)) {
      const open = s.state === "open";
      events.push({
        uid: uid(name, window.name, s.state, s.start),
        start: s.start,
        end: s.end,
        summary: open ? `Open: ${window.name} on ${name}` : `Frozen: ${window.name} on ${name} (${s.why})`,
        description: `${s.reason}\nTargets of window ${window.name} on cluster ${name} ${open ? "may take changes" : "take no changes"}.\n${when(s, zone)}`,
        category: open ? "Open" : "Frozen",
      });
    }
  }
  // Open and frozen stretches of one window never start at the same instant, so (start, uid) orders the feed.
  return feed(`fluxgate windows of ${name}`, cluster.entry.timeZone, events, options);
}

/** At most this many events in a fleet's feed: past it, the request names fewer clusters or a shorter range. */
export const MAX_FLEET_EVENTS = 20_000;

/** At most this many clusters are named in one event's description; the rest are counted. */
const NAMED_CLUSTERS = 50;

/** A fleet's feed has more events than MAX_FLEET_EVENTS. */
export class CalendarTooLargeError extends InputError {}

/**
 * The feed for many clusters (a fleet, or those a selector matches): the openings and frozen
 * stretches of their windows as each cluster runs them (fleet windows as kustomize renders them
 * for the cluster, patches applied, with the cluster's overrides), one event for all the clusters
 * whose window of a name has the same stretch, saying which clusters. `window` keeps one window name.
 * Windows alike are evaluated once, so a fleet of thousands costs what its distinct windows cost.
 */
export function fleetCalendar(clusters: readonly ClusterModel[], options: CalendarOptions & { title: string; window?: string | undefined; maxEvents?: number }): string {
  const max = options.maxEvents ?? MAX_FLEET_EVENTS;
  // Clusters whose window of a name has the same spec, zone and overrides share one evaluation.
  const alike = new Map<string, { name: string; compiled: CompiledWindow; overrides: OverrideInput[]; clusters: number[] }>();
  clusters.forEach((k, index) => {
    for (const w of k.windows) {
      if (w.compiled === null || w.window === null || (options.window !== undefined && w.name !== options.window)) continue;
      const overrides = overridesFor(w.name, k.overrides);
      const key = JSON.stringify([w.name, w.window.spec, overrides]);
      const group = alike.get(key);
      if (group === undefined) alike.set(key, { name: w.name, compiled: w.compiled, overrides, clusters: [index] });
      else group.clusters.push(index);
    }
  });
  // Windows written differently that run the same stretch (another target, say) are one event too.
  const merged = new Map<string, { name: string; stretch: Stretch; zone: ZoneRules; clusters: number[] }>();
  for (const group of alike.values()) {
    for (const s of stretchesOf(group.compiled, group.overrides, options)) {
      const key = `${group.name}\0${s.state}\0${s.start}\0${s.end}\0${s.why}\0${group.compiled.zone.name}`;
      const event = merged.get(key);
      if (event === undefined) merged.set(key, { name: group.name, stretch: s, zone: group.compiled.zone, clusters: [...group.clusters] });
      else event.clusters.push(...group.clusters);
      if (merged.size > max) {
        throw new CalendarTooLargeError(`the feed would hold more than ${max} events: choose fewer clusters (?selector=), one window (?window=) or a shorter range (?from=&to=)`);
      }
    }
  }
  const events: Event[] = [];
  for (const [key, e] of merged) {
    const names = e.clusters.sort((a, b) => a - b).map((i) => (clusters[i] as ClusterModel).entry.name);
    const on = names.length === 1 ? (names[0] as string) : `${names.length} clusters`;
    const listed = names.length <= NAMED_CLUSTERS ? names.join(", ") : `${names.slice(0, NAMED_CLUSTERS).join(", ")} and ${names.length - NAMED_CLUSTERS} more`;
    const open = e.stretch.state === "open";
    events.push({
      uid: `${createHash("sha256").update(`fleet\0${key}`).digest("hex").slice(0, 32)}@fluxgate`,
      start: e.stretch.start,
      end: e.stretch.end,
      summary: open ? `Open: ${e.name} on ${on}` : `Frozen: ${e.name} on ${on} (${e.stretch.why})`,
      description: `${e.stretch.reason}\nTargets of window ${e.name} ${open ? "may take changes" : "take no changes"} on ${names.length === 1 ? "cluster" : `${names.length} clusters`}: ${listed}.\n${when(e.stretch, e.zone)}`,
      category: open ? "Open" : "Frozen",
    });
  }
  return feed(options.title, "UTC", events, options);
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
  const events: Event[] = [];
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

/** The VCALENDAR text of `events`, ordered by start. */
function feed(title: string, timeZone: string, events: Event[], options: CalendarOptions): string {
  events.sort((a, b) => a.start - b.start || a.uid.localeCompare(b.uid));
  const lines = [
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
  ];
  const stamp = icsTime(options.now);
  for (const e of events) {
    lines.push(
      "BEGIN:VEVENT",
      `UID:${e.uid}`,
      `DTSTAMP:${stamp}`,
      `DTSTART:${icsTime(e.start)}`,
      `DTEND:${icsTime(e.end)}`,
      `SUMMARY:${escapeText(e.summary)}`,
      `DESCRIPTION:${escapeText(e.description)}`,
      `CATEGORIES:${escapeText(e.category)}`,
      "TRANSP:TRANSPARENT",
      "STATUS:CONFIRMED",
      "END:VEVENT",
    );
  }
  lines.push("END:VCALENDAR");
  return `${lines.map(foldLine).join("\r\n")}\r\n`;
}
