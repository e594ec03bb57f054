// The plan of `fluxgate migrate`: ReconciliationWindows equivalent to a cluster's CronJob windows, each with its proof (pure).

import { InputError } from "../errors.ts";
import { Document, isPair, isScalar, visit } from "yaml";
import { API_VERSION, validateWindow } from "../api/index.ts";
import { nextWall, parseCron, ScheduleError, zoneRules } from "../schedule/index.ts";
import { FLUX_NAMESPACE } from "./layout.ts";
import { display, field, str, type Json } from "./objects.ts";
import { cronJobSchedule, firstTie, prove, type LegacyJob, type Proof } from "./proof.ts";
import type { RenderedCluster } from "./render.ts";
import { fluxObjects, governors, selects, type Governor, type Selection } from "./windows.ts";

const DAY = 86_400_000;

/** One new window, the CronJobs it replaces, and the proof that both open at the same times. */
export interface PlannedWindow {
  name: string;
  manifest: Json;
  /** The manifest as written, with a comment saying what it replaces and where its zone comes from. */
  text: string;
  replaces: Governor[];
  zone: string;
  /** Why this zone: the CronJobs' spec.timeZone, or the zone they run in without one. */
  zoneSource: string;
  proof: Proof;
  /** Targets the cluster does not have, kept in the window as the CronJobs named them. */
  warnings: string[];
}

export interface MigrationPlan {
  windows: PlannedWindow[];
  /** CronJob windows that could not be turned into a window, and why. */
  skipped: Array<{ cronJob: string; file: string | null; reason: string }>;
}

export interface MigrateRequest {
  /** The zone of CronJobs that name none (kube-controller-manager's zone); default UTC. */
  defaultZone: string;
  /** Whether defaultZone was given (`--time-zone`), for the explanation. */
  zoneGiven: boolean;
  /** Start of the proof's 366 days. */
  now: number;
}

interface Job {
  governor: Governor;
  schedule: string;
  zone: string;
  zoneSource: string;
  action: "open" | "close";
}

function selectionKey(s: Selection): string {
  return JSON.stringify([s.kind, s.namespace, s.name, s.labelSelector]);
}

/** CronJob names without their open/close words: apps-rw-resume → apps-rw. */
function stem(name: string): string {
  return name.replace(/-?(open|close|opening|closing|resume|suspend|start|stop|begin|end|on|off|enable|disable)(-?job)?$/i, "").replace(/-+$/, "");
}

function windowName(jobs: readonly Job[], targets: readonly Selection[], taken: Set<string>): string {
  const stems = [...new Set(jobs.map((j) => stem(j.governor.object.ref.name)))];
  let base = stems.length === 1 && stems[0] !== "" ? (stems[0] as string) : "";
  if (base === "") {
    const names = jobs.map((j) => j.governor.object.ref.name);
    let prefix = names[0] ?? "";
    for (const n of names) while (!n.startsWith(prefix)) prefix = prefix.slice(0, -1);
    base = prefix.replace(/-+$/, "");
  }
  if (base === "") base = `window-${targets[0]?.name ?? "all"}`;
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}-${i}`;
  taken.add(name);
  return name;
}

/** The next run of a cron after `t` in `zone`, as wall time (for pairing opens with closes). */
function nextRun(schedule: string, zone: string, t: number): number {
  return nextWall(parseCron(schedule), zoneRules(zone).wallAt(t)) ?? Infinity;
}

/**
 * Plans the windows that replace the CronJob windows of a rendered cluster. Jobs that resume and
 * suspend the same targets make one window: each resume schedule becomes a `start`, paired with
 * the suspend schedule that comes first after it as its `end`.
 */
export function planMigration(cluster: RenderedCluster, request: MigrateRequest): MigrationPlan {
  const skipped: MigrationPlan["skipped"] = [];
  const flux = fluxObjects(cluster);
  const jobs: Job[] = [];
  for (const g of governors(cluster, request.now)) {
    if (g.kind !== "CronJob") continue;
    const who = display(g.object.ref);
    if (g.suspended) {
      const schedule = str(field(g.object.body, "spec", "schedule"));
      skipped.push({
        cronJob: who,
        file: g.object.file,
        reason: `it has spec.suspend: true${schedule === undefined ? "" : ` (schedule "${schedule}")`}, so it never runs: a suspended CronJob is not a window (a cluster overlay that forgot its schedule patch?)`,
      });
      continue;
    }
    const actions = new Set(g.actions.map((a) => a.action));
    if (actions.size > 1) {
      skipped.push({ cronJob: who, file: g.object.file, reason: "it both suspends and resumes Flux objects" });
      continue;
    }
    const read = cronJobSchedule(str(field(g.object.body, "spec", "schedule")), str(field(g.object.body, "spec", "timeZone")));
    const schedule = read.schedule;
    let zone = read.zone;
    let zoneSource = read.prefixed ? "the CronJobs' schedule (TZ=)" : "the CronJobs' spec.timeZone";
    if (zone === undefined) {
      zone = request.defaultZone;
      zoneSource = request.zoneGiven
        ? "--time-zone: the CronJobs name no spec.timeZone and run in kube-controller-manager's zone"
        : "the CronJobs name no spec.timeZone: kube-controller-manager's zone, UTC unless it runs with another TZ (say so with --time-zone)";
    }
    try {
      parseCron(schedule);
      zoneRules(zone);
    } catch (e) {
      if (!(e instanceof ScheduleError)) throw e;
      skipped.push({ cronJob: who, file: g.object.file, reason: `its schedule "${schedule}" in ${zone} cannot be read: ${e.detail}` });
      continue;
    }
    jobs.push({ governor: g, schedule, zone, zoneSource, action: [...actions][0] as "open" | "close" });
  }

  // Targets with the same opening and closing jobs share one window.
  const byTarget = new Map<string, { selection: Selection; opens: Set<Job>; closes: Set<Job> }>();
  for (const j of jobs) {
    for (const a of j.governor.actions) {
      const key = selectionKey(a.target);
      const entry = byTarget.get(key) ?? { selection: a.target, opens: new Set<Job>(), closes: new Set<Job>() };
      (j.action === "open" ? entry.opens : entry.closes).add(j);
      byTarget.set(key, entry);
    }
  }
  const groups = new Map<string, { targets: Selection[]; opens: Job[]; closes: Job[] }>();
  const id = (j: Job): string => `${j.governor.object.ref.namespace}/${j.governor.object.ref.name}`;
  for (const t of byTarget.values()) {
    const opens = [...t.opens].sort((a, b) => (id(a) < id(b) ? -1 : 1));
    const closes = [...t.closes].sort((a, b) => (id(a) < id(b) ? -1 : 1));
    const key = `${opens.map(id).join(",")}|${closes.map(id).join(",")}`;
    const g = groups.get(key) ?? { targets: [], opens, closes };
    g.targets.push(t.selection);
    groups.set(key, g);
  }

  const windows: PlannedWindow[] = [];
  const taken = new Set<string>();
  const reported = new Set<Job>();
  for (const g of groups.values()) {
    const all = [...g.opens, ...g.closes];
    const what = g.targets.map((t) => (t.name === null ? `every ${t.kind} in ${t.namespace}` : `${t.kind} ${t.namespace}/${t.name}`)).join(", ");
    if (g.opens.length === 0 || g.closes.length === 0) {
      for (const j of all.filter((x) => !reported.has(x))) {
        reported.add(j);
        skipped.push({
          cronJob: display(j.governor.object.ref),
          file: j.governor.object.file,
          reason:
            g.opens.length === 0 ? `nothing resumes ${what} again: a freeze without an end is not a window` : `nothing suspends ${what}: it is never closed`,
        });
      }
      continue;
    }
    const zone = (g.opens[0] as Job).zone;
    const zoneSource = (g.opens[0] as Job).zoneSource;
    const legacy: LegacyJob[] = all.map((j) => ({ name: id(j), schedule: j.schedule, zone: j.zone, action: j.action }));
    const tie = firstTie(legacy, request.now, request.now + 366 * DAY);
    if (tie !== null) {
      for (const j of all) {
        skipped.push({
          cronJob: display(j.governor.object.ref),
          file: j.governor.object.file,
          reason: `${tie.open} resumes and ${tie.close} suspends ${what} at the same instant (first ${new Date(tie.at).toISOString().replace(".000Z", "Z")}): the order in which two CronJobs run is not defined, so whether the targets are left open is ambiguous; give the jobs different times`,
        });
      }
      continue;
    }
    const schedules: Array<{ start: string; end: string }> = [];
    for (const o of [...new Set(g.opens.map((x) => x.schedule))]) {
      const at = zoneRules(zone).resolve(nextRun(o, zone, request.now));
      const closes = [...new Set(g.closes.map((x) => x.schedule))];
      const end = closes.reduce((best, c) => (nextRun(c, zone, at) < nextRun(best, zone, at) ? c : best), closes[0] as string);
      schedules.push({ start: o, end });
    }
    const name = windowName(all, g.targets, taken);
    const manifest: Json = {
      apiVersion: API_VERSION,
      kind: "ReconciliationWindow",
      metadata: { name, namespace: FLUX_NAMESPACE },
      spec: {
        timeZone: zone,
        schedules,
        targets: g.targets.map((t) => ({
          kind: t.kind,
          ...(t.name !== null ? { name: t.name } : { labelSelector: t.labelSelector ?? {} }),
          ...(t.namespace === FLUX_NAMESPACE ? {} : { namespace: t.namespace }),
        })),
      },
    };
    let compiled;
    try {
      compiled = validateWindow(manifest, request.now).compiled;
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      for (const j of all)
        skipped.push({ cronJob: display(j.governor.object.ref), file: j.governor.object.file, reason: `the window it makes is not valid: ${e.message}` });
      continue;
    }
    const proof = prove(legacy, compiled, request.now, request.now + 366 * DAY);
    const jobsText = all.map((j) => `CronJob ${id(j)}`).join(" and ");
    const warnings = g.targets
      .filter((t) => !flux.some((o) => selects(t, o)))
      .map((t) =>
        t.name === null
          ? `${jobsText} target every ${t.kind} in ${t.namespace}, and the cluster has none (unmatched-target): the window selects them as the jobs did`
          : `${jobsText} target ${t.kind} ${t.namespace}/${t.name}, which the cluster does not have (unmatched-target): the window targets it as the jobs did; check the name`,
      );
    const replaced = all.map((j) => `CronJob ${id(j)} (${j.action === "open" ? "resume" : "suspend"})`).join(", ");
    const header = [`# Replaces ${replaced}; written by fluxgate migrate.`, `# Time zone ${zone}: ${zoneSource}.`];
    for (const w of warnings) header.push(`# Warning: ${w}.`);
    windows.push({
      name,
      manifest,
      text: `${header.join("\n")}\n${manifestText(manifest)}`,
      replaces: all.map((j) => j.governor),
      zone,
      zoneSource,
      proof,
      warnings,
    });
  }
  windows.sort((a, b) => (a.name < b.name ? -1 : 1));
  skipped.sort((a, b) => (a.cronJob < b.cronJob ? -1 : 1));
  return { windows, skipped };
}

/** The manifest as YAML, with cron expressions quoted (`*` cannot start a plain scalar). */
function manifestText(manifest: Json): string {
  const doc = new Document(manifest);
  visit(doc, {
    Pair(_key, pair) {
      if (isPair(pair) && isScalar(pair.key) && (pair.key.value === "start" || pair.key.value === "end") && isScalar(pair.value))
        pair.value.type = "QUOTE_DOUBLE";
    },
  });
  return doc.toString();
}
