/**
 * `ms` give or take 20 %: what each retry in fluxgate waits, so that clients and keys that failed together do not all try
 * again at the same instant. Callers cap the result where they have a cap (a transport's maxBackoffMs, a queue's maxDelayMs).
 */
export function jittered(ms: number): number {
  return ms * (0.8 + Math.random() * 0.4);
}
