// Idle cost, memory and recovery of the `fluxgate controller` process on the real kube-apiserver, at N targets.

import { CustomObjectsApi, KubernetesObjectApi, PatchStrategy, Watch, type KubeConfig, type KubernetesObject } from "@kubernetes/client-node";
import { spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { request, type RequestOptions } from "node:https";
import { createInterface } from "node:readline";
import { parse } from "yaml";
import { buildCli } from "../scripts/bundle.ts";
import { startControlPlane, type ControlPlane } from "../src/devenv/control-plane.ts";
import { installFluxgate } from "../src/devenv/install.ts";
import { BENCH_LABEL, KUSTOMIZATIONS, pool, seedFleet, suspendedCount } from "./fleet.ts";

export interface IdleLine {
  bench: "controller.idle";
  targets: number;
  seconds: number;
  /** Requests the controller sent per minute, by its own count (gets, applies, lists, watches). */
  requestsPerMin: number;
  writesPerMin: number;
  /** Every request the API server served per minute, its own housekeeping included: an upper bound. */
  apiserverRequestsPerMin: number;
  /** CPU time of the controller process over the idle time, in percent of one core. */
  cpuPercent: number;
  rssMiB: number;
  /** The V8 heap in use at the end (live objects and garbage not yet collected). */
  heapUsedMiB: number;
  /** Peak resident memory since the process started, enforcement of every target included. */
  peakRssMiB: number;
}

export interface RecoveryLine {
  bench: "controller.recovery";
  targets: number;
  /** Cold start: from spawning the process until every target was enforced. */
  firstEnforceMs: number;
  /** After SIGKILL mid-window, with every target left in the wrong state: from the restart until /readyz answers 200. */
  readyMs: number;
  /** From the restart until every target is correct again. */
  correctMs: number;
  writesPerTarget: number;
}

export interface Controller {
  child: ChildProcess;
  metricsAddr: Promise<string>;
  healthAddr: Promise<string>;
  exited: Promise<void>;
  /** When the process was spawned (ms since the epoch). */
  spawnedAt: number;
  /** The time of its log line "Started controller" (loaded, kubeconfig read, probes listening). */
  startedAt: Promise<number>;
  /** The time of its log line "Synced informers" (every informer listed and watching). */
  syncedAt: Promise<number>;
  /** Its last lines of log (stderr), for a bench that fails to say what the controller was doing. */
  logTail: () => string[];
}

/** Lines of the controller's log a bench keeps. */
const LOG_TAIL = 30;

/**
 * The environment the controller's container sets with literal values in config/manager/deployment.yaml
 * (NODE_OPTIONS and the allocator's settings): the bench measures what is deployed.
 * FLUXGATE_BENCH_NODE_OPTIONS replaces NODE_OPTIONS, to compare V8 flags.
 */
export async function deployedEnv(): Promise<Record<string, string>> {
  const text = await readFile(new URL("../config/manager/deployment.yaml", import.meta.url), "utf8");
  const deployment = parse(text) as { spec: { template: { spec: { containers: { env?: { name: string; value?: string }[] }[] } } } };
  const env = Object.fromEntries((deployment.spec.template.spec.containers[0]?.env ?? []).flatMap((e) => (e.value === undefined ? [] : [[e.name, e.value]])));
  if (env.NODE_OPTIONS === undefined) throw new Error("config/manager/deployment.yaml sets no NODE_OPTIONS for the controller");
  if (process.env.FLUXGATE_BENCH_NODE_OPTIONS !== undefined) env.NODE_OPTIONS = process.env.FLUXGATE_BENCH_NODE_OPTIONS;
  return env;
}

/**
 * Runs `fluxgate controller` as the Deployment does (its environment, on this Node), with info logs
 * on stderr: `main` is the CLI entry, the built one (buildCli in scripts/bundle.ts) or src/cli/main.ts.
 * Its probes and metrics listen as the Deployment's do, on every address (`:PORT`), on free ports: an
 * address named (`127.0.0.1:0`) makes Node look it up before listening (node:dns loaded, its IPv6
 * pattern compiled), 6-13 ms of CPU at each start that the Deployment does not spend.
 */
export function spawnController(kubeconfigPath: string, env: Record<string, string>, main = "src/cli/main.ts"): Controller {
  const child = spawn(
    process.execPath,
    [main, "controller", "--kubeconfig", kubeconfigPath, "--target-kinds", "Kustomization", "--metrics-addr", ":0", "--health-addr", ":0"],
    { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...env } },
  );
  const spawnedAt = Date.now();
  let resolve!: (v: { metricsAddr: string; healthAddr: string; ts: string }) => void;
  let synced!: (ts: string) => void;
  const started = new Promise<{ metricsAddr: string; healthAddr: string; ts: string }>((r) => (resolve = r));
  const syncedAt = new Promise<string>((r) => (synced = r));
  const tail: string[] = [];
  createInterface({ input: child.stderr }).on("line", (line) => {
    tail.push(line);
    if (tail.length > LOG_TAIL) tail.shift();
    if (line.includes('"Started controller"')) resolve(JSON.parse(line) as { metricsAddr: string; healthAddr: string; ts: string });
    if (line.includes('"Synced informers"')) synced((JSON.parse(line) as { ts: string }).ts);
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  return {
    child,
    metricsAddr: started.then((s) => onLoopback(s.metricsAddr)),
    healthAddr: started.then((s) => onLoopback(s.healthAddr)),
    exited,
    spawnedAt,
    startedAt: started.then((s) => Date.parse(s.ts)),
    syncedAt: syncedAt.then((ts) => Date.parse(ts)),
    logTail: () => [...tail],
  };
}

/** An address the controller logged as listening on every address ("[::]:PORT", "0.0.0.0:PORT"), as this machine's loopback reaches it. */
function onLoopback(address: string): string {
  return address.replace(/^(?:\[::\]|0\.0\.0\.0):/, "127.0.0.1:");
}

/** Sums every sample of a counter in Prometheus text, optionally only those whose labels match. */
export function sumOf(text: string, name: string, labels?: RegExp): number {
  let n = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (labels !== undefined && !labels.test(line)) continue;
    n += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return n;
}

export async function controllerMetrics(c: Controller): Promise<string> {
  return await (await fetch(`http://${await c.metricsAddr}/metrics`)).text();
}

/** The API server's own /metrics, read with the admin credentials of the control plane. */
async function apiserverMetrics(kc: KubeConfig): Promise<string> {
  const server = new URL(kc.getCurrentCluster()?.server ?? "");
  const options: RequestOptions = { hostname: server.hostname, port: server.port, path: "/metrics", method: "GET" };
  await kc.applyToHTTPSOptions(options);
  return await new Promise((resolve, reject) => {
    const req = request(options, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (d: string) => (body += d));
      res.on("end", () => resolve(body));
    });
    req.on("error", reject);
    req.end();
  });
}

/** User and system CPU time of a process so far, in ms (Linux /proc). */
export async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of stat (utime, stime), in clock ticks of 10 ms on Linux.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Resident memory of a process (MiB): all of it, its peak, and of it anonymous memory (heaps, malloc) and pages of files (the binary, libraries). */
export async function memoryMiB(pid: number): Promise<{ rss: number; peak: number; anon: number; file: number }> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kib = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  const mib = (key: string): number => Math.round(kib(key) / 102.4) / 10;
  return { rss: mib("VmRSS"), peak: mib("VmHWM"), anon: mib("RssAnon"), file: mib("RssFile") };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function until(what: string, check: () => Promise<boolean>, timeoutMs: number, everyMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(everyMs);
  }
}

/**
 * Watches the fleet and resolves when every target has spec.suspend === `suspended`. A watch that ends
 * before (the connection closed, an error) is followed by a new list and watch; if the time runs out,
 * the error says how many targets were right, how the bench's watches ended and, given `controller`,
 * its last lines of log.
 */
export async function whenAll(cp: ControlPlane, size: number, suspended: boolean, timeoutMs: number, controller?: Controller): Promise<void> {
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const deadline = Date.now() + timeoutMs;
  const ended: string[] = [];
  let right = new Set<string>();
  while (Date.now() < deadline) {
    const list = (await custom.listClusterCustomObject({ ...KUSTOMIZATIONS, labelSelector: BENCH_LABEL })) as {
      metadata?: { resourceVersion?: string };
      items: (KubernetesObject & { spec?: { suspend?: boolean } })[];
    };
    const seen = new Set(list.items.filter((k) => (k.spec?.suspend === true) === suspended).map((k) => `${k.metadata?.namespace}/${k.metadata?.name}`));
    right = seen;
    if (seen.size === size) return;
    let settle!: (outcome: "all" | "ended" | "late") => void;
    const outcome = new Promise<"all" | "ended" | "late">((r) => (settle = r));
    const timer = setTimeout(() => settle("late"), Math.max(0, deadline - Date.now()));
    const watch = await new Watch(cp.kubeConfig).watch(
      `/apis/${KUSTOMIZATIONS.group}/${KUSTOMIZATIONS.version}/${KUSTOMIZATIONS.plural}`,
      { resourceVersion: list.metadata?.resourceVersion, labelSelector: BENCH_LABEL },
      (_phase: string, obj: KubernetesObject & { spec?: { suspend?: boolean } }) => {
        const key = `${obj.metadata?.namespace}/${obj.metadata?.name}`;
        if ((obj.spec?.suspend === true) === suspended) seen.add(key);
        else seen.delete(key);
        if (seen.size === size) settle("all");
      },
      (err: unknown) => {
        ended.push(err instanceof Error ? err.message : err === null || err === undefined ? "closed" : JSON.stringify(err));
        settle("ended");
      },
    );
    const result = await outcome;
    clearTimeout(timer);
    watch.abort();
    if (result === "all") return;
    if (result === "late") break;
  }
  const watches = ended.length === 0 ? "" : `; the bench's watch ended ${ended.length} time(s) before (${ended.slice(-3).join("; ")}), listed again each time`;
  const log = controller === undefined ? "" : `; the controller's last lines of log:\n${controller.logTail().join("\n")}`;
  throw new Error(`only ${right.size} of ${size} targets reached suspend: ${String(suspended)} within ${timeoutMs / 1000} s${watches}${log}`);
}

/**
 * Starts the controller on a fleet of `size` targets whose windows are all closed, waits until it
 * enforced them, measures it idle for `idleSeconds`, then kills it, leaves every target resumed
 * (as if the windows had closed while it was down) and measures how long a restart takes to
 * put every target right.
 */
export async function processBench(cp: ControlPlane, main: string, size: number, round: number, idleSeconds: number): Promise<[IdleLine, RecoveryLine]> {
  const identity = await installFluxgate(cp);
  const { targets } = await seedFleet(cp, size, `idle-${round}`, { start: "0 0 1 1 *", duration: "1h" });
  const timeout = 120_000 + size * 60;

  const env = await deployedEnv();
  const spawnedAt = Date.now();
  let c = spawnController(identity.kubeconfigPath, env, main);
  try {
    await whenAll(cp, size, true, timeout, c);
    const firstEnforceMs = Date.now() - spawnedAt;
    // Let status writes and debounces finish, then measure a quiet stretch.
    await sleep(10_000);
    const pid = c.child.pid as number;
    const [m0, a0, cpu0] = [await controllerMetrics(c), await apiserverMetrics(cp.kubeConfig), await cpuMs(pid)];
    const t0 = Date.now();
    await sleep(idleSeconds * 1000);
    const [m1, a1, cpu1] = [await controllerMetrics(c), await apiserverMetrics(cp.kubeConfig), await cpuMs(pid)];
    const elapsed = Date.now() - t0;
    const memory = await memoryMiB(pid);
    const perMin = (n: number): number => Math.round((n / elapsed) * 60_000 * 10) / 10;
    const idle: IdleLine = {
      bench: "controller.idle",
      targets: size,
      seconds: Math.round(elapsed / 1000),
      requestsPerMin: perMin(sumOf(m1, "fluxgate_api_requests_total") - sumOf(m0, "fluxgate_api_requests_total")),
      writesPerMin: perMin(
        sumOf(m1, "fluxgate_api_requests_total", /verb="(apply|create|update|patch|delete)"/) -
          sumOf(m0, "fluxgate_api_requests_total", /verb="(apply|create|update|patch|delete)"/),
      ),
      apiserverRequestsPerMin: perMin(sumOf(a1, "apiserver_request_total") - sumOf(a0, "apiserver_request_total")),
      cpuPercent: Math.round(((cpu1 - cpu0) / elapsed) * 1000) / 10,
      rssMiB: memory.rss,
      heapUsedMiB: Math.round(sumOf(m1, "fluxgate_process_nodejs_heap_size_used_bytes") / 104_857.6) / 10,
      peakRssMiB: memory.peak,
    };

    // Crash mid-window: the windows "closed" while the controller was down, so every target is left resumed.
    c.child.kill("SIGKILL");
    await c.exited;
    const objects = identity.kubeConfig.makeApiClient(KubernetesObjectApi);
    await pool(targets, 16, async (t) => {
      await objects.patch(
        { apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", metadata: { name: t.name, namespace: t.namespace }, spec: { suspend: false } },
        undefined,
        undefined,
        "fluxgate",
        true,
        PatchStrategy.ServerSideApply,
      );
    });
    if ((await suspendedCount(cp)) !== 0) throw new Error("the fleet was not left resumed");
    const restartedAt = Date.now();
    c = spawnController(identity.kubeconfigPath, env, main);
    const health = await c.healthAddr;
    const ready = until("/readyz", async () => (await fetch(`http://${health}/readyz`).catch(() => undefined))?.status === 200, timeout, 50).then(
      () => Date.now() - restartedAt,
    );
    await whenAll(cp, size, true, timeout, c);
    const correctMs = Date.now() - restartedAt;
    const readyMs = await ready;
    await sleep(2_000);
    const writes = sumOf(await controllerMetrics(c), "fluxgate_api_requests_total", /verb="apply",resource="kustomizations"/);
    const recovery: RecoveryLine = {
      bench: "controller.recovery",
      targets: size,
      firstEnforceMs,
      readyMs,
      correctMs,
      writesPerTarget: Math.round((writes / size) * 100) / 100,
    };
    return [idle, recovery];
  } finally {
    c.child.kill("SIGTERM");
    await c.exited;
  }
}

/** The idle and recovery benches at each size, each on a fresh control plane, with the controller built as the image builds it. */
export async function processBenches(sizes: readonly number[], idleSeconds: number): Promise<Array<IdleLine | RecoveryLine>> {
  const out: Array<IdleLine | RecoveryLine> = [];
  const cli = await buildCli();
  try {
    for (const [i, size] of sizes.entries()) {
      const cp = await startControlPlane();
      try {
        out.push(...(await processBench(cp, cli.main, size, i, idleSeconds)));
      } finally {
        await cp.stop();
      }
    }
  } finally {
    await cli.remove();
  }
  return out;
}
