// The worker thread of engine-workers.ts: computes one preview or timeline per message, off the Config Service's event loop.

import { parentPort } from "node:worker_threads";
import type { EngineJobs, EngineReply, EngineRequest } from "./engine-workers.ts";
import { computePreview } from "./preview.ts";
import { computeTimeline } from "./timeline.ts";

function answer(request: EngineRequest): EngineJobs[keyof EngineJobs]["answer"] {
  switch (request.kind) {
    case "preview":
      return computePreview(request.input);
    case "timeline":
      return computeTimeline(request.input);
  }
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
  const bytes = "answer" in reply ? (reply.answer instanceof Uint8Array ? reply.answer : reply.answer.ok ? reply.answer.json : null) : null;
  parentPort?.postMessage(reply, bytes === null ? [] : [bytes.buffer]);
});
