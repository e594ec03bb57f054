// Fuzzing harness: each property runs with a fixed seed in a worker thread, so that a call that never returns is stopped and reported with its input and the
// seed.
//
// fast-check's own time limits cannot stop a synchronous loop that never ends (they act between
// runs), so the properties run in a worker and the test's thread keeps a watchdog: the worker
// posts each input before the call, and when no call finishes for HANG_MS the worker is
// terminated and the test fails naming that input. HANG_MS is a hang detector, not a speed goal.

import assert from "node:assert/strict";
import { test } from "node:test";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import fc from "fast-check";

/** The seed of every fuzz property: runs are the same at every run. Override with FLUXGATE_FUZZ_SEED to explore. */
export const SEED = Number(process.env["FLUXGATE_FUZZ_SEED"] ?? 20261122);

/** A call that has not returned after this long counts as a hang. */
const HANG_MS = 20_000;

export interface FuzzProperty<T> {
  /** The inputs. */
  arbitrary: fc.Arbitrary<T>;
  /** Runs the code under test on one input; throws (an AssertionError) when the outcome is not acceptable. */
  check: (input: T) => void | Promise<void>;
  numRuns: number;
  /** Runs once in the worker before the first input, e.g. to build a fixture that `check` uses. */
  setup?: () => Promise<void>;
  /** Runs once in the worker after the last input. */
  teardown?: () => Promise<void>;
}

type Message = { type: "input"; run: number; text: string } | { type: "done"; runs: number } | { type: "failed"; message: string };

/** At most this much of an input goes into a report. */
const SHOWN = 600;

function show(input: unknown): string {
  const text = fc.stringify(input);
  return text.length > SHOWN ? `${text.slice(0, SHOWN)}... (${text.length} characters)` : text;
}

/**
 * Declares fuzz properties from a test file: in the test's thread, one node:test test per property,
 * each running the property in a worker (the same file, loaded again); in that worker, the property.
 *
 * @example fuzz(import.meta.url, { "any text is a schedule or a ScheduleError": { arbitrary: fc.string(), check: (s) => ..., numRuns: 2000 } });
 */
export function fuzz(file: string, properties: Record<string, FuzzProperty<any>>): void {
  if (isMainThread) {
    for (const name of Object.keys(properties)) test(name, () => runInWorker(file, name, (properties[name] as FuzzProperty<unknown>).numRuns));
    return;
  }
  const data = workerData as { fuzzFile?: string; property?: string } | null;
  if (data?.fuzzFile !== file || data.property === undefined) return;
  const property = properties[data.property];
  if (property === undefined) throw new Error(`no fuzz property named ${data.property}`);
  void runProperty(property as FuzzProperty<unknown>);
}

async function runProperty(p: FuzzProperty<unknown>): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error("runProperty runs in a worker");
  const post = (m: Message): void => port.postMessage(m);
  let run = 0;
  const before = (input: unknown): void => post({ type: "input", run: ++run, text: show(input) });
  try {
    await p.setup?.();
    // Asynchronous for every property: one harness for pure functions and for in-process HTTP calls.
    const outcome = await fc.check(
      fc.asyncProperty(p.arbitrary, async (input) => {
        before(input);
        await p.check(input);
      }),
      { seed: SEED, numRuns: p.numRuns, includeErrorInReport: true },
    );
    await p.teardown?.();
    if (outcome.failed) {
      post({ type: "failed", message: fc.defaultReportMessage(outcome) ?? `failed with seed ${SEED}` });
      return;
    }
    post({ type: "done", runs: outcome.numRuns });
  } catch (e) {
    post({ type: "failed", message: `the fuzz harness failed (seed ${SEED}): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}` });
  }
}

function runInWorker(file: string, property: string, numRuns: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(file), { workerData: { fuzzFile: file, property }, stdout: false, stderr: false });
    let last: { run: number; text: string } | null = null;
    let watchdog: NodeJS.Timeout | undefined;
    let settled = false;
    const finish = (error?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(watchdog);
      void worker.terminate();
      if (error === undefined) resolve();
      else reject(error);
    };
    const arm = (): void => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => {
        const what = last === null ? "before the first input" : `at run ${last.run}, input ${last.text}`;
        finish(new Error(`a call did not return within ${HANG_MS / 1000}s ${what} (seed ${SEED}): it hangs`));
      }, HANG_MS);
    };
    arm();
    worker.on("message", (m: Message) => {
      if (m.type === "input") {
        last = { run: m.run, text: m.text };
        arm();
      } else if (m.type === "failed") {
        finish(new assert.AssertionError({ message: `seed ${SEED}: ${m.message}` }));
      } else {
        if (m.runs !== numRuns) finish(new Error(`ran ${m.runs} of ${numRuns} inputs`));
        else finish();
      }
    });
    worker.on("error", (e) => finish(e));
    worker.on("exit", (code) =>
      finish(new Error(`the fuzz worker exited (code ${code}) before it finished${last === null ? "" : `; last input ${last.text}`}`)),
    );
  });
}
