// Pushed status under load: N clusters posting signed events to `fluxgate serve` (its own process, SQLite), steady and in a fleet-wide burst.

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { Agent, request } from "node:http";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { buildCli } from "../scripts/bundle.ts";
import { freePort } from "../src/devenv/process.ts";
import { repoRoot } from "../src/devenv/paths.ts";
import { signatureOf } from "../src/server/status/keys.ts";
import { SqliteStore } from "../src/server/status/sqlite.ts";
import type { PushedEvent } from "../src/server/status/store.ts";
import { fleetFiles } from "./check.ts";
import { pool, servedUrl } from "./fleet.ts";
import type { BenchLine } from "./schedule.ts";

const run = promisify(execFile);

/** What one load run measured. */
export interface PushLoad extends BenchLine {
  bench: "push.ingest";
  clusters: number;
  /** Events posted and acknowledged (202), and rows found in the store afterwards: nothing may be lost. */
  posted: number;
  acknowledged: number;
  rows: number;
  lost: number;
  steadyPerSecond: number;
  steadyP50Ms: number;
  steadyP99Ms: number;
  /** Every cluster posting one event at once, 100 posts in flight: as fast as the server takes them. */
  burstSeconds: number;
  burstP50Ms: number;
  burstP99Ms: number;
  /** Every cluster posting one event within one second, each when its turn comes (spread evenly), whatever is in flight: a fleet-wide transition. */
  secondP50Ms: number;
  secondP99Ms: number;
  /** How long it took until the last of them was acknowledged. */
  secondSeconds: number;
  fleetStatusP50Ms: number;
  fleetStatusP95Ms: number;
  /** The fleet status read every FLEET_READ_EVERY_MS while the burst and the second's posts run: how many reads, p50, p95. */
  fleetStatusDuringBurstReads: number;
  fleetStatusDuringBurstP50Ms: number;
  fleetStatusDuringBurstP95Ms: number;
  /** The server's CPU time over the whole run, and its resident memory at the end. */
  serverCpuMs: number;
  serverRssMiB: number;
  /** The sender's (this process's) CPU time over the run: it shares the machine with the server. */
  senderCpuMs: number;
  /** The machine's 1-minute load average at the start and at the end: the machine is shared. */
  loadAverageStart: number;
  loadAverageEnd: number;
}

/** How often the fleet status is read while events arrive: a few people opening the dashboard during a fleet-wide transition. */
export const FLEET_READ_EVERY_MS = 250;

/** Reads the fleet status every `everyMs` until `done` settles, each read's time in `into`: the view while events arrive. */
async function readWhile(url: string, done: Promise<unknown>, everyMs: number, into: number[]): Promise<void> {
  let finished = false;
  // Whether the posts succeeded is theirs to say: here only that they ended.
  const ended = done.then(
    () => void (finished = true),
    () => void (finished = true),
  );
  while (!finished) {
    const t = performance.now();
    const r = await fetch(`${url}/api/v1/fleet/status`);
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`GET /api/v1/fleet/status answered ${r.status} during the burst`);
    into.push(performance.now() - t);
    const wait = t + everyMs - performance.now();
    if (wait > 0 && !finished) await Promise.race([sleep(wait), ended]);
  }
}

function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return Math.round((sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0) * 10) / 10;
}

/** utime + stime (ms) and RSS (MiB) of a process, from /proc. */
async function usage(pid: number): Promise<{ cpuMs: number; rssMiB: number }> {
  const stat = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]?.split(" ") ?? [];
  const ticks = Number(stat[11]) + Number(stat[12]);
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return { cpuMs: ticks * 10, rssMiB: Math.round(rssKb / 1024) };
}

/**
 * Posts `body` with node:http over `agent`'s kept-alive connections and resolves with the status:
 * the sender shares the machine's cores with the server, and fetch's web streams cost it about
 * twice the CPU a post needs.
 */
function postTo(agent: Agent, url: URL, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", agent, headers: { ...headers, "content-length": String(Buffer.byteLength(body)) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * Serves a generated fleet of `clusters` with the event receiver on (SQLite), then: `steadySeconds`
 * of every cluster posting an event a minute (compressed: the fleet's rate, spread evenly), a burst
 * of one event from every cluster at once, and 50 reads of the fleet status. Loopback only.
 * `main` is the CLI entry that serves: the TypeScript sources, or a build (buildCli in
 * scripts/bundle.ts) to measure the service as it is installed.
 */
export async function pushLoad(clusters: number, steadySeconds: number, main = join(repoRoot, "src", "cli", "main.ts")): Promise<PushLoad> {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-bench-push-"));
  const child = { stop: (): Promise<void> => Promise.resolve() } as { stop: () => Promise<void>; pid?: number };
  const agent = new Agent({ keepAlive: true });
  try {
    const repo = join(dir, "fleet");
    for (const [path, text] of fleetFiles(clusters, 1)) {
      await mkdir(dirname(join(repo, path)), { recursive: true });
      await writeFile(join(repo, path), text);
    }
    await run("git", ["init", "--quiet", "--initial-branch=main"], { cwd: repo });
    await run("git", ["add", "--all"], { cwd: repo });
    await run("git", ["-c", "user.name=bench", "-c", "user.email=bench@fluxgate.invalid", "commit", "--quiet", "-m", "fleet"], { cwd: repo });
    const keys = Array.from({ length: clusters }, (_, c) => ({ cluster: `edge-${c}`, key: `fgk_${randomBytes(32).toString("base64url")}` }));
    const keysFile = join(dir, "cluster-keys.yaml");
    await writeFile(keysFile, `clusters:\n${keys.map((k) => `  - {cluster: ${k.cluster}, key: ${k.key}}`).join("\n")}\n`, { mode: 0o600 });
    const port = await freePort();
    const proc = spawn(
      process.execPath,
      [
        main,
        "serve",
        "--repo",
        repo,
        "--anonymous-read",
        "--port",
        String(port),
        "--sync-interval",
        "0",
        "--cluster-keys",
        keysFile,
        "--store",
        join(dir, "status.db"),
      ],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    // Stopped as an operator would (SIGTERM), so that a profile asked for with NODE_OPTIONS=--cpu-prof is written; killed if it hangs.
    const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
    child.stop = async () => {
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    };
    child.pid = proc.pid;
    const url = await servedUrl(proc);
    const loadAverageStart = loadavg()[0] ?? 0;
    const senderCpu = process.cpuUsage();
    const start = await usage(proc.pid as number);
    let posted = 0;
    let acknowledged = 0;
    let sequence = 0;
    const post = async (c: number): Promise<number> => {
      const { cluster, key } = keys[c] as { cluster: string; key: string };
      const body = JSON.stringify({
        involvedObject: { kind: "Kustomization", namespace: "flux-system", name: `apps-${sequence++ % 3}` },
        severity: "info",
        timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
        message: "Suspended by window apps-rw",
        reason: "WindowClosed",
        metadata: {
          window: "apps-rw",
          state: "closed",
          nextChange: "2026-11-24T07:00:00Z",
          pendingRevision: "main@sha1:4b825dc",
          pendingSince: "2026-11-23T09:30:00Z",
        },
        reportingController: "fluxgate",
      });
      const began = performance.now();
      posted++;
      const status = await postTo(
        agent,
        new URL(`${url}/api/v1/clusters/${cluster}/events`),
        { "content-type": "application/json", "x-signature": signatureOf(key, body) },
        body,
      );
      if (status === 202) acknowledged++;
      return performance.now() - began;
    };

    // Steady: the whole fleet's rate of one event per cluster per minute, spread evenly.
    const steady: number[] = [];
    const perSecond = clusters / 60;
    const steadyCount = Math.max(1, Math.round(perSecond * steadySeconds));
    const began = performance.now();
    const inFlight: Array<Promise<void>> = [];
    for (let i = 0; i < steadyCount; i++) {
      const due = began + (i / perSecond) * 1000;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      inFlight.push(post(i % clusters).then((ms) => void steady.push(ms)));
    }
    await Promise.all(inFlight);

    // Burst: a fleet-wide transition, every cluster at once (100 connections in flight).
    const burst: number[] = [];
    const during: number[] = [];
    const burstBegan = performance.now();
    const burstDone = pool(
      Array.from({ length: clusters }, (_, c) => c),
      100,
      async (c) => void burst.push(await post(c)),
    );
    await Promise.all([burstDone, readWhile(url, burstDone, FLEET_READ_EVERY_MS, during)]);
    const burstSeconds = (performance.now() - burstBegan) / 1000;

    // Within a second: each cluster's post at its own instant of the second, not waiting for others.
    const second: number[] = [];
    const secondBegan = performance.now();
    const posts: Array<Promise<void>> = [];
    let allPosted = (): void => undefined;
    const secondDone = new Promise<void>((resolve) => (allPosted = resolve)).then(() => Promise.all(posts));
    const reading = readWhile(url, secondDone, FLEET_READ_EVERY_MS, during);
    for (let c = 0; c < clusters; c++) {
      const wait = secondBegan + (c / clusters) * 1000 - performance.now();
      if (wait > 0) await sleep(wait);
      posts.push(post(c).then((ms) => void second.push(ms)));
    }
    allPosted();
    await Promise.all([secondDone, reading]);
    const secondSeconds = (performance.now() - secondBegan) / 1000;

    const reads: number[] = [];
    let rows = 0;
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      const r = await fetch(`${url}/api/v1/fleet/status`);
      const body = (await r.json()) as { totals: { targets: number } };
      reads.push(performance.now() - t);
      rows = body.totals.targets;
    }
    const end = await usage(proc.pid as number);
    const sender = process.cpuUsage(senderCpu);
    // Each cluster posted about targets apps-0..2: the rows the store must hold.
    const expected = new Set<string>();
    for (let i = 0; i < sequence; i++) expected.add(`${i < steadyCount ? i % clusters : (i - steadyCount) % clusters}|${i % 3}`);
    return {
      bench: "push.ingest",
      clusters,
      posted,
      acknowledged,
      rows,
      lost: Math.max(0, expected.size - rows),
      steadyPerSecond: Math.round(perSecond * 10) / 10,
      steadyP50Ms: percentile(steady, 50),
      steadyP99Ms: percentile(steady, 99),
      burstSeconds: Math.round(burstSeconds * 100) / 100,
      burstP50Ms: percentile(burst, 50),
      burstP99Ms: percentile(burst, 99),
      secondP50Ms: percentile(second, 50),
      secondP99Ms: percentile(second, 99),
      secondSeconds: Math.round(secondSeconds * 100) / 100,
      fleetStatusP50Ms: percentile(reads, 50),
      fleetStatusP95Ms: percentile(reads, 95),
      fleetStatusDuringBurstReads: during.length,
      fleetStatusDuringBurstP50Ms: percentile(during, 50),
      fleetStatusDuringBurstP95Ms: percentile(during, 95),
      serverCpuMs: end.cpuMs - start.cpuMs,
      serverRssMiB: end.rssMiB,
      senderCpuMs: Math.round((sender.user + sender.system) / 1000),
      loadAverageStart: Math.round(loadAverageStart * 10) / 10,
      loadAverageEnd: Math.round((loadavg()[0] ?? 0) * 10) / 10,
    };
  } finally {
    agent.destroy();
    await child.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** `pushLoad` against `fluxgate serve` as it is installed (dist/), from one build of the CLI. */
export async function pushLoadBuilt(clusters: number, steadySeconds: number): Promise<PushLoad> {
  const cli = await buildCli();
  try {
    return await pushLoad(clusters, steadySeconds, cli.main);
  } finally {
    await cli.remove();
  }
}

/** What recording a fleet-wide transition costs the status store alone, on the event loop that serves requests. */
export interface StoreBurst extends BenchLine {
  bench: "push.store";
  events: number;
  /** Every event recorded (durable) after it arrived: p50 and p99 of the wait. */
  recordP50Ms: number;
  recordP99Ms: number;
  /** From the first arrival until the last event was durable. */
  seconds: number;
  /** CPU time of the event loop's thread over the burst, and the longest it was held (its delay, sampled every ms). */
  loopCpuMs: number;
  loopHeldMaxMs: number;
}

/**
 * `events` events of distinct clusters arriving within one second (one each 1/events s) at the
 * SQLite store in this process, each recorded as it arrives, as the receiver does: what the store
 * costs the event loop, apart from HTTP and the machine's other work.
 */
export async function storeBurst(events: number): Promise<StoreBurst> {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-bench-store-"));
  const store = SqliteStore.open(join(dir, "status.db"));
  try {
    const at = Date.now();
    const event = (c: number): PushedEvent => ({
      cluster: `edge-${c}`,
      kind: "Kustomization",
      namespace: "flux-system",
      name: "apps",
      eventAt: at,
      receivedAt: at,
      reason: "WindowClosed",
      severity: "info",
      message: "Suspended by window apps-rw",
      state: "closed",
      windows: "apps-rw",
      nextChange: "",
      pendingRevision: "main@sha1:4b825dc",
      pendingSince: "2026-11-23T09:30:00Z",
      appliedRevision: null,
      since: "",
      suspended: "true",
      gated: "",
      violation: "",
      upcoming: null,
      upcomingAt: null,
      upcomingWindow: null,
    });
    // Warm-up: the schema, the statements and the writer are ready before the burst.
    await store.record({ ...event(-1), name: "warm-up" });
    const delay = monitorEventLoopDelay({ resolution: 1 });
    const waits: number[] = [];
    const cpu = process.threadCpuUsage();
    delay.enable();
    const began = performance.now();
    const records: Array<Promise<void>> = [];
    for (let c = 0; c < events; c++) {
      const wait = began + (c / events) * 1000 - performance.now();
      if (wait > 0) await sleep(wait);
      const arrived = performance.now();
      records.push(store.record(event(c)).then(() => void waits.push(performance.now() - arrived)));
    }
    await Promise.all(records);
    const seconds = (performance.now() - began) / 1000;
    delay.disable();
    const used = process.threadCpuUsage(cpu);
    return {
      bench: "push.store",
      events,
      recordP50Ms: percentile(waits, 50),
      recordP99Ms: percentile(waits, 99),
      seconds: Math.round(seconds * 100) / 100,
      loopCpuMs: Math.round((used.user + used.system) / 1000),
      loopHeldMaxMs: Math.round(delay.max / 1e5) / 10,
    };
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}
