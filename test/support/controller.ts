// The one way tests start a controller in this process: on a kubeconfig (least-privilege, or through a fault proxy), a clock, and quiet logs.

import type { KubeConfig } from "@kubernetes/client-node";
import { Controller, type Clock, type ControllerOptions } from "../../src/controller/controller.ts";
import { jsonLogger } from "../../src/kube/log.ts";
import { Metrics } from "../../src/controller/metrics.ts";

export interface TestControllerOptions {
  kubeConfig: KubeConfig;
  /** Namespaces to watch; empty (the default) for all. */
  namespaces?: readonly string[];
  /** Kinds of targets to watch; Kustomization and HelmRelease by default. */
  targetKinds?: readonly string[];
  clock?: Clock;
  resyncPeriodMs?: number;
  eventsAddress?: string;
  noCrossNamespaceRefs?: boolean;
  /**
   * Where its log lines go. "stderr" (the default): errors (debug with FLUXGATE_TEST_LOG=debug), for tests that
   * read the controller's logs; "quiet": nowhere unless FLUXGATE_TEST_LOG is set, for tests where
   * the controller's errors are expected (faults) or would bury what the test prints (CLI).
   */
  logs?: "stderr" | "quiet";
  /** Replaced or added options, for what the choices above do not cover. */
  extra?: Partial<ControllerOptions>;
}

/**
 * Starts a controller in this process and waits for its informers to sync.
 *
 * @example const c = await startTestController({ kubeConfig: s.controllerKubeConfig, namespaces: [s.namespace], clock }); t.after(() => c.stop());
 */
export async function startTestController(options: TestControllerOptions): Promise<Controller> {
  const level = process.env.FLUXGATE_TEST_LOG === "debug" ? "debug" : "error";
  const quiet = (line: string): void => {
    if (process.env.FLUXGATE_TEST_LOG !== undefined) process.stderr.write(line);
  };
  const c = new Controller({
    kubeConfig: options.kubeConfig,
    namespaces: options.namespaces ?? [],
    targetKinds: options.targetKinds ?? ["Kustomization", "HelmRelease"],
    resyncPeriodMs: options.resyncPeriodMs ?? 600_000,
    log: options.logs === "quiet" ? jsonLogger(level, quiet) : jsonLogger(level),
    metrics: new Metrics(),
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
    ...(options.eventsAddress !== undefined ? { eventsAddress: options.eventsAddress } : {}),
    ...(options.noCrossNamespaceRefs !== undefined ? { noCrossNamespaceRefs: options.noCrossNamespaceRefs } : {}),
    ...options.extra,
  });
  await c.start();
  return c;
}
