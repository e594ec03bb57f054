// POST /preview's work, the editor's validation and timeline of a window spec, done in a worker thread so no preview holds the event loop.

import { InputError, inContext } from "../../errors.ts";
import { validateTiming, validateWindow, type ReconciliationWindowSpec } from "../../api/index.ts";
import { rfc3339 } from "../../schedule/format.ts";
import { Evaluator, ScheduleError, type CompiledWindow } from "../../schedule/index.ts";
import { windowManifest } from "../git/edits.ts";
import type { PreviewInput, PreviewOutcome } from "./jobs.ts";
import { inWorker } from "./workers.ts";
import { nextOpenings, windowTimeline } from "../views/views.ts";

export type { PreviewInput, PreviewOutcome } from "./jobs.ts";

/**
 * Most changes of state a preview shows. A spec that flips every minute would otherwise make a
 * 93-day preview of ~130,000 segments (30 MB), from any caller who may read.
 */
export const MAX_PREVIEW_CHANGES = 20_000;

/** Computes a preview (synchronously: call it in a worker, or where blocking is fine). */
export function computePreview(input: PreviewInput): PreviewOutcome {
  try {
    return { ok: true, json: new TextEncoder().encode(JSON.stringify(preview(input))) };
  } catch (e) {
    // The engine's limits (a range with too many changes) are the caller's to narrow.
    if (e instanceof ScheduleError)
      return { ok: false, status: 400, message: e.message, problems: e.problems.map((p) => ({ path: p.path || "to", message: p.message })) };
    if (!(e instanceof InputError)) throw e;
    return { ok: false, status: 400, message: e.message, problems: [...e.problems] };
  }
}

function preview({ spec, from, to, count, now }: PreviewInput): Record<string, unknown> {
  if (typeof spec !== "object" || spec === null || Array.isArray(spec))
    throw new InputError("spec must be an object", { problems: [{ path: "spec", message: "must be an object" }] });
  const s = spec as Record<string, unknown>;
  const compiled: CompiledWindow = inContext({ heading: "the window is not valid" }, () => {
    // The timing is what a preview needs; with targets, the whole spec is checked at once, so the editor shows every problem.
    if (s.targets !== undefined) return validateWindow(windowManifest("preview", s as ReconciliationWindowSpec), now).compiled;
    const timing = { timeZone: s.timeZone, schedules: s.schedules, freezes: s.freezes };
    return validateTiming(Object.fromEntries(Object.entries(timing).filter(([, v]) => v !== undefined)), "preview", now).compiled;
  });
  // The allow and freeze rules each get their own rows in the timeline: each is bounded, not only the result.
  for (const rules of [{ ...compiled, freeze: [] }, { ...compiled, allow: compiled.freeze, freeze: [] }, compiled]) {
    const changes = new Evaluator([rules]).transitions(from, MAX_PREVIEW_CHANGES, to);
    if (changes.length === MAX_PREVIEW_CHANGES && (changes[changes.length - 1] as { at: number }).at < to) {
      throw new InputError(`the window changes state more than ${MAX_PREVIEW_CHANGES} times between from and to; preview a shorter range`, {
        problems: [{ path: "to", message: `the preview would have more than ${MAX_PREVIEW_CHANGES} changes of state` }],
      });
    }
  }
  return {
    valid: true,
    timeZone: compiled.zone.name,
    from: rfc3339(from),
    to: rfc3339(to),
    nextOpenings: nextOpenings(new Evaluator([compiled]), from, count),
    timeline: windowTimeline("preview", compiled, [], from, to),
  };
}

/** Computes a preview in a worker thread: the event loop stays free for every other request. */
export function previewInWorker(input: PreviewInput): Promise<PreviewOutcome> {
  return inWorker("preview", input);
}
