// The `fluxgate controller` command as a process (src/cli/main.ts): its JSON log lines, its health address, /readyz.

import { spawn, type ChildProcess } from "node:child_process";
import { waitFor } from "../harness/index.ts";

/** A `fluxgate controller` process and the JSON lines it logged. */
export interface ControllerProcess {
  readonly child: ChildProcess;
  readonly logs: Record<string, unknown>[];
  readonly exited: Promise<void>;
  /** The health address it logged at start (`host:port`), once it started. */
  healthAddr(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Runs `fluxgate controller` (src/cli/main.ts) as a process governing Kustomizations, with metrics and
 * health on free loopback ports and `args` (--kubeconfig, --namespace, ...). `prefix` runs it through
 * another program (unshare), `env` replaces its environment. A line that is not JSON is kept as
 * `{ msg: "(not JSON)", line }`.
 */
export function startControllerProcess(args: string[], options: { prefix?: string[]; env?: NodeJS.ProcessEnv } = {}): ControllerProcess {
  const [command, ...rest] = [
    ...(options.prefix ?? []),
    process.execPath,
    "src/cli/main.ts",
    "controller",
    "--target-kinds",
    "Kustomization",
    "--metrics-addr",
    "127.0.0.1:0",
    "--health-addr",
    "127.0.0.1:0",
    ...args,
  ];
  const child = spawn(command as string, rest, { stdio: ["ignore", "ignore", "pipe"], env: options.env ?? process.env });
  const logs: Record<string, unknown>[] = [];
  let buffer = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    let i;
    while ((i = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ msg: "(not JSON)", line });
      }
    }
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    child,
    logs,
    exited,
    healthAddr: async () => {
      const started = await waitFor("the controller to start", () => Promise.resolve(logs.find((l) => l.msg === "Started controller")), { timeoutMs: 30_000 });
      return String(started.healthAddr);
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Waits until the controller answers /readyz with 200 (its informers synced through the API server). */
export async function waitControllerReady(c: ControllerProcess): Promise<void> {
  const health = await c.healthAddr();
  await waitFor(
    "/readyz to answer 200",
    async () => {
      if (c.child.exitCode !== null) throw new Error(`the controller exited with ${c.child.exitCode}: ${JSON.stringify(c.logs.slice(-5))}`);
      return (await fetch(`http://${health}/readyz`)).status === 200 ? true : undefined;
    },
    { timeoutMs: 30_000 },
  );
}
