// The dashboard's fleet page in Chromium over generated fleets (three windows a cluster, one of them a fleet window that a quarter of the clusters patch): time
// to the first drawn timeline, to every cluster on screen, the page's DOM size and its longest task, with what that task was (longTaskParts); and the same
// longest task of a page with nothing in it, loaded in turn (dashboard.floor).

import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { launch } from "../src/devenv/chromium.ts";
import { writeGeneratedFleet } from "../src/devenv/generated-fleet.ts";
import { startService } from "../src/server/server.ts";
import type { BenchLine } from "./schedule.ts";

/** Figures of one fleet size over several page loads, each as min, median and max. */
export interface DashboardLine extends BenchLine {
  bench: "dashboard.fleet";
  clusters: number;
  windows: number;
  runs: number;
  /** From navigation to the first band of a timeline drawn on screen. */
  firstTimelineMsMin: number;
  firstTimelineMsMedian: number;
  firstTimelineMsMax: number;
  /** From navigation until every cluster on screen has its timeline and status. */
  screenLoadedMsMin: number;
  screenLoadedMsMedian: number;
  screenLoadedMsMax: number;
  /** Elements in the document once the screen is loaded (the most over the runs). */
  domElements: number;
  /** The longest task on the page's main thread up to then (how long it was frozen at worst): median and max. */
  longestTaskMsMedian: number;
  longestTaskMsMax: number;
  /** The longest task of each counted load, in order (0: none over 50 ms, the browser's long tasks), beside loadBefore: how many loads had one, not only the worst. */
  longestTaskMsByLoad: string;
  /** The page's height: the whole fleet, though only the screen's rows are drawn. */
  pageHeightPx: number;
  /** The machine's one-minute load average (/proc/loadavg) before each counted run, in order: the machine may be shared, so the figures are read with it. */
  loadBefore: string;
  /** How long the browser was waited for to be quiet before each load (browserQuiet), median and max (QUIET_MAX_MS: it did not become quiet). */
  quietWaitMsMedian: number;
  quietWaitMsMax: number;
  /**
   * The page's main thread over a load, from the kernel's accounting (/proc/PID/schedstat, /proc/PID/stat; -1 where there is none): the CPU it ran
   * (`mainThreadCpuMs*`, the page's own work) and the time it was ready to run but waited for a core (`mainThreadWaitMs*`, the machine's contention: a
   * long task that ran little waited), median and max; and the CPU of the page's renderer's other threads (`rendererOtherCpuMsMedian`: raster, its compositor,
   * V8's background compilers and collector, the page's worker), which share the same cores.
   */
  mainThreadCpuMsMedian: number;
  mainThreadCpuMsMax: number;
  mainThreadWaitMsMedian: number;
  mainThreadWaitMsMax: number;
  rendererOtherCpuMsMedian: number;
  /**
   * The CPU of the bench's own processes over a load, medians (-1 unless every load has them): the browser's processes (`browserCpuMsMedian`: the page's
   * renderer, the browser's own process, its GPU process), and the bench process (`benchCpuMsMedian`: the service on loopback with its engine workers, and
   * Playwright's client). With the screen's load time they say how much of the two cores a load asks for; a user's browser does not share its machine with
   * the service, the bench's does.
   */
  browserCpuMsMedian: number;
  benchCpuMsMedian: number;
  /**
   * Where each counted load's longest task went, for the loads that had one (the browser's long animation frame that holds it): `load:ms` and its parts,
   * the scripts that ran in it by how they were called (`MessagePort.onmessage`, `FrameRequestCallback`, a promise's reaction…) with their function and
   * time, and the frame's rendering (`render`: style, layout, paint and commit, from the frame's own times); separated by `; `, empty when no load had one.
   */
  longTaskParts: string;
}

/** The one-minute load average, or -1 where /proc/loadavg is not there. */
async function loadAverage(): Promise<number> {
  try {
    return Number((await readFile("/proc/loadavg", "utf8")).split(" ")[0]);
  } catch {
    return -1;
  }
}

/**
 * A renderer's times from the kernel's accounting, in ms: its main thread's run and wait for a core (/proc/PID/schedstat, in ns there), and the run of
 * all its threads (/proc/PID/stat, in the kernel's ticks of 10 ms, with the threads that ended: the page's worker ends during a load).
 */
interface RendererTimes {
  mainRun: number;
  mainWait: number;
  allRun: number;
}

/**
 * The browser's renderers (`--type=renderer`) among `processes` (descendantsCpuMs) by pid with their times (RendererTimes); none where the kernel keeps no
 * schedstat, null without /proc.
 */
async function rendererTimes(processes: Map<number, number> | null): Promise<Map<number, RendererTimes> | null> {
  if (processes === null) return null;
  const out = new Map<number, RendererTimes>();
  for (const [pid, allRun] of processes) {
    try {
      if (!(await readFile(`/proc/${pid}/cmdline`, "utf8")).includes("--type=renderer")) continue;
      const [run, wait] = (await readFile(`/proc/${pid}/schedstat`, "utf8")).split(" ").map(Number) as [number, number];
      out.set(pid, { mainRun: run / 1e6, mainWait: wait / 1e6, allRun });
    } catch {
      // The process ended as it was read.
    }
  }
  return out;
}

/** The page's renderer over a load: its main thread's run and wait, and its other threads' run, in ms (pageRendererTimes). */
interface PageRendererTimes {
  mainRun: number;
  mainWait: number;
  otherRun: number;
}

/**
 * The page's renderer over a load, from rendererTimes before and after it: the renderer whose threads ran most in between (one that began during the
 * load counts from 0). Its other threads' run is all its threads' less its main thread's, to the kernel's tick (10 ms). Null where there is no
 * accounting, or where it says the page's thread never ran (a kernel that keeps schedstat's fields at 0).
 */
function pageRendererTimes(before: Map<number, RendererTimes> | null, after: Map<number, RendererTimes> | null): PageRendererTimes | null {
  if (before === null || after === null) return null;
  let best: { all: number; times: PageRendererTimes } | null = null;
  for (const [pid, now] of after) {
    const was = before.get(pid) ?? { mainRun: 0, mainWait: 0, allRun: 0 };
    const all = now.allRun - was.allRun;
    const mainRun = now.mainRun - was.mainRun;
    if (best === null || all > best.all) best = { all, times: { mainRun, mainWait: now.mainWait - was.mainWait, otherRun: Math.max(0, all - mainRun) } };
  }
  return best === null || best.times.mainRun <= 0 ? null : best.times;
}

/** The CPU the bench's own processes used over a load, in ms (loadCpu): the browser's, and the bench process's. */
interface LoadCpu {
  browser: number;
  bench: number;
}

/**
 * Over a load, the CPU of the processes this one started (the browser's, from descendantsCpuMs before and after it: to the kernel's tick, a process that
 * ended during the load taking its CPU with it) and of this process (`benchMs`: the service, its engine workers and Playwright's client); null without /proc.
 */
function loadCpu(before: Map<number, number> | null, after: Map<number, number> | null, benchMs: number): LoadCpu | null {
  if (before === null || after === null) return null;
  let browser = 0;
  for (const [pid, ms] of after) browser += Math.max(0, ms - (before.get(pid) ?? 0));
  return { browser, bench: Math.round(benchMs) };
}

/**
 * The CPU time, in ms, of each of this process's descendants (the browser and its processes) by pid, from /proc; null where there is no /proc. Counted in the
 * kernel's ticks (10 ms on Linux).
 */
async function descendantsCpuMs(): Promise<Map<number, number> | null> {
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return null;
  }
  const parent = new Map<number, number>();
  const cpu = new Map<number, number>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = await readFile(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // After the command's name in parentheses (which may hold spaces): state, ppid, ..., utime (14th field) and stime (15th).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    parent.set(Number(entry), Number(fields[1]));
    cpu.set(Number(entry), (Number(fields[11]) + Number(fields[12])) * 10);
  }
  const ours = new Map<number, number>();
  const isOurs = (pid: number): boolean => pid === process.pid || ours.has(pid);
  // Parents come before their children in /proc's order often, not always: walked until nothing is added.
  for (let added = true; added;) {
    added = false;
    for (const [pid, ppid] of parent) {
      if (isOurs(pid) || !isOurs(ppid)) continue;
      ours.set(pid, cpu.get(pid) ?? 0);
      added = true;
    }
  }
  return ours;
}

/**
 * How long a browser must be quiet before a load (its processes' CPU at most QUIET_CPU_MS, one tick, in each of two QUIET_WINDOW_MS in a row), and how long
 * it is waited for at most.
 */
const QUIET_WINDOW_MS = 100;
const QUIET_CPU_MS = 10;
const QUIET_MAX_MS = 5_000;

/**
 * Waits until the browser is quiet: a new context's window starts work of its own (Chromium preloads the omnibox's popup, a page of its own: 350 ms of CPU
 * on its renderer, traced), which a user's open browser has done long before they load the dashboard. A window's CPU is what the processes alive at its end
 * used in it (one that ended, as the last load's renderer does, takes its CPU with it). Returns how long it waited (0 where /proc is not there).
 */
async function browserQuiet(): Promise<number> {
  const start = performance.now();
  let quietWindows = 0;
  let before = await descendantsCpuMs();
  if (before === null) return 0;
  while (quietWindows < 2 && performance.now() - start < QUIET_MAX_MS) {
    await new Promise((resolve) => setTimeout(resolve, QUIET_WINDOW_MS));
    const now = (await descendantsCpuMs()) as Map<number, number>;
    let used = 0;
    for (const [pid, ms] of now) used += Math.max(0, ms - (before.get(pid) ?? 0));
    quietWindows = used <= QUIET_CPU_MS ? quietWindows + 1 : 0;
    before = now;
  }
  return performance.now() - start;
}

const spread = (xs: number[]): [number, number, number] => {
  const s = [...xs].sort((a, b) => a - b);
  return [Math.round(s[0] as number), Math.round(s[Math.floor(s.length / 2)] as number), Math.round(s[s.length - 1] as number)];
};

/** The renderer's figures of a line's loads (DashboardLine), -1 each unless every load has them. */
function rendererFigures(
  loads: readonly PageRendererTimes[],
  runs: number,
): Pick<DashboardLine, "mainThreadCpuMsMedian" | "mainThreadCpuMsMax" | "mainThreadWaitMsMedian" | "mainThreadWaitMsMax" | "rendererOtherCpuMsMedian"> {
  if (loads.length !== runs)
    return { mainThreadCpuMsMedian: -1, mainThreadCpuMsMax: -1, mainThreadWaitMsMedian: -1, mainThreadWaitMsMax: -1, rendererOtherCpuMsMedian: -1 };
  const [, cpuMedian, cpuMax] = spread(loads.map((t) => t.mainRun));
  const [, waitMedian, waitMax] = spread(loads.map((t) => t.mainWait));
  return {
    mainThreadCpuMsMedian: cpuMedian,
    mainThreadCpuMsMax: cpuMax,
    mainThreadWaitMsMedian: waitMedian,
    mainThreadWaitMsMax: waitMax,
    rendererOtherCpuMsMedian: spread(loads.map((t) => t.otherRun))[1],
  };
}

/**
 * A long animation frame as the page records it (PROBE): its start and duration, when its style and layout began (0: it rendered nothing), and its scripts
 * (its animation frame callbacks among them).
 */
export interface LongFrame {
  start: number;
  duration: number;
  render: number;
  scripts: Array<{ invoker: string; fn: string; url: string; duration: number }>;
}

/**
 * A long task's parts, from the long animation frame that holds it (DashboardLine.longTaskParts): `54 at 980 in 61: FrameRequestCallback run fleet.js 7 +
 * render 40` — the task's time, when it began (ms after the navigation), the frame's time, then the frame's scripts (those the browser lists: 5 ms or more)
 * and its rendering from its style and layout on (style, layout, paint, commit), rounded to the millisecond; what is neither (the browser's own work, the
 * wait between the frame's tasks) is not named. A frame may hold more than the long task: the render after a long script's task is in the same frame.
 * `54 at 3 in ?` when no frame holds it (the navigation's own task, before the page's document, is in none).
 */
export function longTaskParts([start, duration]: readonly [number, number], frames: readonly LongFrame[]): string {
  const held = frames.find((f) => f.start <= start + 1 && start + duration <= f.start + f.duration + 1);
  const task = `${Math.round(duration)} at ${Math.round(start)}`;
  if (held === undefined) return `${task} in ?`;
  const head = `${task} in ${Math.round(held.duration)}:`;
  const named = (s: LongFrame["scripts"][number]): boolean => s.fn !== "" && !s.invoker.endsWith(`.${s.fn}`) && !s.invoker.endsWith(`:${s.fn}`);
  const items = held.scripts.map((s) => `${s.invoker}${named(s) ? ` ${s.fn}` : ""}${s.url !== "" ? ` ${s.url}` : ""} ${Math.round(s.duration)}`);
  if (held.render > 0) items.push(`render ${Math.round(held.start + held.duration - held.render)}`);
  return items.length === 0 ? `${head} the browser's` : `${head} ${items.join(" + ")}`;
}

/** The floor's page (DashboardFloorLine): its marker tells the probe to call it loaded FLOOR_LOADED_MS after the navigation, once the document is complete. */
const FLOOR_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="fluxgate-bench-floor" content=""><title>floor</title></head><body><p>floor</p></body></html>`;

/** How long after its navigation the floor's page is called loaded: past its load and first frames, as long as the fleet page's first band takes. */
const FLOOR_LOADED_MS = 400;

/** What the page says, on its console, once the screen has loaded (PROBE). */
const SCREEN_LOADED = "fluxgate-bench: screen loaded";

/**
 * Records, in the page, when the first band is drawn, every long task, and when the screen has loaded (every cluster on screen has its timeline and
 * status), which it says on the console. The page watches for that itself, a check every 20 ms, rather than the bench asking it (page.waitForFunction):
 * Playwright's script that asks runs on the page's main thread too, and its first run there was a task of 33 ms (21 ms of CPU, traced) that the longest
 * task counted as the page's own (docs/performance-history.md). The bench reads the figures once the screen has loaded, and counts the long tasks that
 * began before.
 */
const PROBE = `(() => {
  const tasks = [];
  const longTasks = new PerformanceObserver((list) => { for (const e of list.getEntries()) tasks.push([e.startTime, e.duration]); });
  longTasks.observe({ type: "longtask", buffered: true });
  // The long animation frames, each with its scripts and its rendering's start: what a long task was.
  const frames = [];
  const frame = (e) => ({
    start: e.startTime,
    duration: e.duration,
    render: e.styleAndLayoutStart,
    scripts: e.scripts.map((s) => ({ invoker: s.invoker, fn: s.sourceFunctionName, url: s.sourceURL.split("/").pop(), duration: s.duration })),
  });
  const longFrames = new PerformanceObserver((list) => { for (const e of list.getEntries()) frames.push(frame(e)); });
  longFrames.observe({ type: "long-animation-frame", buffered: true });
  // Entries not yet handed to the observers' callbacks (they run later, in a task of their own) are taken when the figures are read.
  const taken = () => {
    for (const e of longTasks.takeRecords()) tasks.push([e.startTime, e.duration]);
    return tasks;
  };
  const framesTaken = () => {
    for (const e of longFrames.takeRecords()) frames.push(frame(e));
    return frames;
  };
  window.__bench = { firstBand: null, loaded: null, tasks: taken, frames: framesTaken };
  new MutationObserver((records, observer) => {
    if (document.querySelector(".fleet-grid .band") === null) return;
    observer.disconnect();
    requestAnimationFrame(() => { window.__bench.firstBand = performance.now(); });
  }).observe(document, { childList: true, subtree: true });
  const loaded = () => {
    if (document.querySelector('meta[name="fluxgate-bench-floor"]') !== null) return document.readyState === "complete" && performance.now() >= ${FLOOR_LOADED_MS};
    const grid = document.querySelector(".fleet-grid");
    // The first band's frame too: on a loaded machine the screen may be loaded before the frame that records it.
    if (grid?.getAttribute("data-loading") !== "0" || document.querySelector('.vrow[data-status="loading"]') !== null) return false;
    return document.querySelector(".vrow") !== null && window.__bench.firstBand !== null;
  };
  const poll = setInterval(() => {
    if (!loaded()) return;
    clearInterval(poll);
    window.__bench.loaded = performance.now();
    console.debug(${JSON.stringify(SCREEN_LOADED)});
  }, 20);
})();
`;

/**
 * What one load of a page gives (loadPage): the probe's figures, the page's renderer's times (null: no accounting), the load average and quiet wait before
 * it.
 */
interface PageLoad {
  loaded: number;
  first: number | null;
  /** The longest long task that began before the screen was loaded (0: none), and that task as [start, duration] (null: none). */
  task: number;
  longest: [number, number] | null;
  frames: LongFrame[];
  elements: number;
  height: number;
  times: PageRendererTimes | null;
  cpu: LoadCpu | null;
  loadBefore: number;
  quietWaitMs: number;
}

/** Loads `url` in a new browser context once the browser is quiet, with the probe, until the page says its screen is loaded; reads the figures. */
async function loadPage(browser: Browser, url: string): Promise<PageLoad> {
  const loadBefore = await loadAverage();
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  try {
    const page = await context.newPage();
    await page.addInitScript(PROBE);
    const quietWaitMs = await browserQuiet();
    const processesBefore = await descendantsCpuMs();
    const timesBefore = await rendererTimes(processesBefore);
    const benchBefore = process.cpuUsage();
    const screenLoaded = page.waitForEvent("console", { predicate: (m) => m.text() === SCREEN_LOADED, timeout: 120_000 });
    // Awaited below; a navigation that fails first is the error to report, not this one.
    screenLoaded.catch(() => undefined);
    await page.goto(url);
    await screenLoaded;
    // Read as the page says it has loaded, before the bench's own questions to it run on its thread.
    const bench = process.cpuUsage(benchBefore);
    const processesAfter = await descendantsCpuMs();
    const times = pageRendererTimes(timesBefore, await rendererTimes(processesAfter));
    const cpu = loadCpu(processesBefore, processesAfter, (bench.user + bench.system) / 1000);
    const figures = await page.evaluate(() => {
      const bench = (
        window as unknown as {
          __bench: { firstBand: number | null; loaded: number; tasks: () => Array<[number, number]>; frames: () => LongFrame[] };
        }
      ).__bench;
      const before = bench.tasks().filter(([start]) => start < bench.loaded);
      const longest = before.reduce<[number, number] | null>((a, t) => (a === null || t[1] > a[1] ? t : a), null);
      return {
        loaded: bench.loaded,
        first: bench.firstBand,
        task: longest === null ? 0 : longest[1],
        longest,
        frames: bench.frames(),
        elements: document.getElementsByTagName("*").length,
        height: document.documentElement.scrollHeight,
      };
    });
    return { ...figures, times, cpu, loadBefore, quietWaitMs };
  } finally {
    await context.close();
  }
}

/**
 * The floor of a page's longest task on this machine and browser (`dashboard.floor`): a page with nothing in it (FLOOR_PAGE: no script or style of its own;
 * the bench's probe runs in it as in the fleet page), loaded as the fleet page is, in turn with it. Its only tasks are the browser's own (the navigation's,
 * the first frame's) and the probe's: how often they alone pass 50 ms is the machine's share of the fleet page's long tasks, as the API server's floor is the
 * controller's.
 */
export interface DashboardFloorLine
  extends
    BenchLine,
    Pick<
      DashboardLine,
      | "runs"
      | "longestTaskMsMedian"
      | "longestTaskMsMax"
      | "longestTaskMsByLoad"
      | "longTaskParts"
      | "loadBefore"
      | "mainThreadCpuMsMedian"
      | "mainThreadCpuMsMax"
      | "mainThreadWaitMsMedian"
      | "mainThreadWaitMsMax"
      | "rendererOtherCpuMsMedian"
      | "browserCpuMsMedian"
      | "benchCpuMsMedian"
    > {
  bench: "dashboard.floor";
}

/** Serves FLOOR_PAGE on loopback for as long as `run` runs. */
async function withFloorPage<T>(run: (url: string) => Promise<T>): Promise<T> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    res.end(FLOOR_PAGE);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  try {
    return await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/**
 * One line per fleet size: `runs` fresh page loads (after one not counted) of the fleet page, a 1400×900 screen, against `fluxgate serve` on loopback, each in a
 * new browser context once the browser is quiet (browserQuiet); after each, a load of the floor's page (DashboardFloorLine), whose line comes last.
 */
export async function dashboardBenches(sizes: readonly number[], runs: number): Promise<Array<DashboardLine | DashboardFloorLine>> {
  const out: Array<DashboardLine | DashboardFloorLine> = [];
  const floors: PageLoad[] = [];
  const browser = await launch();
  try {
    await withFloorPage(async (floorUrl) => {
      for (const clusters of sizes) {
        const dir = await mkdtemp(join(tmpdir(), "fluxgate-bench-dashboard-"));
        const service = await (async () => {
          await writeGeneratedFleet(join(dir, "fleet"), clusters, { windows: "fleet" });
          return startService({
            repo: join(dir, "fleet"),
            host: "127.0.0.1",
            port: 0,
            tokensFile: null,
            anonymousRead: true,
            live: null,
            syncIntervalMs: 0,
            version: "bench",
            log: () => undefined,
          });
        })();
        try {
          const loads: PageLoad[] = [];
          // One load first, not counted: run from the sources, the service compiles the client modules at their first request.
          for (let run = -1; run < runs; run++) {
            const fleet = await loadPage(browser, `${service.url}/#/`);
            if (fleet.first === null) throw new Error(`dashboard bench: no band was drawn for ${clusters} clusters`);
            const floor = await loadPage(browser, floorUrl);
            if (run < 0) continue;
            loads.push(fleet);
            floors.push(floor);
          }
          const [firstMin, firstMedian, firstMax] = spread(loads.map((l) => l.first as number));
          const [loadedMin, loadedMedian, loadedMax] = spread(loads.map((l) => l.loaded));
          out.push({
            bench: "dashboard.fleet",
            clusters,
            windows: clusters * 3,
            runs,
            firstTimelineMsMin: firstMin,
            firstTimelineMsMedian: firstMedian,
            firstTimelineMsMax: firstMax,
            screenLoadedMsMin: loadedMin,
            screenLoadedMsMedian: loadedMedian,
            screenLoadedMsMax: loadedMax,
            domElements: Math.max(...loads.map((l) => l.elements)),
            ...longTaskFigures(loads),
            pageHeightPx: loads[loads.length - 1]?.height ?? 0,
            ...quietFigures(loads),
            ...rendererFigures(
              loads.flatMap((l) => (l.times === null ? [] : [l.times])),
              runs,
            ),
            ...cpuFigures(loads),
          });
        } finally {
          await service.close();
          // Retried: git may still be writing objects of the fleet's repository as the service closes.
          await rm(dir, { recursive: true, force: true, maxRetries: 5 });
        }
      }
    });
  } finally {
    await browser.close();
  }
  if (floors.length > 0)
    out.push({
      bench: "dashboard.floor",
      runs: floors.length,
      ...longTaskFigures(floors),
      ...rendererFigures(
        floors.flatMap((l) => (l.times === null ? [] : [l.times])),
        floors.length,
      ),
      ...cpuFigures(floors),
    });
  return out;
}

/** The CPU figures of a line's loads (DashboardLine.browserCpuMsMedian, benchCpuMsMedian). */
function cpuFigures(loads: readonly PageLoad[]): Pick<DashboardLine, "browserCpuMsMedian" | "benchCpuMsMedian"> {
  const cpu = loads.flatMap((l) => (l.cpu === null ? [] : [l.cpu]));
  if (cpu.length !== loads.length) return { browserCpuMsMedian: -1, benchCpuMsMedian: -1 };
  return { browserCpuMsMedian: spread(cpu.map((c) => c.browser))[1], benchCpuMsMedian: spread(cpu.map((c) => c.bench))[1] };
}

/** How long the browser was waited for to be quiet before a line's loads: median and max. */
function quietFigures(loads: readonly PageLoad[]): Pick<DashboardLine, "quietWaitMsMedian" | "quietWaitMsMax"> {
  const [, median, max] = spread(loads.map((l) => l.quietWaitMs));
  return { quietWaitMsMedian: median, quietWaitMsMax: max };
}

/** The long-task figures of a line's loads, in order, and the load average before each. */
function longTaskFigures(
  loads: readonly PageLoad[],
): Pick<DashboardLine, "longestTaskMsMedian" | "longestTaskMsMax" | "longestTaskMsByLoad" | "longTaskParts" | "loadBefore"> {
  const [, median, max] = spread(loads.map((l) => l.task));
  return {
    longestTaskMsMedian: median,
    longestTaskMsMax: max,
    longestTaskMsByLoad: loads.map((l) => Math.round(l.task)).join(" "),
    longTaskParts: loads.flatMap((l, i) => (l.longest === null ? [] : [`${i}:${longTaskParts(l.longest, l.frames)}`])).join("; "),
    loadBefore: loads.map((l) => l.loadBefore).join(" "),
  };
}
