// GET /timeline's work: a cluster's timeline computed and serialised in a worker thread, so no timeline holds the event loop.

import { modeOf } from "../api/index.ts";
import { rawTargets } from "../policy/index.ts";
import { rfc3339 } from "../schedule/format.ts";
import { compileWindow } from "../schedule/index.ts";
import type { TimelineInput } from "./engine-jobs.ts";
import { inTurn, inWorker } from "./engine-workers.ts";
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

/**
 * Clusters' timelines kept per commit and range: the fleet view asks again for the same page as
 * people scroll back and forth, and a timeline changes only with a commit. The oldest go first
 * once they hold more than `maxBytes`.
 */
export class TimelineCache {
  private readonly entries = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();
  private readonly sizes = new Map<string, number>();
  private bytes = 0;
  private readonly maxBytes: number;
  hits = 0;

  constructor(maxBytes = 64 * 1024 * 1024) {
    this.maxBytes = maxBytes;
  }

  /** The timeline of cluster `k` of commit `commit` over `[from, to)`, computed once. */
  get(commit: string, k: ClusterModel, from: number, to: number): Promise<Uint8Array<ArrayBuffer>> {
    const key = `${commit}\0${k.entry.name}\0${from}\0${to}`;
    const known = this.entries.get(key);
    if (known !== undefined) {
      this.hits++;
      // Used again: it goes to the end of the eviction order.
      this.entries.delete(key);
      this.entries.set(key, known);
      return known;
    }
    const made = clusterTimelineJson(k, from, to);
    this.entries.set(key, made);
    made.then(
      (json) => {
        if (this.entries.get(key) !== made) return;
        this.sizes.set(key, json.byteLength);
        this.bytes += json.byteLength;
        for (const [old] of this.entries) {
          if (this.bytes <= this.maxBytes) break;
          this.bytes -= this.sizes.get(old) ?? 0;
          this.sizes.delete(old);
          this.entries.delete(old);
        }
      },
      () => this.entries.delete(key),
    );
    return made;
  }
}

const shared = new TimelineCache();

/** The body of GET /timeline: the timeline of each cluster of a page, each computed in a worker thread (or taken from the cache of its commit and range). */
export async function fleetTimelineJson(fleet: Fleet, page: ClusterPage, from: number, to: number, now: () => number, cache: TimelineCache = shared): Promise<Uint8Array<ArrayBuffer>> {
  const clusters = await Promise.all(page.clusters.map((k) => cache.get(fleet.commit, k, from, to)));
  // The clusters' JSON goes between the brackets of an empty list: the bytes JSON.stringify of the whole would give, with no large string made here.
  const selector = page.selector === null ? {} : { selector: page.selector };
  const frame = JSON.stringify({ from: rfc3339(from), to: rfc3339(to), now: rfc3339(now()), commit: fleet.commit, ...selector, total: page.total, continue: page.continue, clusters: [] });
  const encoder = new TextEncoder();
  const comma = encoder.encode(",");
  return await inTurn(() => Buffer.concat([encoder.encode(frame.slice(0, -2)), ...clusters.flatMap((json, i) => (i === 0 ? [json] : [comma, json])), encoder.encode(frame.slice(-2))]));
}
