// Starting components as detached processes with logs under the control-plane directory, and stopping exactly those pids.
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { StartupError } from "./errors.ts";
import { alive } from "./lock.ts";

/** A started component: its pid, the program it runs, and where it logs. */
export interface ComponentProcess {
  readonly name: string;
  readonly pid: number;
  readonly command: string;
  readonly log: string;
}

export interface SpawnOptions {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly logDir: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
}

/**
 * Starts a component in its own process group so it outlives the CLI that started it; stdout and
 * stderr go to `<logDir>/<name>.log`.
 */
export function spawnComponent(options: SpawnOptions): ComponentProcess {
  const log = join(options.logDir, `${options.name}.log`);
  const fd = openSync(log, "a");
  try {
    const child = spawn(options.command, [...options.args], {
      detached: true,
      stdio: ["ignore", fd, fd],
      env: options.env ?? process.env,
      cwd: options.cwd,
    });
    if (child.pid === undefined) throw new StartupError(`could not start ${options.name} (${options.command})`);
    child.unref();
    return { name: options.name, pid: child.pid, command: options.command, log };
  } finally {
    closeSync(fd);
  }
}

/** Whether `pid` is still the process we started (pids are reused, so the command line must match too). */
export function isRunning(proc: ComponentProcess): boolean {
  try {
    const stat = readFileSync(`/proc/${proc.pid}/stat`, "utf8");
    // A zombie (state Z) has exited; it only waits to be reaped by its parent.
    if (/\) Z /.test(stat)) return false;
    return readFileSync(`/proc/${proc.pid}/cmdline`, "utf8").split("\0")[0] === proc.command;
  } catch {
    return false;
  }
}

/** Sends SIGTERM to each process, waits up to `graceMs`, then SIGKILLs what is left. */
export async function stopComponents(procs: readonly ComponentProcess[], graceMs = 10_000): Promise<void> {
  const signal = (proc: ComponentProcess, sig: NodeJS.Signals): void => {
    if (!isRunning(proc)) return;
    try {
      process.kill(proc.pid, sig);
    } catch {
      // already gone
    }
  };
  for (const proc of procs) signal(proc, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && procs.some(isRunning)) await sleep(100);
  for (const proc of procs) signal(proc, "SIGKILL");
  const killDeadline = Date.now() + 5000;
  while (Date.now() < killDeadline && procs.some(isRunning)) await sleep(50);
  const left = procs.filter(isRunning);
  if (left.length > 0) {
    throw new StartupError(`could not stop ${left.map((p) => `${p.name} (pid ${p.pid})`).join(", ")}`);
  }
}

/**
 * Ports below Linux's ephemeral range (32768–60999): a port the kernel hands out for listen(0)
 * comes from the same range as every outgoing connection's, so between checking it and the
 * component binding it, a busy test run's own HTTP clients can take it ("address already in use").
 */
const LOW_PORTS = { from: 20_000, to: 32_000 };

function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolvePromise) => {
    const server = createServer();
    server.once("error", () => resolvePromise(undefined));
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      const bound = typeof address === "object" && address !== null ? address.port : undefined;
      server.close(() => resolvePromise(bound));
    });
  });
}

const CLAIMS = join(tmpdir(), "fluxgate-ports");

/**
 * Claims `port` for this process among the fluxgate processes on this machine: a file named after
 * the port, created only if absent, holds the claimer's pid. A port is found free well before its
 * component binds it (kube-apiserver binds seconds later), so two processes picking ports at once
 * (test files run in parallel, each starting a control plane) could otherwise both take it, and
 * one control plane's kube-apiserver would talk to the other's etcd. A claim whose process is gone
 * is taken over.
 */
export function claimPort(port: number): boolean {
  mkdirSync(CLAIMS, { recursive: true });
  const file = join(CLAIMS, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: "wx" });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    let owner = Number.NaN;
    try {
      owner = Number(readFileSync(file, "utf8"));
    } catch {
      // removed meanwhile: try again
    }
    if (Number.isInteger(owner) && owner > 0 && alive(owner)) return false;
    rmSync(file, { force: true });
  }
  return false;
}

/** A free TCP port on 127.0.0.1, outside the ephemeral range when one is free there (else one the kernel picks), claimed by no other fluxgate process. */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = await tryListen(LOW_PORTS.from + Math.floor(Math.random() * (LOW_PORTS.to - LOW_PORTS.from)));
    if (port !== undefined && claimPort(port)) return port;
  }
  const any = await tryListen(0);
  if (any === undefined) throw new StartupError("no free TCP port on 127.0.0.1");
  return any;
}

/** The last lines of a component's log, for error messages. */
export function logTail(proc: ComponentProcess, lines = 20): string {
  try {
    return readFileSync(proc.log, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

/**
 * Polls `probe` until it returns true; fails early with the component's log if the process dies.
 */
export async function waitReady(proc: ComponentProcess, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!isRunning(proc)) {
      throw new StartupError(`${proc.name} exited while starting; last lines of ${proc.log}:\n${logTail(proc)}`);
    }
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) {
      throw new StartupError(`${proc.name} was not ready after ${timeoutMs / 1000}s; last lines of ${proc.log}:\n${logTail(proc)}`);
    }
    await sleep(200);
  }
}

/** The resident memory of a running process (VmRSS of /proc/PID/status), in bytes; 0 once it is gone. */
export function residentBytes(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m === null ? 0 : Number(m[1]) * 1024;
  } catch {
    return 0;
  }
}
