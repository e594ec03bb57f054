// The longest /healthz answer of a served process while a bench runs, asked from a worker thread:
// the bench's own thread parses answers and collects its garbage, which must not count as the server's.

import { Worker } from "node:worker_threads";

/** Asks for /healthz, waits 10 ms, asks again; keeps the longest answer overall and per phase. */
const PROBE = `
const { parentPort, workerData } = require("node:worker_threads");
let phase = workerData.phase;
let probing = true;
const byPhase = {};
let max = 0;
parentPort.on("message", (m) => {
  if (m.phase !== undefined) phase = m.phase;
  if (m.stop === true) probing = false;
});
(async () => {
  // The first answer pays for this thread's first connection and fetch: it is not counted.
  await fetch(workerData.url + "/healthz").then((r) => r.text()).catch(() => undefined);
  while (probing) {
    const t = performance.now();
    try {
      const r = await fetch(workerData.url + "/healthz");
      await r.text();
    } catch (e) {
      process.stderr.write("GET /healthz: " + String(e) + " (" + String(e && e.cause) + ")\\n");
    }
    const ms = performance.now() - t;
    max = Math.max(max, ms);
    byPhase[phase] = Math.max(byPhase[phase] ?? 0, Math.round(ms));
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  parentPort.postMessage({ max, byPhase });
})();
`;

export interface HealthProbe {
  /** What runs from now on (the longest answer is also kept per phase). */
  phase(name: string): void;
  /** Stops asking; the longest answer (ms) overall and per phase. */
  stop(): Promise<{ maxMs: number; byPhase: Record<string, number> }>;
}

/** Starts asking `url`/healthz from a worker thread, in phase `phase`. */
export function startHealthProbe(url: string, phase: string): HealthProbe {
  const worker = new Worker(PROBE, { eval: true, workerData: { url, phase } });
  const result = new Promise<{ maxMs: number; byPhase: Record<string, number> }>((resolve, reject) => {
    worker.once("message", (m: { max: number; byPhase: Record<string, number> }) => resolve({ maxMs: m.max, byPhase: m.byPhase }));
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the /healthz probe stopped (exit ${code}) before it answered`)));
  });
  // Unhandled until stop() is awaited: a probe that fails early must not crash the bench before that.
  result.catch(() => undefined);
  return {
    phase: (name) => worker.postMessage({ phase: name }),
    stop: async () => {
      worker.postMessage({ stop: true });
      try {
        return await result;
      } finally {
        await worker.terminate();
      }
    },
  };
}
