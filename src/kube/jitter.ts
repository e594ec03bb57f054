// The jitter of the retries against the Kubernetes API (the transport's backoff, the work queue's per-key retry, the event recorder's).

/**
 * `ms` give or take 20 %, so that clients and keys that failed together do not all try again at the same instant. The
 * transport caps the jittered wait at its maxBackoffMs; the queue jitters a delay it has capped at its maxDelayMs.
 */
export function jittered(ms: number): number {
  return ms * (0.8 + Math.random() * 0.4);
}
