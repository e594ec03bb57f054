// The Config Service in a process of its own, with probes of its event loop: engine.eventloop.test.ts starts it as a child process.
//
// Usage: node eventloop-server.ts REPO. Sends {port} on the IPC channel once it listens; on "start" it
// starts measuring, on "stop" it answers with what it measured, on "close" it stops serving and exits.

import { monitorEventLoopDelay } from "node:perf_hooks";
import { startService } from "../../../src/server/server.ts";
import { anonymousServiceOptions } from "../../support/server.ts";

/** What the probes saw between "start" and "stop". */
export interface LoopReport {
  /** Longest stretch of CPU time the event loop's thread spent between two turns of a 5 ms timer: how long work held the loop. */
  maxBusyMs: number;
  /** Longest delay of the event loop (wall clock, node:perf_hooks): work held it, or the machine gave the process no core. */
  maxDelayMs: number;
  /** Median of that delay. */
  medianDelayMs: number;
  /** Turns of the timer seen: the probe ran the whole time. */
  ticks: number;
}

const TICK_MS = 5;

/**
 * Measures the CPU time of this thread between turns of a 5 ms timer. Unlike the loop's wall-clock
 * delay, it does not grow when a loaded machine leaves the process waiting for a core (or the
 * virtual machine waiting for the host), so a bound on it holds on a shared machine, and it still
 * fails when a request's work runs on the event loop.
 */
function busyProbe(): { stop: () => Pick<LoopReport, "maxBusyMs" | "ticks"> } {
  const cpu = (): number => {
    const used = process.threadCpuUsage();
    return (used.user + used.system) / 1000;
  };
  let last = cpu();
  let maxBusyMs = 0;
  let ticks = 0;
  const turn = (): void => {
    const now = cpu();
    maxBusyMs = Math.max(maxBusyMs, now - last);
    last = now;
  };
  const timer = setInterval(() => {
    turn();
    ticks++;
  }, TICK_MS);
  return {
    stop: () => {
      clearInterval(timer);
      // The stretch since the last turn counts too: work that held the loop until the end is not missed.
      turn();
      return { maxBusyMs, ticks };
    },
  };
}

const repo = process.argv[2];
if (repo === undefined || process.send === undefined) throw new Error("usage: node eventloop-server.ts REPO, started with an IPC channel");
const service = await startService(anonymousServiceOptions(repo));
let delay = monitorEventLoopDelay({ resolution: TICK_MS });
let busy: ReturnType<typeof busyProbe> | null = null;
process.on("message", (message: string) => {
  if (message === "start") {
    delay = monitorEventLoopDelay({ resolution: TICK_MS });
    delay.enable();
    busy = busyProbe();
  } else if (message === "stop" && busy !== null) {
    delay.disable();
    const report: LoopReport = { ...busy.stop(), maxDelayMs: delay.max / 1e6, medianDelayMs: delay.percentile(50) / 1e6 };
    process.send?.(report);
  } else if (message === "close") {
    void service.close().then(() => process.exit(0));
  }
});
// Left alone when the test process goes away.
process.on("disconnect", () => process.exit(1));
process.send({ port: service.port });
