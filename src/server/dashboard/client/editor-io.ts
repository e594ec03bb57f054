/// <reference lib="dom" />
// What the window editor reads and writes: a cluster's own window (PUT /clusters/{c}/windows/{name}) or a fleet window's base (POST /fleet/windows, PUT
// /fleet/windows/{name}).

import { useEffect, useRef, useState } from "preact/hooks";
import type { FieldProblem } from "../../../api/index.ts";
import type { FleetWindowListing } from "../../../gitops/fleet/windows.ts";
import type { IntervalView, WindowTimeline, WindowView } from "../../views/views.ts";
import { ApiError, call } from "./api.ts";

/** POST /preview's answer: the next openings and a week's timeline of a spec. */
export interface Preview {
  timeZone: string;
  from: string;
  to: string;
  nextOpenings: IntervalView[];
  timeline: WindowTimeline;
}

/**
 * Checks `spec` as the controller would (POST /preview) a moment after it stops changing: its
 * problems by field path, or its preview. Only the newest answer counts.
 */
export function usePreview(spec: unknown): { preview: Preview | null; problems: FieldProblem[]; setProblems: (p: FieldProblem[]) => void; checking: boolean } {
  const [problems, setProblems] = useState<FieldProblem[]>([]);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [checking, setChecking] = useState(false);
  const sequence = useRef(0);
  const specText = JSON.stringify(spec);
  useEffect(() => {
    if (spec === null) return;
    const mine = ++sequence.current;
    setChecking(true);
    const timer = setTimeout(() => {
      call<Preview>("POST", "/api/v1/preview", { body: { spec } })
        .then((answer) => {
          if (mine !== sequence.current) return;
          setPreview(answer.body);
          setProblems([]);
        })
        .catch((e: unknown) => {
          if (mine !== sequence.current) return;
          setProblems(e instanceof ApiError && e.problems.length > 0 ? e.problems : [{ path: "", message: e instanceof Error ? e.message : String(e) }]);
        })
        .finally(() => {
          if (mine === sequence.current) setChecking(false);
        });
    }, 250);
    return () => clearTimeout(timer);
  }, [specText]);

  return { preview, problems, setProblems, checking };
}

/** What the editor edits: a window of `cluster`, or (cluster null) a fleet window's base, shared by every cluster that includes it. `name` null: a new one. */
export interface Subject {
  cluster: string | null;
  name: string | null;
}

/** A fleet window as GET /fleet/windows/{name} gives it: its listing, its base's spec and version. */
export interface FleetWindowRead extends FleetWindowListing {
  etag: string;
  spec: unknown;
}

/**
 * What the editor loads: the spec and its version; for a cluster's window its view (whose `fleet` says when it is a fleet window), for a fleet window its
 * listing.
 */
export interface LoadedWindow {
  spec: unknown;
  etag: string | null;
  view: WindowView | null;
  fleet: FleetWindowRead | null;
}

/** A save's commit, the version it left, and what it reached in words. */
export interface SavedWindow {
  commit: string;
  changed: boolean;
  pushed: boolean;
  etag: string | null;
  /** e.g. "for 6 clusters: edge-1, edge-2, ..." */
  note: string;
}

const clusterBase = (cluster: string): string => `/api/v1/clusters/${encodeURIComponent(cluster)}/windows`;

/** Loads an existing window (the subject has a name). */
export async function loadWindow(subject: Subject & { name: string }): Promise<LoadedWindow> {
  if (subject.cluster === null) {
    const answer = await call<FleetWindowRead>("GET", `/api/v1/fleet/windows/${encodeURIComponent(subject.name)}`);
    return { spec: answer.body.spec, etag: answer.body.etag, view: null, fleet: answer.body };
  }
  const answer = await call<WindowView>("GET", `${clusterBase(subject.cluster)}/${encodeURIComponent(subject.name)}`);
  return { spec: answer.body.spec, etag: answer.etag, view: answer.body, fleet: null };
}

function clustersText(clusters: readonly string[]): string {
  const shown = clusters.slice(0, 10).join(", ");
  return `${clusters.length} cluster${clusters.length === 1 ? "" : "s"}${clusters.length === 0 ? "" : `: ${shown}${clusters.length > 10 ? ", …" : ""}`}`;
}

/**
 * Saves `spec` as one commit: a cluster's window (created when `etag` is null), a new fleet
 * window for the clusters `selector` matches, or a fleet window's base (sent with If-Match).
 */
export async function saveWindow(subject: Subject, name: string, selector: string, spec: unknown, reason: string, etag: string | null): Promise<SavedWindow> {
  const version: Record<string, string> = etag === null ? { "If-None-Match": "*" } : { "If-Match": `"${etag}"` };
  if (subject.cluster !== null) {
    const answer = await call<{ commit: string; changed: boolean; pushed: boolean; window: WindowView }>(
      "PUT",
      `${clusterBase(subject.cluster)}/${encodeURIComponent(name)}`,
      { body: { spec, reason }, headers: version },
    );
    return { ...answer.body, etag: answer.body.window.etag, note: "" };
  }
  if (subject.name === null) {
    const added = await call<{ commit: string; pushed: boolean; clusters: string[] }>("POST", "/api/v1/fleet/windows", {
      body: { name, selector, spec, reason },
    });
    // The new base's version, so the next save from this page changes exactly it.
    const read = await call<FleetWindowRead>("GET", `/api/v1/fleet/windows/${encodeURIComponent(name)}`);
    return { commit: added.body.commit, changed: true, pushed: added.body.pushed, etag: read.body.etag, note: `for ${clustersText(added.body.clusters)}` };
  }
  const answer = await call<{ commit: string; changed: boolean; pushed: boolean; clusters: number }>(
    "PUT",
    `/api/v1/fleet/windows/${encodeURIComponent(name)}`,
    { body: { spec, reason }, headers: { "If-Match": `"${etag ?? ""}"` } },
  );
  return { ...answer.body, etag: answer.etag, note: `for the ${answer.body.clusters} cluster${answer.body.clusters === 1 ? "" : "s"} that include it` };
}

/** The dashboard's address of a window once saved. */
export function windowHash(subject: Subject, name: string): string {
  return subject.cluster === null ? `#/f/w/${encodeURIComponent(name)}` : `#/c/${encodeURIComponent(subject.cluster)}/w/${encodeURIComponent(name)}`;
}
