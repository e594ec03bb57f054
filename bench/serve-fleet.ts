// `fluxgate serve` over a generated fleet with fleet windows (its own process, the real kustomize, a bare remote): start, reads, writes, memory, event loop.

import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { get as httpGet } from "node:http";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { generatedFleetFiles } from "../src/devenv/generated-fleet.ts";
import { freePort } from "../src/devenv/process.ts";
import { ensureTool } from "../src/devenv/tools.ts";
import { addToken } from "../src/server/http/tokens.ts";
import { buildCli } from "../scripts/bundle.ts";
import type { BenchLine } from "./schedule.ts";
import { servedUrl } from "./fleet.ts";
import { startHealthProbe } from "./health-probe.ts";

const run = promisify(execFile);
const GIT = ["-c", "user.name=bench", "-c", "user.email=bench@fluxgate.invalid", "-c", "commit.gpgSign=false"];

function percentile(xs: readonly number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return Math.round((sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0) * 10) / 10;
}

/** RSS now and at its peak (MiB), from /proc. */
async function memory(pid: number): Promise<{ rssMiB: number; peakMiB: number }> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMiB: Math.round(kb("VmRSS") / 1024), peakMiB: Math.round(kb("VmHWM") / 1024) };
}

/** Runs `fn` `times` times, one after another; the milliseconds of each. */
async function timed(times: number, fn: (i: number) => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < times; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
    // The service allows a caller 20 requests a second (after a burst of 120): the bench stays under it.
    await sleep(60);
  }
  return out;
}

/** A generated fleet committed in `dir`/seed, pushed to a bare remote, and served by `fluxgate serve` from a clone with the real kustomize. */
async function serveGenerated(
  main: string,
  dir: string,
  clusters: number,
  windows: "fleet" | "folder",
): Promise<{
  url: string;
  proc: ChildProcess;
  seed: string;
  startSeconds: number;
  ready: { rssMiB: number; peakMiB: number };
  headers: { authorization: string };
  get: (path: string) => Promise<void>;
  kill: () => void;
}> {
  const seed = join(dir, "seed");
  for (const [path, text] of generatedFleetFiles(clusters, { windows })) {
    await mkdir(dirname(join(seed, path)), { recursive: true });
    await writeFile(join(seed, path), text);
  }
  await run("git", ["init", "--quiet", "--initial-branch=main"], { cwd: seed });
  await run("git", ["add", "--all"], { cwd: seed });
  await run("git", [...GIT, "commit", "--quiet", "-m", "fleet"], { cwd: seed });
  const remote = join(dir, "fleet.git");
  await run("git", ["init", "--quiet", "--bare", "--initial-branch=main", remote]);
  await run("git", ["push", "--quiet", remote, "main"], { cwd: seed });
  const work = join(dir, "work");
  await run("git", ["clone", "--quiet", remote, work]);
  const tokens = join(dir, "tokens.yaml");
  const token = await addToken(tokens, { name: "bench", role: "editor", now: Date.now() });
  const kustomize = (await ensureTool("kustomize", () => undefined)).path;
  const port = await freePort();
  const started = performance.now();
  const proc = spawn(process.execPath, [main, "serve", "--repo", work, "--tokens-file", tokens, "--port", String(port), "--sync-interval", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, FLUXGATE_KUSTOMIZE: kustomize },
  });
  const kill = (): void => void proc.kill("SIGKILL");
  try {
    const url = await servedUrl(proc);
    const startSeconds = Math.round((performance.now() - started) / 10) / 100;
    const ready = await memory(proc.pid as number);
    const headers = { authorization: `Bearer ${token}` };
    const get = async (path: string): Promise<void> => {
      const r = await fetch(`${url}${path}`, { headers }).catch((e: unknown) => {
        throw new Error(`GET ${path}: ${String(e)} (${String((e as { cause?: unknown }).cause)})`);
      });
      if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${await r.text()}`);
      await r.arrayBuffer();
    };
    return { url, proc, seed, startSeconds, ready, headers, get, kill };
  } catch (e) {
    kill();
    throw e;
  }
}

/**
 * Serves a generated fleet of `clusters` (generated-fleet.ts with windows "fleet": three windows each, one of them a
 * fleet window, a quarter of the clusters patching it) from a clone of a bare remote, and measures:
 * start to ready; p50/p95 of listing clusters by selector (a page of 50), a cluster's windows, the
 * fleet timeline of one page of 50 for 7 and 31 days (distinct ranges: each computed, none from the
 * cache), a page of the clusters' state, the fleet windows' listing; a PUT of a cluster's own window
 * and of the fleet window's base (commit and push); a fleet freeze of the canary ring and the fleet
 * overrides' listing; RSS; and the longest `/healthz` answer while all that ran (a proxy for the
 * longest block of the event loop, asked every 10 ms from a worker thread, side by side with a bare
 * node:http server's: health-probe.ts).
 */
async function serveFleet(main: string, clusters: number, samples: number): Promise<BenchLine> {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-bench-serve-fleet-"));
  let kill = (): void => undefined;
  let stopProbe = (): void => undefined;
  try {
    const served = await serveGenerated(main, dir, clusters, "fleet");
    const { url, proc, startSeconds, ready, headers, get } = served;
    kill = () => {
      stopProbe();
      served.kill();
    };

    // The longest /healthz answer while the reads and writes run, overall and by what ran meanwhile.
    const probe = await startHealthProbe(url, "list");
    stopProbe = () => probe.dispose();

    const pick = (i: number): number => (i * 7919) % clusters;
    const list = await timed(samples, () => get(`/api/v1/clusters?selector=${encodeURIComponent("ring=prod,region in (eu,us)")}&limit=50`));
    probe.phase("windows");
    const windows = await timed(samples, (i) => get(`/api/v1/clusters/edge-${pick(i)}/windows`));
    const day = Date.UTC(2026, 10, 23);
    const page = (i: number): string =>
      `selector=ring%3Dprod&limit=50`.concat(i === 0 ? "" : `&continue=${Buffer.from(`o:${(i * 50) % Math.max(1, clusters - 50)}`).toString("base64url")}`);
    const iso = (ms: number): string => new Date(ms).toISOString().replace(".000Z", "Z");
    const range = (i: number, days: number): string => `from=${iso(day + i * 3_600_000)}&to=${iso(day + i * 3_600_000 + days * 86_400_000)}`;
    probe.phase("timeline7");
    const week = await timed(samples, (i) => get(`/api/v1/timeline?${page(i)}&${range(i, 7)}`));
    probe.phase("timeline31");
    const month = await timed(samples, (i) => get(`/api/v1/timeline?${page(i)}&${range(i, 31)}`));
    probe.phase("fleetClusters");
    const state = await timed(samples, (i) => get(`/api/v1/fleet/clusters?${page(i)}`));
    probe.phase("fleetWindows");
    const fleetWindows = await timed(samples, (i) => get(`/api/v1/fleet/windows${i % 2 === 0 ? "" : `?selector=${encodeURIComponent("region=eu")}`}`));
    probe.phase("put");
    const put = await timed(Math.max(3, Math.round(samples / 3)), async (i) => {
      const spec = { timeZone: "UTC", schedules: [{ start: `0 ${i % 24} * * *`, duration: "3h" }], targets: [{ kind: "Kustomization", name: "infra" }] };
      const r = await fetch(`${url}/api/v1/clusters/edge-${pick(i + 1)}/windows/nightly`, {
        method: "PUT",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ spec, reason: "bench" }),
      });
      if (r.status !== 200) throw new Error(`PUT: ${r.status} ${await r.text()}`);
      await r.arrayBuffer();
    });
    // After a write, the first read takes the new commit (read from Git, changed blobs parsed, changed clusters rendered).
    const afterWrite = await timed(1, () => get("/api/v1/clusters/edge-0/windows"));
    probe.phase("base");
    const base = await timed(1, async () => {
      const spec = { timeZone: "UTC", schedules: [{ start: "0 9 * * MON-THU", end: "0 16 * * MON-THU" }], targets: [{ kind: "Kustomization", name: "apps" }] };
      const r = await fetch(`${url}/api/v1/fleet/windows/prod-changes`, {
        method: "PUT",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ spec, reason: "bench" }),
      });
      if (r.status !== 200) throw new Error(`PUT base: ${r.status} ${await r.text()}`);
      await r.arrayBuffer();
    });
    // A fleet freeze of the canary ring (a quarter of the clusters, an override for each of their windows), then its listing.
    probe.phase("freeze");
    const freeze = await timed(1, () => freezeCanary(url, headers));
    probe.phase("fleetOverrides");
    const fleetOverrides = await timed(samples, (i) => get(`/api/v1/fleet/overrides${i % 2 === 0 ? "" : `?selector=${encodeURIComponent("region=eu")}`}`));
    const health = await probe.stop();
    stopProbe = () => undefined;

    const end = await memory(proc.pid as number);
    const sizeOf = async (path: string): Promise<number> => (await (await fetch(`${url}${path}`, { headers })).arrayBuffer()).byteLength;
    // What goes over the wire: fetch takes the answer compressed and hands it over expanded, so node:http counts the bytes.
    const wireSize = (path: string, encoding: string): Promise<number> =>
      new Promise((resolve, reject) => {
        httpGet(`${url}${path}`, { headers: { ...headers, "accept-encoding": encoding } }, (r) => {
          let n = 0;
          r.on("data", (d: Buffer) => (n += d.byteLength));
          r.on("end", () => resolve(n));
          r.on("error", reject);
        }).on("error", reject);
      });
    const monthPage = `/api/v1/timeline?selector=ring%3Dprod&limit=50&${range(99, 31)}`;
    return {
      bench: "serve.fleet",
      clusters,
      windows: clusters * 3,
      startSeconds,
      rssReadyMiB: ready.rssMiB,
      listP50Ms: percentile(list, 50),
      listP95Ms: percentile(list, 95),
      windowsP50Ms: percentile(windows, 50),
      windowsP95Ms: percentile(windows, 95),
      timeline7P50Ms: percentile(week, 50),
      timeline7P95Ms: percentile(week, 95),
      timeline31P50Ms: percentile(month, 50),
      timeline31P95Ms: percentile(month, 95),
      timeline31PageKiB: Math.round((await sizeOf(monthPage)) / 1024),
      timeline31PageBrKiB: Math.round((await wireSize(monthPage, "br")) / 1024),
      timeline31PageGzipKiB: Math.round((await wireSize(monthPage, "gzip")) / 1024),
      fleetClustersP50Ms: percentile(state, 50),
      fleetClustersP95Ms: percentile(state, 95),
      fleetWindowsP50Ms: percentile(fleetWindows, 50),
      fleetWindowsP95Ms: percentile(fleetWindows, 95),
      putP50Ms: percentile(put, 50),
      putP95Ms: percentile(put, 95),
      readAfterPutMs: percentile(afterWrite, 50),
      putFleetBaseMs: percentile(base, 50),
      fleetFreezeMs: percentile(freeze, 50),
      fleetOverridesP50Ms: percentile(fleetOverrides, 50),
      fleetOverridesP95Ms: percentile(fleetOverrides, 95),
      healthMaxMs: Math.round(health.maxMs),
      // The bare server's longest answer at the same moments, and the most fluxgate's took longer than the bare server's in one round.
      healthFloorMaxMs: Math.round(health.floorMaxMs),
      healthExcessMaxMs: Math.round(health.excessMaxMs),
      // e.g. healthMaxPutMs: the longest /healthz answer while the PUTs ran; healthExcessPutMs: the most it took longer than the bare server's then.
      ...Object.fromEntries(Object.entries(health.byPhase).map(([k, v]) => [`healthMax${k[0]?.toUpperCase() ?? ""}${k.slice(1)}Ms`, v])),
      ...Object.fromEntries(Object.entries(health.excessByPhase).map(([k, v]) => [`healthExcess${k[0]?.toUpperCase() ?? ""}${k.slice(1)}Ms`, v])),
      rssEndMiB: end.rssMiB,
      rssPeakMiB: end.peakMiB,
      cpus: availableParallelism(),
      nodeOptions: process.env["NODE_OPTIONS"] ?? "",
    };
  } finally {
    kill();
    await rm(dir, { recursive: true, force: true });
  }
}

/** One line per fleet size, from one build of the CLI: `fluxgate serve` runs as it is installed (dist/), not from the sources. */
async function eachSize(
  bench: (main: string, clusters: number, samples: number) => Promise<BenchLine>,
  sizes: readonly number[],
  samples: number,
): Promise<BenchLine[]> {
  const cli = await buildCli();
  const out: BenchLine[] = [];
  try {
    for (const clusters of sizes) out.push(await bench(cli.main, clusters, samples));
  } finally {
    await cli.remove();
  }
  return out;
}

/** serve.fleet: one line per fleet size. */
export function serveFleetBenches(sizes: readonly number[], samples: number): Promise<BenchLine[]> {
  return eachSize(serveFleet, sizes, samples);
}

/** A fleet freeze of the canary ring (a quarter of the clusters) for two hours, through POST /fleet/overrides. */
async function freezeCanary(url: string, headers: { authorization: string }): Promise<void> {
  const r = await fetch(`${url}/api/v1/fleet/overrides`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ selector: "ring=canary", duration: "2h", reason: "bench" }),
  });
  if (r.status !== 201) throw new Error(`POST fleet override: ${r.status} ${await r.text()}`);
  await r.arrayBuffer();
}

/** A counter of the service's /metrics. */
async function counter(url: string, headers: { authorization: string }, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers })).text();
  const m = new RegExp(`^${name} (\\d+)$`, "m").exec(text);
  if (m === null) throw new Error(`/metrics has no ${name}`);
  return Number(m[1]);
}

/**
 * The fleet folder's layout (generated-fleet.ts with windows "folder": every cluster includes
 * fleet/ once and its identity file) served: a fleet freeze of the canary ring (a quarter of the
 * clusters) through `POST /api/v1/fleet/overrides`, and the first read after it (which takes the
 * new commit in), set beside the Git cost of one small commit in a working copy of the same
 * repository (`git add --all` and `git commit` of a 2-file change, three times, the median); the
 * kustomize builds and the files read from Git that took the freeze in (/metrics), and the reads'
 * p50/p95 after it (a cluster's windows, clusters by selector, a page's timeline for 7 days).
 */
async function serveFleetFolder(main: string, clusters: number, samples: number): Promise<BenchLine> {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-bench-serve-fleet-folder-"));
  let kill = (): void => undefined;
  try {
    const served = await serveGenerated(main, dir, clusters, "folder");
    kill = served.kill;
    const { url, headers, get, seed } = served;
    const buildsAtReady = await counter(url, headers, "fluxgate_serve_kustomize_builds_total");
    // The Git cost of one small commit here: a file added and one changed, added and committed.
    const commits = await timed(3, async (i) => {
      await writeFile(join(seed, "fleet", `note-${i}.yaml`), `# note ${i}\n`);
      await writeFile(join(seed, "fleet", "kustomization.yaml"), `${await readFile(join(seed, "fleet", "kustomization.yaml"), "utf8")}# ${i}\n`);
      await run("git", ["add", "--all"], { cwd: seed });
      await run("git", [...GIT, "commit", "--quiet", "-m", `note ${i}`], { cwd: seed });
    });
    const pick = (i: number): number => (i * 7919) % clusters;
    await timed(5, (i) => get(`/api/v1/clusters/edge-${pick(i)}/windows`));
    const before = {
      builds: await counter(url, headers, "fluxgate_serve_kustomize_builds_total"),
      files: await counter(url, headers, "fluxgate_serve_git_files_read_total"),
    };
    const freeze = await timed(1, () => freezeCanary(url, headers));
    // The first read after the write takes the new commit in.
    const afterFreeze = await timed(1, () => get("/api/v1/clusters/edge-0/windows"));
    const builds = (await counter(url, headers, "fluxgate_serve_kustomize_builds_total")) - before.builds;
    const filesRead = (await counter(url, headers, "fluxgate_serve_git_files_read_total")) - before.files;
    const windows = await timed(samples, (i) => get(`/api/v1/clusters/edge-${pick(i)}/windows`));
    const list = await timed(samples, () => get(`/api/v1/clusters?selector=${encodeURIComponent("ring=prod,region in (eu,us)")}&limit=50`));
    const day = Date.UTC(2026, 10, 23);
    const iso = (ms: number): string => new Date(ms).toISOString().replace(".000Z", "Z");
    const week = await timed(samples, (i) =>
      get(`/api/v1/timeline?selector=ring%3Dcanary&limit=50&from=${iso(day + i * 3_600_000)}&to=${iso(day + i * 3_600_000 + 7 * 86_400_000)}`),
    );
    const end = await memory(served.proc.pid as number);
    return {
      bench: "serve.fleet.folder",
      clusters,
      frozen: Math.ceil(clusters / 4),
      startSeconds: served.startSeconds,
      buildsAtReady,
      commitMs: percentile(commits, 50),
      commitMaxMs: percentile(commits, 100),
      fleetFreezeMs: percentile(freeze, 50),
      readAfterFreezeMs: percentile(afterFreeze, 50),
      buildsAfterFreeze: builds,
      filesReadAfterFreeze: filesRead,
      windowsP50Ms: percentile(windows, 50),
      windowsP95Ms: percentile(windows, 95),
      listP50Ms: percentile(list, 50),
      listP95Ms: percentile(list, 95),
      timeline7P50Ms: percentile(week, 50),
      timeline7P95Ms: percentile(week, 95),
      rssReadyMiB: served.ready.rssMiB,
      rssEndMiB: end.rssMiB,
      rssPeakMiB: end.peakMiB,
      load1: Math.round((loadavg()[0] ?? 0) * 10) / 10,
      cpus: availableParallelism(),
    };
  } finally {
    kill();
    await rm(dir, { recursive: true, force: true });
  }
}

/** serve.fleet.folder: one line per fleet size of the fleet folder's layout. */
export function serveFleetFolderBenches(sizes: readonly number[], samples: number): Promise<BenchLine[]> {
  return eachSize(serveFleetFolder, sizes, samples);
}
