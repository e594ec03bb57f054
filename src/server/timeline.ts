// GET /timeline's work: a cluster's timeline computed and serialised in a worker thread, so no timeline holds the event loop.

import { modeOf } from "../api/index.ts";
import { rawTargets } from "../policy/index.ts";
import { rfc3339 } from "../schedule/format.ts";
import { compileWindow } from "../schedule/index.ts";
import type { TimelineInput } from "./engine-jobs.ts";
import { inWorker } from "./engine-workers.ts";
import type { ClusterPage } from "./fleet-page.ts";
import type { ClusterModel, Fleet } from "./model.ts";
import { clusterTimeline, type TimelineSource } from "./views.ts";

export type { TimelineInput } from "./engine-jobs.ts";

/** What a cluster's timeline is made from, on this thread (the windows as the model compiled them). */
export function timelineSourceOf(k: ClusterModel): TimelineSource {
  const input = timelineInput(k, 0, 0).cluster;
  return { ...input, windows: input.windows.map((w, i) => ({ ...w, compiled: k.windows[i]?.compiled ?? null })) };
}

/** The part of a cluster a timeline needs. */
export function timelineInput(k: ClusterModel, from: number, to: number): TimelineInput {
  return {
    cluster: {
      entry: { name: k.entry.name, timeZone: k.entry.timeZone },
      windows: k.windows.map((w) => ({
        name: w.name,
        window: w.compiled === null ? null : w.window,
        problems: w.problems,
        mode: w.window === null || w.compiled === null ? "Suspend" : modeOf(w.window.spec),
        targets: w.window === null || w.compiled === null ? rawTargets((w.manifest as { spec?: unknown } | null)?.spec) : w.window.spec.targets,
      })),
      overrides: k.overrides.map((o) => ({ name: o.name, input: o.input, requestedBy: o.requestedBy })),
      targets: k.targets.map((t) => ({ kind: t.kind, namespace: t.namespace, name: t.name, labels: t.labels })),
    },
    from,
    to,
  };
}

/** A cluster's timeline as UTF-8 JSON (synchronously: call it in a worker, or where blocking is fine). */
export function computeTimeline({ cluster, from, to }: TimelineInput): Uint8Array<ArrayBuffer> {
  // As validateWindow compiles it (model.ts readWindow).
  const windows = cluster.windows.map((w) => ({ ...w, compiled: w.window === null ? null : compileWindow(w.window.metadata.name, w.window.spec, "spec") }));
  return new TextEncoder().encode(JSON.stringify(clusterTimeline({ ...cluster, windows }, from, to)));
}

/** The body of GET /clusters/{cluster}/timeline, computed in a worker thread. */
export function clusterTimelineJson(k: ClusterModel, from: number, to: number): Promise<Uint8Array<ArrayBuffer>> {
  return inWorker("timeline", timelineInput(k, from, to));
}

/** The body of GET /timeline: the timeline of each cluster of a page, each computed in a worker thread. */
export async function fleetTimelineJson(fleet: Fleet, page: ClusterPage, from: number, to: number, now: () => number): Promise<Uint8Array<ArrayBuffer>> {
  const clusters = await Promise.all(page.clusters.map((k) => clusterTimelineJson(k, from, to)));
  // The clusters' JSON goes between the brackets of an empty list: the bytes JSON.stringify of the whole would give, with no large string made here.
  const selector = page.selector === null ? {} : { selector: page.selector };
  const frame = JSON.stringify({ from: rfc3339(from), to: rfc3339(to), now: rfc3339(now()), commit: fleet.commit, ...selector, total: page.total, continue: page.continue, clusters: [] });
  const encoder = new TextEncoder();
  const comma = encoder.encode(",");
  return Buffer.concat([encoder.encode(frame.slice(0, -2)), ...clusters.flatMap((json, i) => (i === 0 ? [json] : [comma, json])), encoder.encode(frame.slice(-2))]);
}
