// Test helpers over a running control plane: a fresh namespace per test, polling, HTTP status of a call.
import { ApiException, CoreV1Api } from "@kubernetes/client-node";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { ControlPlane } from "../../src/devenv/control-plane.ts";
import { WaitTimeoutError } from "../../src/devenv/errors.ts";

/**
 * Creates a namespace with a unique name (`<prefix>-<random>`) and returns the name. There is no
 * namespace controller, so namespaces are not deleted: they go away with the control plane.
 */
export async function freshNamespace(cp: Pick<ControlPlane, "kubeConfig">, prefix = "test"): Promise<string> {
  const name = `${prefix}-${randomBytes(4).toString("hex")}`;
  await cp.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
  return name;
}

export interface WaitOptions {
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
}

/**
 * Polls `probe` until it returns a value other than undefined and returns that value; throws a
 * WaitTimeoutError naming `what` (and the last error, if the probe threw) after the timeout.
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, options: WaitOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? `; last error: ${lastError.message}` : "";
      throw new WaitTimeoutError(`timed out after ${timeoutMs / 1000}s waiting for ${what}${detail}`, { cause: lastError });
    }
    await sleep(options.intervalMs ?? 250);
  }
}

/** The HTTP status of a client call: 200 when it succeeded, the API server's code when it failed. */
export async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (err) {
    if (err instanceof ApiException) return (err as ApiException<unknown>).code;
    throw err;
  }
  return 200;
}
