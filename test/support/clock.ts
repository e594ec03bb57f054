// Clocks for tests: one the test moves (real time plus an offset), one fixed at an instant.

import type { Clock } from "../../src/controller/controller.ts";

/** A clock the test moves: real time plus an offset. */
export class TestClock implements Clock {
  offset = 0;
  now(): number {
    return Date.now() + this.offset;
  }
  /** Sets the clock to `t` (epoch ms) from now on. */
  set(t: number): void {
    this.offset = t - Date.now();
  }
}

/** A clock fixed at `t`: the controller and the CLI see the same instant, so the output is the same every run. */
export function fixedClock(t: number): Clock {
  return { now: () => t };
}
