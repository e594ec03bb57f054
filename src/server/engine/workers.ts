// Worker threads that do the heavy work of requests (previews, timelines, `?pretty`), so no request holds the event loop.

import type { MiddlewareHandler } from "hono";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { EngineJobs, EngineReply, EngineRequest } from "./jobs.ts";

export type { EngineJobs, EngineReply, EngineRequest } from "./jobs.ts";

interface Job {
  request: EngineRequest;
  resolve: (answer: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * Worker threads started on first use and shared by every app in the process. They never keep the
 * process alive; a crashed one is replaced.
 */
class EngineWorkers {
  private readonly size: number;
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Job>();
  private readonly queue: Job[] = [];
  private started = 0;

  constructor(size: number) {
    this.size = size;
  }

  run(request: EngineRequest): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.started < this.size ? this.spawn() : undefined);
      if (worker === undefined) return;
      const job = this.queue.shift() as Job;
      this.busy.set(worker, job);
      worker.ref();
      worker.postMessage(job.request);
    }
  }

  private spawn(): Worker {
    this.started++;
    // The worker module sits next to this one: .ts when run from source, .js when built.
    const file = import.meta.url.endsWith(".ts") ? "./worker.ts" : "./worker.js";
    const worker = new Worker(new URL(file, import.meta.url));
    worker.unref();
    worker.on("message", (reply: EngineReply) => {
      const job = this.busy.get(worker);
      this.busy.delete(worker);
      worker.unref();
      this.idle.push(worker);
      if ("failed" in reply) job?.reject(reply.failed);
      else job?.resolve(reply.answer);
      this.dispatch();
    });
    worker.on("error", (error: Error) => {
      const job = this.busy.get(worker);
      this.busy.delete(worker);
      this.started--;
      job?.reject(error);
      this.dispatch();
    });
    return worker;
  }
}

let workers: EngineWorkers | undefined;

/**
 * Does one piece of the engine's work in a worker thread: the event loop stays free for every
 * other request. Work is queued when every worker is busy.
 *
 * @example const json = await inWorker("timeline", timelineInput(cluster, from, to));
 */
export async function inWorker<K extends keyof EngineJobs>(kind: K, input: EngineJobs[K]["input"]): Promise<EngineJobs[K]["answer"]> {
  // One core for the event loop, the rest (at least one) for the engine.
  workers ??= new EngineWorkers(Math.max(1, Math.min(4, availableParallelism() - 1)));
  return (await workers.run({ kind, input } as EngineRequest)) as EngineJobs[K]["answer"];
}

let turns: Promise<unknown> = Promise.resolve();

/**
 * Runs `work` in an event-loop turn of its own, after the work queued before it. Answers of
 * concurrent requests that are ready at once (timelines from the cache) would otherwise copy their
 * megabytes one after another within one turn: each copy is short, together they hold the loop.
 */
export function inTurn<T>(work: () => T | Promise<T>): Promise<T> {
  // An immediate queued from inside an immediate runs in the next turn, after the timers and I/O that came meanwhile.
  const run = turns.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(work);
  turns = run.catch(() => undefined);
  return run;
}

const JSON_TYPE = /^application\/(?:[a-z0-9._-]+\+)?json(?=$|[;\s])/i;

/**
 * `?pretty` on any /api route: the JSON answer indented with two spaces, as hono's prettyJSON
 * middleware does it, but in a worker thread — a fleet timeline can be tens of megabytes.
 */
export const prettyJsonOffLoop: MiddlewareHandler = async (c, next) => {
  const pretty = c.req.query("pretty") !== undefined;
  await next();
  if (!pretty || !JSON_TYPE.test(c.res.headers.get("content-type") ?? "")) return;
  const answer = c.res;
  const indented = await inWorker("pretty", await inTurn(async () => new Uint8Array(await answer.clone().arrayBuffer())));
  if (indented === null) return;
  await answer.body?.cancel();
  c.res = await inTurn(() => new Response(indented, answer));
  c.res.headers.delete("content-length");
};
