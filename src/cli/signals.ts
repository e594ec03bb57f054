// How long-running commands stop: on the first SIGINT (Ctrl-C) or SIGTERM, the same way for all of them.

/** A stop request by signal: `signal` aborts (its reason is the signal's name) on the first SIGINT or SIGTERM. */
export interface StopSignal {
  readonly signal: AbortSignal;
  /** Stops listening; the signals' default behaviour (ending the process) is back. */
  dispose(): void;
  [Symbol.dispose](): void;
}

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/** The exit code of a process ended by `signal`, as shells report it (128 + the signal's number). */
export function exitCodeOf(signal: NodeJS.Signals): number {
  return signal === "SIGINT" ? 130 : 143;
}

/**
 * Listens for SIGINT and SIGTERM until the first one or `dispose()`; `onStop` is told which came.
 * While listening, a signal no longer ends the process: the command ends its work and returns.
 *
 * @example
 * using stop = stopSignals();
 * await Promise.race([work(), once(stop.signal, "abort")]);
 */
export function stopSignals(onStop?: (signal: NodeJS.Signals) => void): StopSignal {
  const controller = new AbortController();
  const dispose = (): void => {
    for (const s of SIGNALS) process.off(s, handle);
  };
  function handle(signal: NodeJS.Signals): void {
    dispose();
    onStop?.(signal);
    controller.abort(signal);
  }
  for (const s of SIGNALS) process.once(s, handle);
  return { signal: controller.signal, dispose, [Symbol.dispose]: dispose };
}

/** Resolves when `signal` aborts (at once when it already has). */
export function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
