// A cache of values bounded by their size in bytes: what the service keeps per commit (timelines, calendar feeds, compressed answers), the oldest going first.

/**
 * Values kept by key, each made once however many ask for it at the same time. The least recently
 * used go first once the values hold more than `maxBytes` (as `sizeOf` counts them, plus what
 * `grow` adds); a value whose making failed is not kept.
 */
export class KeptByBytes<V> {
  private readonly entries = new Map<string, Promise<V>>();
  private readonly sizes = new Map<string, number>();
  private bytes = 0;
  private readonly maxBytes: number;
  /** Values given from what was kept (for tests and the bench). */
  hits = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** True when the value for `key` is kept (or on its way). */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** The value for `key`, made by `make` when it is not kept; `sizeOf` null: the value is given but not kept (e.g. a refusal). */
  get(key: string, make: () => Promise<V>, sizeOf: (value: V) => number | null): Promise<V> {
    const known = this.entries.get(key);
    if (known !== undefined) {
      this.hits++;
      // Used again: it goes to the end of the eviction order.
      this.entries.delete(key);
      this.entries.set(key, known);
      return known;
    }
    const made = make();
    this.entries.set(key, made);
    made.then(
      (value) => {
        const n = sizeOf(value);
        if (n !== null) this.grow(key, made, n);
        else if (this.entries.get(key) === made) this.entries.delete(key);
      },
      () => {
        if (this.entries.get(key) === made) this.entries.delete(key);
      },
    );
    return made;
  }

  /** Counts `n` more bytes for the value kept at `key`, when it is still `entry`, and lets the oldest go past the budget. */
  grow(key: string, entry: Promise<V>, n: number): void {
    if (this.entries.get(key) !== entry) return;
    this.sizes.set(key, (this.sizes.get(key) ?? 0) + n);
    this.bytes += n;
    for (const [old] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.bytes -= this.sizes.get(old) ?? 0;
      this.sizes.delete(old);
      this.entries.delete(old);
    }
  }
}
