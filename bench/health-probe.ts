// The longest /healthz answer of a served process while a bench runs, asked from a worker thread
// (the bench's own thread parses answers and collects its garbage, which must not count as the
// server's), side by side with the same question to a bare node:http server in a process of its own:
// the floor, what the machine itself delays an answer by at that moment (a shared, busy machine stalls
// every process now and then).

import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { Worker } from "node:worker_threads";

/** Asks both servers at once, waits 10 ms, asks again; keeps the longest answers overall and per phase. */
const PROBE = `
const { parentPort, workerData } = require("node:worker_threads");
let phase = workerData.phase;
let probing = true;
const result = { max: 0, floorMax: 0, excessMax: 0, byPhase: {}, excessByPhase: {} };
parentPort.on("message", (m) => {
  if (m.phase !== undefined) phase = m.phase;
  if (m.stop === true) probing = false;
});
async function ask(url) {
  const t = performance.now();
  try {
    const r = await fetch(url + "/healthz");
    await r.text();
  } catch (e) {
    process.stderr.write("GET " + url + "/healthz: " + String(e) + " (" + String(e && e.cause) + ")\\n");
  }
  return performance.now() - t;
}
(async () => {
  // The first answers pay for this thread's first connections and fetch: they are not counted.
  await Promise.all([ask(workerData.url), ask(workerData.floor)]);
  while (probing) {
    const [ms, floor] = await Promise.all([ask(workerData.url), ask(workerData.floor)]);
    result.max = Math.max(result.max, ms);
    result.floorMax = Math.max(result.floorMax, floor);
    result.excessMax = Math.max(result.excessMax, ms - floor);
    result.byPhase[phase] = Math.max(result.byPhase[phase] ?? 0, Math.round(ms));
    result.excessByPhase[phase] = Math.max(result.excessByPhase[phase] ?? 0, Math.round(ms - floor));
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  parentPort.postMessage(result);
})();
`;

/** A bare node:http server answering "ok" at /healthz; prints its port; stops when its standard input closes (the bench ended, however). */
const FLOOR = `
const server = require("node:http").createServer((req, res) => res.end("ok\\n"));
server.listen(0, "127.0.0.1", () => process.stdout.write(server.address().port + "\\n"));
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
`;

export interface HealthFigures {
  /** The longest answer of the server (ms). */
  maxMs: number;
  /** The longest answer of the bare server, asked at the same moments (ms). */
  floorMaxMs: number;
  /** The most the server's answer took longer than the bare server's to the same round of questions (ms). */
  excessMaxMs: number;
  /** The longest answer of the server, by phase (ms). */
  byPhase: Record<string, number>;
  /** The most the server's answer took longer than the bare server's, by phase (ms). */
  excessByPhase: Record<string, number>;
}

export interface HealthProbe {
  /** What runs from now on (the longest answers are also kept per phase). */
  phase(name: string): void;
  /** Stops asking; the longest answers. */
  stop(): Promise<HealthFigures>;
  /** Stops the worker and the bare server at once, without the figures (the bench failed). */
  dispose(): void;
}

/** Starts asking `url`/healthz and a bare server's from a worker thread, in phase `phase`. */
export async function startHealthProbe(url: string, phase: string): Promise<HealthProbe> {
  const floor: ChildProcess = spawn(process.execPath, ["-e", FLOOR], { stdio: ["pipe", "pipe", "inherit"] });
  let worker: Worker;
  try {
    worker = await probeWorker(url, floor, phase);
  } catch (e) {
    floor.kill();
    throw e;
  }
  const result = new Promise<HealthFigures>((resolve, reject) => {
    worker.once("message", (m: { max: number; floorMax: number; excessMax: number; byPhase: Record<string, number>; excessByPhase: Record<string, number> }) =>
      resolve({ maxMs: m.max, floorMaxMs: m.floorMax, excessMaxMs: m.excessMax, byPhase: m.byPhase, excessByPhase: m.excessByPhase }),
    );
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the /healthz probe stopped (exit ${code}) before it answered`)));
  });
  // Unhandled until stop() is awaited: a probe that fails early must not crash the bench before that.
  result.catch(() => undefined);
  const dispose = (): void => {
    floor.kill();
    void worker.terminate();
  };
  return {
    phase: (name) => worker.postMessage({ phase: name }),
    stop: async () => {
      worker.postMessage({ stop: true });
      try {
        return await result;
      } finally {
        dispose();
      }
    },
    dispose,
  };
}

/** The worker that asks, once the bare server `floor` says its port. */
async function probeWorker(url: string, floor: ChildProcess, phase: string): Promise<Worker> {
  const port = await Promise.race([
    once(floor.stdout as NodeJS.ReadableStream, "data").then(([data]) => String(data).trim()),
    once(floor, "exit").then(([code]) => {
      throw new Error(`the bare server for the /healthz floor stopped (exit ${String(code)}) before it listened`);
    }),
  ]);
  return new Worker(PROBE, { eval: true, workerData: { url, floor: `http://127.0.0.1:${port}`, phase } });
}
