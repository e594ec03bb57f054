// A de-duplicating work queue with delayed adds and per-key rate-limited retries, as controllers use.
//
// A key is never processed by two workers at once; a key added while it is being processed is
// processed again afterwards. Keys added several times before a worker takes them run once.

import { jittered } from "./jitter.ts";

/**
 * What a handler asks of the queue after processing a key. `afterFirstLane`: process it again once
 * no key of the first lane is waiting or in flight (at once if none is), instead of holding a worker
 * while it waits for them — or once `maxMs` have passed since the key first asked, the lane still
 * busy (see WorkQueue.waitedOut).
 */
export type Outcome = { kind: "done" } | { kind: "requeueAfter"; ms: number } | { kind: "retry"; error: unknown } | { kind: "afterFirstLane"; maxMs: number };

export interface QueueOptions {
  /** Keys processed at once. */
  concurrency: number;
  /** First retry delay after an error; doubles per consecutive failure of the key. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /**
   * Keys for which this is true are taken before every other waiting key (a lane of their own):
   * the writes a user waits for go ahead of the bookkeeping that follows them.
   */
  first?: (key: string) => boolean;
}

export type Handler = (key: string) => Promise<Outcome>;

/** A queue of keys processed by `concurrency` workers. */
export class WorkQueue {
  private readonly pending = new Set<string>();
  private readonly order: string[] = [];
  private readonly firstOrder: string[] = [];
  private readonly active = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly failures = new Map<string, number>();
  private readonly options: Required<Omit<QueueOptions, "first">>;
  private readonly isFirst: (key: string) => boolean;
  private handler: Handler | null = null;
  private running = 0;
  /** Workers started (counted in running) that have not taken a key yet: they take one at their turn (work()). */
  private starting = 0;
  private idleWaiters: (() => void)[] = [];
  /** Keys of the first lane in flight, and who waits for the lane to be empty. */
  private firstActive = 0;
  private firstIdleWaiters: (() => void)[] = [];
  /** Keys to add again once the first lane is empty (the `afterFirstLane` outcome), each with the timer that adds it anyway at its bound. */
  private readonly afterFirst = new Map<string, NodeJS.Timeout>();
  /** Keys added again because their wait reached its bound, the first lane still busy, until a run of theirs ends (waitedOut()). */
  private readonly waitedOutKeys = new Set<string>();
  /** Keys waiting for their turn of the event loop (turn()). */
  private readonly turns: (() => void)[] = [];

  constructor(options: QueueOptions) {
    const { first, ...rest } = options;
    this.options = { baseDelayMs: 200, maxDelayMs: 300_000, ...rest };
    this.isFirst = first ?? (() => false);
  }

  /** Starts processing with `handler`. Keys added before are kept. */
  start(handler: Handler): void {
    this.handler = handler;
    this.pump();
  }

  /** Stops taking new keys; keys in flight finish. Pending keys and timers are dropped. */
  stop(): void {
    this.handler = null;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.stopWaiting();
    this.waitedOutKeys.clear();
    this.pending.clear();
    this.order.length = 0;
    this.firstOrder.length = 0;
    this.pump();
  }

  /** Adds a key for processing now. */
  add(key: string): void {
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.pending.has(key)) return;
    this.pending.add(key);
    (this.isFirst(key) ? this.firstOrder : this.order).push(key);
    this.pump();
  }

  /** Adds a key after `ms`; an earlier scheduled add of the same key wins. */
  addAfter(key: string, ms: number): void {
    if (ms <= 0) {
      this.add(key);
      return;
    }
    // Monotonic, as setTimeout is: after a wall-clock jump, a re-plan's new delay replaces an old timer that would fire late.
    const at = performance.now() + ms;
    const existing = this.timers.get(key);
    if (existing !== undefined) {
      if (existing.at <= at) return;
      clearTimeout(existing.timer);
    }
    // Timers are capped so a far-away transition is re-planned by the periodic resync instead.
    const timer = setTimeout(
      () => {
        this.timers.delete(key);
        this.add(key);
      },
      Math.min(ms, 2 ** 31 - 1),
    );
    timer.unref();
    this.timers.set(key, { at, timer });
  }

  /**
   * Retries at once every key waiting out a failure's backoff, its failures forgotten: the cause
   * went away (the API server is back), so the backoff built up meanwhile would only add delay.
   * Keys waiting for a requested time (a transition) keep it.
   */
  retryFailedNow(): number {
    const keys = [...this.failures.keys()];
    this.failures.clear();
    for (const key of keys) {
      const timer = this.timers.get(key);
      if (timer !== undefined) {
        clearTimeout(timer.timer);
        this.timers.delete(key);
      }
      this.add(key);
    }
    return keys.length;
  }

  /**
   * True while `key` runs because its `afterFirstLane` wait reached its bound, the first lane still
   * busy: the handler must then do what it waited to do, since asking to wait again would wait
   * another full bound. Lasts until that run ends; a key added again because the lane emptied, or
   * never waiting, gets false.
   *
   * The deadline is the queue's, so the handler keeps no clock of its own: a key asking again while
   * it waits (added meanwhile for another reason, the lane still busy) keeps the deadline of its
   * first ask; any other outcome ends the wait and drops its timer. A new wait starts only after the
   * key was added again (the lane emptied, or the deadline passed and that run ended).
   */
  waitedOut(key: string): boolean {
    return this.waitedOutKeys.has(key);
  }

  /** Keys waiting or in flight. */
  get length(): number {
    return this.pending.size + this.active.size;
  }

  /**
   * Resolves when no key of the first lane is waiting or in flight: what follows the first lane's
   * work (events, at a transition) waits for it here instead of competing with it.
   */
  firstLaneIdle(): Promise<void> {
    if (!this.firstLaneBusy()) return Promise.resolve();
    return new Promise<void>((resolve) => this.firstIdleWaiters.push(resolve));
  }

  /** True while a key of the first lane is waiting or in flight. */
  firstLaneBusy(): boolean {
    return this.firstOrder.length > 0 || this.firstActive > 0;
  }

  /** Resolves when no key is waiting or in flight (delayed adds do not count). */
  async idle(): Promise<void> {
    if (this.length === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (this.handler !== null && this.running < this.options.concurrency && this.firstOrder.length + this.order.length > this.starting) {
      this.running++;
      this.starting++;
      void this.work();
    }
    if ((this.firstOrder.length === 0 || this.handler === null) && this.firstActive === 0) {
      if (this.firstIdleWaiters.length > 0) {
        const waiters = this.firstIdleWaiters;
        this.firstIdleWaiters = [];
        for (const w of waiters) w();
      }
      if (this.afterFirst.size > 0 && this.handler !== null) for (const key of this.stopWaiting()) this.add(key);
    }
    if (this.length === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  /**
   * Resolves at a turn of the event loop of this key's own. Reconciles that need no request (a
   * resync, a start over thousands of targets already in place) would otherwise chain as microtasks
   * through the whole queue, and /readyz, /metrics and the watches would wait for all of it (seconds
   * at 1,000 targets). One turn per key, not one per batch of workers: the workers' turns queued by
   * one pump would all run in the same turn of the loop, 16 window reconciles (~100 ms of bytecode at
   * a cold start) before a probe is answered.
   */
  private turn(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.turns.push(resolve);
      if (this.turns.length === 1) setImmediate(this.nextTurn);
    });
  }

  /** Lets the first waiting key run; the next waits for the next turn of the loop (an immediate set from an immediate runs in the next). */
  private readonly nextTurn = (): void => {
    this.turns.shift()?.();
    if (this.turns.length > 0) setImmediate(this.nextTurn);
  };

  /** Ends every `afterFirstLane` wait, their timers cleared; returns the keys that waited. */
  private stopWaiting(): string[] {
    const keys = [...this.afterFirst.keys()];
    for (const timer of this.afterFirst.values()) clearTimeout(timer);
    this.afterFirst.clear();
    return keys;
  }

  /**
   * After a run of `key` (`late`: the run began once its wait had reached its bound): an
   * `afterFirstLane` outcome waits for the first lane, until the deadline of its first ask; any
   * other ends the wait.
   */
  private wait(key: string, outcome: Outcome, late: boolean): void {
    if (late) this.waitedOutKeys.delete(key);
    const waiting = this.afterFirst.get(key);
    if (outcome.kind !== "afterFirstLane") {
      clearTimeout(waiting);
      this.afterFirst.delete(key);
      return;
    }
    // Waiting already: the deadline of its first ask stands. Its bound passed while this run was
    // under way: it is added again (dirty) and that run is told. Stopped: nothing to wait for.
    if (waiting !== undefined || this.waitedOutKeys.has(key) || this.handler === null) return;
    // Monotonic, as setTimeout is: a wall-clock jump neither shortens nor stretches the wait.
    const timer = setTimeout(
      () => {
        this.afterFirst.delete(key);
        this.waitedOutKeys.add(key);
        this.add(key);
      },
      Math.min(Math.max(0, outcome.maxMs), 2 ** 31 - 1),
    );
    timer.unref();
    this.afterFirst.set(key, timer);
  }

  /**
   * One worker: it takes its key at its own turn of the event loop, not when it was started, so that
   * keys of the first lane added meanwhile go before keys of the second added just before them (at a
   * transition the windows' timers and their targets' fire together, in no useful order).
   */
  private async work(): Promise<void> {
    await this.turn();
    this.starting--;
    const handler = this.handler;
    const key = handler === null ? undefined : (this.firstOrder.shift() ?? this.order.shift());
    if (handler === null || key === undefined) {
      this.running--;
      this.pump();
      return;
    }
    this.pending.delete(key);
    this.active.add(key);
    if (this.isFirst(key)) this.firstActive++;
    const late = this.waitedOutKeys.has(key);
    let outcome: Outcome;
    try {
      outcome = await handler(key);
    } catch (error) {
      outcome = { kind: "retry", error };
    }
    this.active.delete(key);
    this.running--;
    if (this.isFirst(key)) this.firstActive--;
    if (outcome.kind === "retry") {
      const n = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, n);
      const delay = Math.min(this.options.baseDelayMs * 2 ** (n - 1), this.options.maxDelayMs);
      this.addAfter(key, jittered(delay));
    } else {
      this.failures.delete(key);
      if (outcome.kind === "requeueAfter") this.addAfter(key, outcome.ms);
    }
    // Added again by pump() once the first lane is empty, which may be at once, or by its timer.
    this.wait(key, outcome, late);
    if (this.dirty.delete(key)) this.add(key);
    this.pump();
  }
}
