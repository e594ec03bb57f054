// GET /timeline's work: a cluster's timeline computed and serialised in a worker thread, so no timeline holds the event loop.

import { modeOf } from "../../api/index.ts";
import { rawTargets } from "../../policy/index.ts";
import { rfc3339 } from "../../schedule/format.ts";
import { compileWindow, holidayLabelsUsed, type CompiledWindow } from "../../schedule/index.ts";
import { KeptByBytes } from "../model/kept.ts";
import type { TimelineInput } from "../engine/jobs.ts";
import { inTurn, inWorker } from "../engine/workers.ts";
import type { ClusterModel, ClusterPage, Fleet } from "../model/model.ts";
import { compactClusterTimeline, keyCompiled, Recent } from "./timeline-compact.ts";
import { clusterTimeline, type TimelineSource } from "./views.ts";

export type { TimelineInput } from "../engine/jobs.ts";

/** What a cluster's timeline is made from, on this thread (the windows as the model compiled them). */
export function timelineSourceOf(k: ClusterModel): TimelineSource {
  const input = timelineInput(k, 0, 0).cluster;
  return { ...input, windows: input.windows.map((w, i) => ({ ...w, compiled: k.windows[i]?.compiled ?? null })) };
}

/** The part of a cluster a timeline needs. */
export function timelineInput(k: ClusterModel, from: number, to: number): TimelineInput {
  return {
    cluster: {
      entry: { name: k.entry.name, timeZone: k.entry.timeZone, labels: k.entry.labels ?? {} },
      windows: k.windows.map((w) => ({
        name: w.name,
        window: w.compiled === null ? null : w.window,
        problems: w.problems,
        mode: w.window === null || w.compiled === null ? "Suspend" : modeOf(w.window.spec),
        targets: w.window === null || w.compiled === null ? rawTargets((w.manifest as { spec?: unknown } | null)?.spec) : w.window.spec.targets,
      })),
      overrides: k.overrides.map((o) => ({
        name: o.name,
        input: o.input,
        requestedBy: o.requestedBy,
        ...(o.folderFreeze === undefined ? {} : { folderFreeze: o.folderFreeze }),
      })),
      targets: k.targets.map((t) => ({ kind: t.kind, namespace: t.namespace, name: t.name, labels: t.labels })),
    },
    from,
    to,
  };
}

/** A cluster's timeline as UTF-8 JSON (synchronously: call it in a worker, or where blocking is fine). */
export function computeTimeline({ cluster, from, to }: TimelineInput): Uint8Array<ArrayBuffer> {
  // As validateWindow compiles it (model.ts readWindow), for this cluster.
  const context = { cluster: { name: cluster.entry.name, labels: cluster.entry.labels } };
  const windows = cluster.windows.map((w) => ({
    ...w,
    compiled: w.window === null ? null : compileWindow(w.window.metadata.name, w.window.spec, "spec", context),
  }));
  return new TextEncoder().encode(JSON.stringify(clusterTimeline({ ...cluster, windows }, from, to)));
}

/** Windows compiled in this thread, by name and spec: the clusters of a fleet share most of theirs. */
const compiledWindows = new Recent<CompiledWindow>(256);

/** A cluster's timeline in the compact form of the fleet timeline, as UTF-8 JSON (synchronously: call it in a worker). */
export function computeCompactTimeline({ cluster, from, to }: TimelineInput): Uint8Array<ArrayBuffer> {
  const windows = cluster.windows.map((w) => {
    const window = w.window;
    if (window === null) return { ...w, compiled: null };
    // Shared by clusters with the same window, and the same labels where a holiday freeze reads them.
    const used = holidayLabelsUsed(window.spec.freezes, cluster.entry.labels);
    const key = `${window.metadata.name}\0${JSON.stringify(window.spec)}${used === null ? "" : `\0${JSON.stringify(used)}`}`;
    const compiled = compiledWindows.get(key, () => {
      const made = compileWindow(window.metadata.name, window.spec, "spec", { cluster: { name: cluster.entry.name, labels: cluster.entry.labels } });
      keyCompiled(made, key);
      return made;
    });
    return { ...w, compiled };
  });
  return new TextEncoder().encode(JSON.stringify(compactClusterTimeline({ ...cluster, windows }, from, to)));
}

/** The body of GET /clusters/{cluster}/timeline, computed in a worker thread. */
export function clusterTimelineJson(k: ClusterModel, from: number, to: number): Promise<Uint8Array<ArrayBuffer>> {
  return inWorker("timeline", timelineInput(k, from, to));
}

/** Clusters' compact timelines (the fleet timeline's parts), computed in one job of a worker thread: a page is one message each way, not one a cluster. */
export function compactTimelinesJson(ks: readonly ClusterModel[], from: number, to: number): Promise<Uint8Array<ArrayBuffer>[]> {
  return inWorker("compactTimelines", { clusters: ks.map((k) => timelineInput(k, from, to).cluster), from, to });
}

/**
 * Clusters' compact timelines kept per commit and range: the fleet view asks again for the same
 * page as people scroll back and forth, and a timeline changes only with a commit. The oldest go
 * first once they hold more than `maxBytes`.
 */
export class TimelineCache {
  private readonly kept: KeptByBytes<Uint8Array<ArrayBuffer>>;

  constructor(maxBytes = 64 * 1024 * 1024) {
    this.kept = new KeptByBytes(maxBytes);
  }

  /** Timelines given from what was kept. */
  get hits(): number {
    return this.kept.hits;
  }

  /** The compact timeline of cluster `k` of commit `commit` over `[from, to)`, computed once. */
  get(commit: string, k: ClusterModel, from: number, to: number): Promise<Uint8Array<ArrayBuffer>> {
    return this.many(commit, [k], from, to).then((all) => all[0] as Uint8Array<ArrayBuffer>);
  }

  /** The compact timelines of clusters `ks` of commit `commit` over `[from, to)`: those not kept are computed together, once. */
  many(commit: string, ks: readonly ClusterModel[], from: number, to: number): Promise<Uint8Array<ArrayBuffer>[]> {
    const key = (k: ClusterModel): string => `${commit}\0${k.entry.name}\0${from}\0${to}`;
    const missing = ks.filter((k) => !this.kept.has(key(k)));
    let batch: Promise<Uint8Array<ArrayBuffer>[]> | null = null;
    const computed = (): Promise<Uint8Array<ArrayBuffer>[]> => (batch ??= compactTimelinesJson(missing, from, to));
    return Promise.all(
      ks.map((k) =>
        this.kept.get(
          key(k),
          () => computed().then((all) => all[missing.indexOf(k)] as Uint8Array<ArrayBuffer>),
          (json) => json.byteLength,
        ),
      ),
    );
  }
}

const shared = new TimelineCache();

/**
 * The body of GET /timeline: the compact timeline of each cluster of a page, each computed in a
 * worker thread (or taken from the cache of its commit and range). It holds nothing that changes
 * between two requests for the same commit, range and page, so it can be kept and compressed once.
 */
export async function fleetTimelineJson(
  fleet: Fleet,
  page: ClusterPage,
  from: number,
  to: number,
  cache: TimelineCache = shared,
): Promise<Uint8Array<ArrayBuffer>> {
  const clusters = await cache.many(fleet.commit, page.clusters, from, to);
  // The clusters' JSON goes between the brackets of an empty list: the bytes JSON.stringify of the whole would give, with no large string made here.
  const selector = page.selector === null ? {} : { selector: page.selector };
  const frame = JSON.stringify({
    format: "compact",
    from: rfc3339(from),
    to: rfc3339(to),
    commit: fleet.commit,
    ...selector,
    total: page.total,
    continue: page.continue,
    clusters: [],
  });
  const encoder = new TextEncoder();
  const comma = encoder.encode(",");
  return await inTurn(() =>
    Buffer.concat([encoder.encode(frame.slice(0, -2)), ...clusters.flatMap((json, i) => (i === 0 ? [json] : [comma, json])), encoder.encode(frame.slice(-2))]),
  );
}
