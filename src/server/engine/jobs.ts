// What the Config Service's engine workers are given and answer: plain data that crosses between threads.

import type { FieldProblem, ReconciliationWindow } from "../../api/index.ts";
import type { TargetSelector } from "../../policy/index.ts";
import type { OverrideInput } from "../../schedule/index.ts";
import type { FleetCalendarInput, FleetCalendarOutcome } from "../views/fleet-calendar.ts";
import type { RepositoryFile } from "../../gitops/layout.ts";
import type { FreezeImport, FreezeImportRequest } from "../../gitops/calendar/freeze-merge.ts";

/** What a calendar import is planned from: a window file's text and the uploaded calendar. */
export interface FreezeImportInput {
  text: string;
  file: string;
  request: FreezeImportRequest;
  now: number;
}

/** A planned import, or the input error that refused it (its message and problems: an Error's class does not cross threads). */
export type FreezeImportOutcome = { ok: true; plan: FreezeImport } | { ok: false; message: string; problems: FieldProblem[] };

/** What a preview is computed from: plain data, as it crosses to the worker. */
export interface PreviewInput {
  spec: unknown;
  from: number;
  to: number;
  count: number;
  now: number;
}

/**
 * A preview's answer: the response body as UTF-8 JSON (made in the worker and moved, not copied,
 * to the event loop: a large timeline's serialisation would otherwise be done there), or the
 * HTTP error to answer with.
 */
export type PreviewOutcome = { ok: true; json: Uint8Array<ArrayBuffer> } | { ok: false; status: number; message: string; problems: FieldProblem[] };

/**
 * What a cluster's timeline is computed from, as plain data that crosses to a worker: the
 * validated windows rather than their compiled form, which holds class instances and is made
 * again in the worker (compiling does not depend on the time, so it is the same).
 */
export interface TimelineInput {
  cluster: {
    /** `labels`: the cluster's labels in fluxgate.yaml (a holiday freeze may take its country from them). */
    entry: { name: string; timeZone: string; labels: Record<string, string> };
    /** `window` is null when the file is not a valid window; `targets` are read as the controller reads them, even then. */
    windows: { name: string; window: ReconciliationWindow | null; problems: FieldProblem[]; mode: "Suspend" | "Gate"; targets: TargetSelector[] }[];
    /** `folderFreeze`: a fleet folder freeze, and the windows its windowSelector picks (model.ts OverrideRecord). */
    overrides: { name: string; input: OverrideInput | null; requestedBy: string | null; folderFreeze?: { name: string; windows: readonly string[] | null } }[];
    targets: { kind: string; namespace: string; name: string; labels: Record<string, string> }[];
  };
  from: number;
  to: number;
}

/** The kinds of work a worker does: what each is given and what it answers. */
export interface EngineJobs {
  preview: { input: PreviewInput; answer: PreviewOutcome };
  /** A cluster's timeline as UTF-8 JSON. */
  timeline: { input: TimelineInput; answer: Uint8Array<ArrayBuffer> };
  /** The fleet's calendar feed as UTF-8 iCalendar, or why it is refused. */
  calendar: { input: FleetCalendarInput; answer: FleetCalendarOutcome };
  /** Clusters' timelines in the compact form of the fleet timeline, as UTF-8 JSON each: a page's in one job. */
  compactTimelines: { input: { clusters: TimelineInput["cluster"][]; from: number; to: number }; answer: Uint8Array<ArrayBuffer>[] };
  /** A JSON response indented for people (`?pretty`); null when it is not JSON. */
  pretty: { input: Uint8Array; answer: Uint8Array<ArrayBuffer> | null };
  /** A calendar's events as freezes of a window file (each recurring event is checked over ten years: seconds of work). */
  freezeImport: { input: FreezeImportInput; answer: FreezeImportOutcome };
  /** fluxgate.yaml's text read as the repository file (a fleet of thousands of clusters makes it long to read). */
  repository: { input: string; answer: RepositoryFile };
}

/** A message to a worker. */
export type EngineRequest = { [K in keyof EngineJobs]: { kind: K; input: EngineJobs[K]["input"] } }[keyof EngineJobs];

/** A worker's reply: the answer, or the error the work threw (a defect: the request fails with 500). */
export type EngineReply = { answer: EngineJobs[keyof EngineJobs]["answer"] } | { failed: Error };
