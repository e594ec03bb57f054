// The fleet's calendar feed: the windows of many clusters grouped where they are alike (on the event loop, in slices), then evaluated and written in an engine
// worker.

import { createHash } from "node:crypto";
import type { ReconciliationWindow } from "../../api/index.ts";
import { compileWindow, holidayLabelsUsed, type ClusterContext, type OverrideInput, type ZoneRules } from "../../schedule/index.ts";
import type { RecurringEvent } from "./ics-recurrence.ts";
import { feedParts, reasonText, recurrenceEvents, stretchesOf, when, type CalendarEvent, type CalendarOptions, type Stretch } from "./ics.ts";
import type { ClusterModel } from "../model/model.ts";
import { overridesFor } from "./views.ts";

/** At most this many events in a fleet's feed: past it, the request names fewer clusters, one window or a shorter range. */
export const MAX_FLEET_EVENTS = 20_000;

/** At most this many clusters are named in one event's description; the rest are counted. */
const NAMED_CLUSTERS = 50;

/** How long grouping holds the event loop before it lets other requests in. */
const SLICE_MS = 20;

/** What the feed is made from, as plain data that crosses to a worker: each group of clusters whose window of a name is alike, evaluated once. */
export interface FleetCalendarInput extends CalendarOptions {
  title: string;
  maxEvents: number;
  /** The selected clusters' names, in fluxgate.yaml's order. */
  names: string[];
  /** `cluster`: the first cluster's name and labels, for a window whose holiday freeze reads them (the group's clusters have the same such labels). */
  groups: Array<{ name: string; window: ReconciliationWindow; overrides: OverrideInput[]; clusters: number[]; cluster: ClusterContext }>;
}

/** The feed as UTF-8 bytes (moved, not copied, from the worker), or why it is refused. */
export type FleetCalendarOutcome = { ok: true; ics: Uint8Array<ArrayBuffer> } | { ok: false; message: string };

/**
 * Groups the windows of `clusters` that have the same name, spec and overrides (one group for the
 * clusters that take a fleet window as its base says, one for each patch that differs); `window`
 * keeps one window name. The work yields the event loop every SLICE_MS.
 */
export async function fleetCalendarInput(
  clusters: readonly ClusterModel[],
  options: CalendarOptions & { title: string; window?: string | undefined; maxEvents?: number },
): Promise<FleetCalendarInput> {
  const groups = new Map<string, FleetCalendarInput["groups"][number]>();
  let started = performance.now();
  for (let index = 0; index < clusters.length; index++) {
    const k = clusters[index] as ClusterModel;
    for (const w of k.windows) {
      if (w.compiled === null || w.window === null || (options.window !== undefined && w.name !== options.window)) continue;
      const overrides = overridesFor(w.name, k.overrides);
      // Clusters whose holiday freeze reads other labels (another country) have another window.
      const labels = k.entry.labels ?? {};
      const key = JSON.stringify([w.name, w.window.spec, overrides, holidayLabelsUsed(w.window.spec.freezes, labels)]);
      const group = groups.get(key);
      if (group === undefined) groups.set(key, { name: w.name, window: w.window, overrides, clusters: [index], cluster: { name: k.entry.name, labels } });
      else group.clusters.push(index);
    }
    if (performance.now() - started > SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      started = performance.now();
    }
  }
  return {
    now: options.now,
    from: options.from,
    to: options.to,
    version: options.version,
    title: options.title,
    maxEvents: options.maxEvents ?? MAX_FLEET_EVENTS,
    names: clusters.map((k) => k.entry.name),
    groups: [...groups.values()],
  };
}

/** The clusters an event is for, as its description names them: the first NAMED_CLUSTERS, then how many more. */
function listed(names: readonly string[]): { count: number; text: string } {
  const text = names.length <= NAMED_CLUSTERS ? names.join(", ") : `${names.slice(0, NAMED_CLUSTERS).join(", ")} and ${names.length - NAMED_CLUSTERS} more`;
  return { count: names.length, text };
}

/**
 * The feed (in a worker): the openings and frozen stretches of each group's window, one event for
 * all the clusters whose window of a name has the same stretch (windows written differently that
 * run the same stretch, another target say, are one event too), saying which clusters. Refused,
 * never cut short, past `maxEvents`.
 */
export function computeFleetCalendar(input: FleetCalendarInput): FleetCalendarOutcome {
  type Group = FleetCalendarInput["groups"][number] & { listed?: { count: number; text: string } };
  const merged = new Map<string, { name: string; stretch: Stretch; groups: Group[] }>();
  // A recurrence schedule or freeze is one event with its RRULE, for all the clusters whose window writes it alike.
  const rules = new Map<string, { name: string; state: "open" | "frozen"; why: string; label: string; event: RecurringEvent<Stretch>; groups: Group[] }>();
  const zones = new Map<Group, ReturnType<typeof compileWindow>["zone"]>();
  const tzids = new Map<string, ZoneRules>();
  for (const group of input.groups as Group[]) {
    const compiled = compileWindow(group.window.metadata.name, group.window.spec, "spec", { cluster: group.cluster });
    zones.set(group, compiled.zone);
    const stretches = stretchesOf(compiled, group.overrides, input);
    const carried = new Set<Stretch>();
    for (const e of recurrenceEvents(compiled, group.window.spec, stretches, input, `fleet\0${group.name}`)) {
      for (const s of e.event.stretches) carried.add(s);
      if (compiled.zone.name !== "UTC") tzids.set(compiled.zone.name, compiled.zone);
      const key = `${group.name}\0${e.state}\0${e.why}\0${e.event.lines.join("\n")}`;
      const rule = rules.get(key);
      if (rule === undefined) rules.set(key, { name: group.name, ...e, groups: [group] });
      else rule.groups.push(group);
    }
    for (const s of stretches) {
      if (carried.has(s)) continue;
      const key = `${group.name}\0${s.state}\0${s.start}\0${s.end}\0${s.why}\0${compiled.zone.name}`;
      const event = merged.get(key);
      if (event === undefined) merged.set(key, { name: group.name, stretch: s, groups: [group] });
      else event.groups.push(group);
      if (merged.size + rules.size > input.maxEvents) {
        return {
          ok: false,
          message: `the feed would hold more than ${input.maxEvents} events: choose fewer clusters (?selector=), one window (?window=) or a shorter range (?from=&to=)`,
        };
      }
    }
  }
  const nameOf = (i: number): string => input.names[i] as string;
  const events: CalendarEvent[] = [];
  for (const [key, r] of rules) {
    const on = listed(
      r.groups
        .flatMap((g) => g.clusters)
        .sort((a, b) => a - b)
        .map(nameOf),
    );
    const open = r.state === "open";
    const who = on.count === 1 ? on.text : `${on.count} clusters`;
    events.push({
      uid: `${createHash("sha256").update(`fleet-rule\0${key}`).digest("hex").slice(0, 32)}@fluxgate`,
      start: r.event.start,
      end: r.event.start,
      summary: open ? `Open: ${r.name} on ${who}` : `Frozen: ${r.name} on ${who} (${r.why})`,
      description: `${open ? "Open" : "Frozen"} by ${r.label}.\nTargets of window ${r.name} ${open ? "may take changes" : "take no changes"} on ${on.count === 1 ? "cluster" : `${on.count} clusters`}: ${on.text}.`,
      category: open ? "Open" : "Frozen",
      lines: r.event.lines,
    });
  }
  for (const [key, e] of merged) {
    const first = e.groups[0] as Group;
    const on =
      e.groups.length === 1
        ? (first.listed ??= listed(first.clusters.map(nameOf)))
        : listed(
            e.groups
              .flatMap((g) => g.clusters)
              .sort((a, b) => a - b)
              .map(nameOf),
          );
    const zone = zones.get(first) as ReturnType<typeof compileWindow>["zone"];
    const open = e.stretch.state === "open";
    const who = on.count === 1 ? on.text : `${on.count} clusters`;
    events.push({
      uid: `${createHash("sha256").update(`fleet\0${key}`).digest("hex").slice(0, 32)}@fluxgate`,
      start: e.stretch.start,
      end: e.stretch.end,
      summary: open ? `Open: ${e.name} on ${who}` : `Frozen: ${e.name} on ${who} (${e.stretch.why})`,
      description: `${reasonText(e.stretch, zone)}\nTargets of window ${e.name} ${open ? "may take changes" : "take no changes"} on ${on.count === 1 ? "cluster" : `${on.count} clusters`}: ${on.text}.\n${when(e.stretch, zone)}`,
      category: open ? "Open" : "Frozen",
    });
  }
  return { ok: true, ics: new TextEncoder().encode([...feedParts(input.title, "UTC", events, input, [...tzids.values()])].join("")) };
}
