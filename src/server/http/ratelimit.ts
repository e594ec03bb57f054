// Rate limiting per caller: a token bucket that refills at a steady rate and allows short bursts.

export interface RateLimitOptions {
  /** Requests a caller may make in a burst. */
  burst: number;
  /** Requests per second a caller may sustain. */
  perSecond: number;
}

/** Buckets per caller key; idle callers are forgotten. */
export class RateLimiter {
  private readonly options: RateLimitOptions;
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(options: RateLimitOptions) {
    this.options = options;
  }

  /** Takes one request from `key`'s bucket: 0 when allowed, else the seconds to wait. */
  take(key: string, now: number): number {
    const { burst, perSecond } = this.options;
    const bucket = this.buckets.get(key) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (this.buckets.size > 10_000) this.forgetIdle(now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - bucket.tokens) / perSecond);
  }

  private forgetIdle(now: number): void {
    const full = (this.options.burst / this.options.perSecond) * 1000;
    for (const [key, b] of this.buckets) if (now - b.at > full) this.buckets.delete(key);
  }
}
