// The worker thread of POST /preview (preview.ts): computes one preview per message, off the Config Service's event loop.

import { parentPort } from "node:worker_threads";
import { computePreview, type PreviewInput } from "./preview.ts";

parentPort?.on("message", (input: PreviewInput) => {
  const outcome = computePreview(input);
  // The body's bytes are transferred, not copied.
  parentPort?.postMessage(outcome, outcome.ok ? [outcome.json.buffer] : []);
});
