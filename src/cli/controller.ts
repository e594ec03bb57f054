// `fluxgate controller`: runs the reconciliation-window controller until SIGTERM or SIGINT.

// First: zod is told before the API's schemas are made (controller-zod.ts).
import "./controller-zod.ts";
import type { Server } from "node:http";
import { hostname } from "node:os";
import { DEFAULT_TARGET_KINDS, TARGET_RESOURCES } from "../kube/resources.ts";
import { loadKubeConfig } from "../kube/connection.ts";
import { Controller } from "../controller/controller.ts";
import { metricsRoute, parseAddress, serve } from "../controller/http.ts";
import { jsonLogger, parseLogLevel } from "../kube/log.ts";
import { Metrics } from "../controller/metrics.ts";
import { InputError } from "../errors.ts";
import { parseDuration } from "../schedule/index.ts";
import { OperationalError, UsageError } from "./errors.ts";
import { stopSignals } from "./signals.ts";
import { CONTROLLER_NAMESPACE } from "../api/constants.ts";
import { str, type CommandResult, type Values } from "./command.ts";

/** Runs `fluxgate controller` (its spec: specs.ts). */
export function runController(v: Values): Promise<CommandResult> {
  return controller({
    kubeconfig: str(v.kubeconfig),
    context: str(v.context),
    namespaces: Array.isArray(v.namespace) ? v.namespace : [],
    targetKinds: str(v["target-kinds"]),
    noCrossNamespaceRefs: v["no-cross-namespace-refs"] === true,
    metricsAddr: str(v["metrics-addr"]) ?? ":8080",
    healthAddr: str(v["health-addr"]) ?? ":8081",
    leaderElect: v["leader-elect"] === true,
    leaderElectionNamespace: str(v["leader-election-namespace"]),
    leaseDuration: str(v["leader-election-lease-duration"]),
    resyncPeriod: str(v["resync-period"]) ?? "10m",
    logLevel: str(v["log-level"]) ?? "info",
    eventsAddress: str(v["events-address"]),
    heartbeatInterval: str(v["heartbeat-interval"]),
  });
}

export interface ControllerCommandOptions {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  /** Namespaces to watch; empty for all. */
  namespaces: readonly string[];
  /** Comma-separated kinds; default Kustomization,HelmRelease,ImageUpdateAutomation. */
  targetKinds?: string | undefined;
  metricsAddr: string;
  healthAddr: string;
  leaderElect: boolean;
  leaderElectionNamespace?: string | undefined;
  /** How long a lease lasts without renewal; default 15s. */
  leaseDuration?: string | undefined;
  resyncPeriod: string;
  logLevel: string;
  eventsAddress?: string | undefined;
  /** Go duration: forward a Heartbeat of every governed target this often (needs eventsAddress). */
  heartbeatInterval?: string | undefined;
  /** As Flux's flag: a window acts only on targets in its own namespace. */
  noCrossNamespaceRefs?: boolean;
  /** Resolves when the controller should stop; default: on SIGTERM or SIGINT. */
  until?: Promise<void>;
}

function addressOf(server: Server | undefined): string {
  const a = server?.address();
  return a !== null && typeof a === "object" ? `${a.address.includes(":") ? `[${a.address}]` : a.address}:${a.port}` : String(a);
}

/** Runs a parser of a flag's value; what it rejects is bad input (exit 2), also when it throws a plain Error (a kubeconfig that cannot be read). */
function usage<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new UsageError((e as Error).message, { cause: e });
  }
}

/** Runs the controller; returns when asked to stop (or when it loses the leader lease). */
export async function controller(options: ControllerCommandOptions): Promise<string> {
  const kinds = (options.targetKinds ?? DEFAULT_TARGET_KINDS.join(","))
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k !== "");
  for (const k of kinds) {
    if (TARGET_RESOURCES[k] === undefined) throw new UsageError(`--target-kinds: unknown kind "${k}"; one of ${Object.keys(TARGET_RESOURCES).join(", ")}`);
  }
  const resyncPeriodMs = usage(() => parseDuration(options.resyncPeriod));
  const leaseDurationMs = usage(() => parseDuration(options.leaseDuration ?? "15s"));
  if (leaseDurationMs < 2_000) throw new UsageError(`--leader-election-lease-duration ${options.leaseDuration ?? ""}: must be at least 2s`);
  const level = usage(() => parseLogLevel(options.logLevel));
  const metricsAddress = usage(() => parseAddress("--metrics-addr", options.metricsAddr));
  const healthAddress = usage(() => parseAddress("--health-addr", options.healthAddr));
  if (options.eventsAddress !== undefined && !/^https?:\/\//.test(options.eventsAddress)) {
    throw new UsageError(
      `--events-address ${options.eventsAddress}: must be an http(s) URL, e.g. http://notification-controller.flux-system.svc.cluster.local./`,
    );
  }
  if (options.heartbeatInterval !== undefined && options.eventsAddress === undefined)
    throw new UsageError("--heartbeat-interval needs --events-address: heartbeats go to notification-controller");
  const heartbeatMs = options.heartbeatInterval === undefined ? undefined : usage(() => parseDuration(options.heartbeatInterval as string));
  if (heartbeatMs !== undefined && heartbeatMs < 10_000) throw new UsageError(`--heartbeat-interval ${options.heartbeatInterval ?? ""}: must be at least 10s`);
  const kubeConfig = usage(() => loadKubeConfig({ kubeconfig: options.kubeconfig, context: options.context }));
  const log = jsonLogger(level);
  const metrics = new Metrics();
  const identity = `${hostname()}-${process.pid}`;
  let lost = false;
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const c = new Controller({
    kubeConfig,
    namespaces: options.namespaces,
    targetKinds: kinds,
    resyncPeriodMs,
    eventsAddress: options.eventsAddress,
    heartbeatMs,
    noCrossNamespaceRefs: options.noCrossNamespaceRefs ?? false,
    log,
    metrics,
    leaderElection: options.leaderElect
      ? {
          namespace: options.leaderElectionNamespace ?? process.env.POD_NAMESPACE ?? CONTROLLER_NAMESPACE,
          name: "fluxgate-controller-leader",
          identity,
          // As client-go's defaults (15 s, 10 s, 2 s), scaled to the lease duration.
          leaseDurationMs,
          renewDeadlineMs: Math.round((leaseDurationMs * 2) / 3),
          retryPeriodMs: Math.round(leaseDurationMs / 7.5),
        }
      : undefined,
    onLostLeadership: () => {
      lost = true;
      stop();
    },
  });
  const servers = [
    await serve(metricsAddress, { "/metrics": metricsRoute(metrics) }),
    await serve(healthAddress, {
      "/healthz": () => Promise.resolve({ status: 200, type: "text/plain", body: "ok\n" }),
      "/readyz": () =>
        Promise.resolve(c.ready ? { status: 200, type: "text/plain", body: "ok\n" } : { status: 503, type: "text/plain", body: "informers not synced\n" }),
    }),
  ];
  log.info("Started controller", {
    identity,
    namespaces: options.namespaces.join(",") || "all",
    targetKinds: kinds.join(","),
    noCrossNamespaceRefs: options.noCrossNamespaceRefs ?? false,
    metricsAddr: addressOf(servers[0]),
    healthAddr: addressOf(servers[1]),
  });
  const signals = stopSignals(() => stop());
  void options.until?.then(() => stop());
  try {
    await Promise.race([c.start(), stopped]);
    await stopped;
  } finally {
    signals.dispose();
    await c.stop();
    for (const s of servers) s.close();
    log.info("Stopped controller", { identity });
  }
  if (lost) throw new OperationalError("lost the leader lease; restart to campaign again");
  return "";
}
