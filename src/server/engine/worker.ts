// The worker thread of engine/workers.ts: computes one preview, timeline or fleet calendar (or indents one JSON answer) per message, off the Config Service's
// event loop.

import { parentPort } from "node:worker_threads";
import type { EngineJobs, EngineReply, EngineRequest } from "./jobs.ts";
import { computeFleetCalendar } from "../views/fleet-calendar.ts";
import { computePreview } from "./preview.ts";
import { computeCompactTimeline, computeTimeline } from "../views/timeline.ts";
import { parseRepositoryFile } from "../../gitops/files.ts";
import { planFreezeImport } from "../../gitops/calendar/freeze-merge.ts";
import { InputError } from "../../errors.ts";

function answer(request: EngineRequest): EngineJobs[keyof EngineJobs]["answer"] {
  switch (request.kind) {
    case "preview":
      return computePreview(request.input);
    case "timeline":
      return computeTimeline(request.input);
    case "calendar":
      return computeFleetCalendar(request.input);
    case "compactTimelines":
      return request.input.clusters.map((cluster) => computeCompactTimeline({ cluster, from: request.input.from, to: request.input.to }));
    case "pretty":
      return indentJson(request.input);
    case "repository":
      return parseRepositoryFile(request.input);
    case "freezeImport":
      try {
        return { ok: true, plan: planFreezeImport(request.input.text, request.input.file, request.input.request, request.input.now) };
      } catch (e) {
        if (!(e instanceof InputError)) throw e;
        return { ok: false, message: e.message, problems: [...e.problems] };
      }
  }
}

/** As hono's prettyJSON middleware does it: parsed and written again with two spaces; null when not JSON. */
function indentJson(bytes: Uint8Array): Uint8Array<ArrayBuffer> | null {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
  return new TextEncoder().encode(JSON.stringify(value, null, 2));
}

/** The bytes of an answer, which are moved to the event loop rather than copied; null when it has none. */
function bytesOf(answer: EngineJobs[keyof EngineJobs]["answer"]): Uint8Array<ArrayBuffer>[] {
  if (answer === null) return [];
  if (answer instanceof Uint8Array) return [answer];
  if (Array.isArray(answer)) return answer;
  if (!("ok" in answer) || !answer.ok || "plan" in answer) return [];
  return ["json" in answer ? answer.json : answer.ics];
}

parentPort?.on("message", (request: EngineRequest) => {
  let reply: EngineReply;
  try {
    reply = { answer: answer(request) };
  } catch (e) {
    // Sent back rather than thrown: the request fails, the thread stays.
    reply = { failed: e instanceof Error ? e : new Error(String(e)) };
  }
  // JSON bytes are transferred, not copied.
  const bytes = "answer" in reply ? bytesOf(reply.answer) : [];
  parentPort?.postMessage(
    reply,
    bytes.map((b) => b.buffer),
  );
});
