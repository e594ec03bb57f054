// What both demos watch the clusters with: a snapshot read several times a second, each change told as timeline entries, conditions awaited with a deadline.

import { setTimeout as sleep } from "node:timers/promises";
import { Failure } from "../errors.ts";
import { statusCodeOf } from "../kube/errors.ts";

/** A condition did not hold in time; the message says what was awaited. */
export class DemoTimeoutError extends Failure {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { reason: "Timeout", cause: options?.cause });
  }
}

/** What `read` returns, or undefined when the object is not there (404). */
export async function orUndefined<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (e) {
    if (statusCodeOf(e) === 404) return undefined;
    throw e;
  }
}

interface Waiter<S> {
  probe: (s: S) => boolean;
  deadline: number;
  what: string;
  resolve: (s: S) => void;
  reject: (e: Error) => void;
}

/** Polls a snapshot of type `S` every `pollMs`, hands what changed (entries `E`) to `onEntries`, and resolves waiters whose condition holds. */
export abstract class Poller<S, E> {
  private readonly pollMs: number;
  private readonly onEntries: (entries: E[]) => void;
  protected readonly now: () => number;
  private current: S | undefined;
  private waiters: Waiter<S>[] = [];
  private running = false;
  private loop: Promise<void> | undefined;
  private lastError: unknown;

  constructor(pollMs: number, onEntries: (entries: E[]) => void, now: () => number) {
    this.pollMs = pollMs;
    this.onEntries = onEntries;
    this.now = now;
  }

  /** One look at what is watched. */
  protected abstract read(): Promise<S>;
  /** What changed between two looks (`prev` undefined: the first look), in the order of cause and effect. */
  protected abstract changes(prev: S | undefined, next: S): E[];

  /** The last snapshot read, undefined before the first. */
  protected get last(): S | undefined {
    return this.current;
  }

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    for (const w of this.waiters) w.reject(new DemoTimeoutError(`stopped while waiting for ${w.what}`));
    this.waiters = [];
  }

  /**
   * Resolves with the first snapshot (this one or a later one) for which `probe` holds; rejects
   * after `timeoutMs` with a DemoTimeoutError naming `what`.
   */
  until(what: string, probe: (s: S) => boolean, timeoutMs: number): Promise<S> {
    if (this.current !== undefined && probe(this.current)) return Promise.resolve(this.current);
    return new Promise((resolve, reject) => this.waiters.push({ probe, deadline: this.now() + timeoutMs, what, resolve, reject }));
  }

  /** The first snapshot within `ms` for which `probe` holds, or undefined when it never did. */
  async holdsWithin(probe: (s: S) => boolean, ms: number): Promise<S | undefined> {
    try {
      return await this.until("", probe, ms);
    } catch (e) {
      if (e instanceof DemoTimeoutError) return undefined;
      throw e;
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const next = await this.read();
        const entries = this.changes(this.current, next);
        this.current = next;
        if (entries.length > 0) this.onEntries(entries);
        this.lastError = undefined;
      } catch (e) {
        this.lastError = e; // an API server or the Config Service may be busy for a moment; the next poll tries again
      }
      const now = this.now();
      this.waiters = this.waiters.filter((w) => {
        if (this.current !== undefined && w.probe(this.current)) {
          w.resolve(this.current);
          return false;
        }
        if (now > w.deadline) {
          const detail = this.lastError instanceof Error ? ` (last error: ${this.lastError.message})` : "";
          w.reject(new DemoTimeoutError(`timed out waiting for ${w.what}${detail}`));
          return false;
        }
        return true;
      });
      await sleep(this.pollMs);
    }
  }
}
