// The worker thread of engine-workers.ts: computes one preview or timeline (or indents one JSON answer) per message, off the Config Service's event loop.

import { parentPort } from "node:worker_threads";
import type { EngineJobs, EngineReply, EngineRequest } from "./engine-jobs.ts";
import { computePreview } from "./preview.ts";
import { computeTimeline } from "./timeline.ts";
import { parseRepositoryFile } from "../gitops/files.ts";

function answer(request: EngineRequest): EngineJobs[keyof EngineJobs]["answer"] {
  switch (request.kind) {
    case "preview":
      return computePreview(request.input);
    case "timeline":
      return computeTimeline(request.input);
    case "pretty":
      return indentJson(request.input);
    case "repository":
      return parseRepositoryFile(request.input);
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

parentPort?.on("message", (request: EngineRequest) => {
  let reply: EngineReply;
  try {
    reply = { answer: answer(request) };
  } catch (e) {
    // Sent back rather than thrown: the request fails, the thread stays.
    reply = { failed: e instanceof Error ? e : new Error(String(e)) };
  }
  // JSON bytes are transferred, not copied.
  const bytes = "answer" in reply && reply.answer !== null ? (reply.answer instanceof Uint8Array ? reply.answer : "ok" in reply.answer && reply.answer.ok ? reply.answer.json : null) : null;
  parentPort?.postMessage(reply, bytes === null ? [] : [bytes.buffer]);
});
