// Fault: the controller process SIGKILLed 50 times at seeded random moments around transitions: every target converges, nothing lost or doubled.

import { Watch, type KubernetesObject } from "@kubernetes/client-node";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { STATUS_DEBOUNCE_MS } from "../../../src/controller/context.ts";
import { onceEventName } from "../../../src/controller/events.ts";
import { sharedControlPlane } from "../../harness/index.ts";
import { ALWAYS, createWindow, setup, type Setup } from "../controller/helpers.ts";
import { createTargets, faultSeed, seeded, setFreezes, targetsLabelled, utc, waitAllSuspend } from "./helpers.ts";

const plane = sharedControlPlane();

const KILLS = 50;
const WINDOWS = 4;
const TARGETS_PER_WINDOW = 8;
/**
 * Each window is frozen for HALF_MS and open for HALF_MS; the windows are shifted so that one of them
 * turns every SHIFT_MS. A window's own transitions are far enough apart (several convergence bounds)
 * that a run restarted after a kill can be checked against the transition it missed.
 */
const HALF_MS = 8_000;
const SHIFT_MS = 2_000;
/** Kills land uniformly within this much before or after a transition. */
const AROUND_MS = 1_000;
/** Each controller lives at least this long (and as long as the convergence bound) after its informers synced before it is killed. */
const MIN_LIFE_MS = 2_500;
/**
 * Every target of a window is in its window's state this long after the transition, or after the
 * controller that was killed around it is back (informers synced) — or twice as long as the first
 * controller took to take every target once synced, when the machine is so busy that this is more:
 * the bound follows the machine's speed in this run, measured on the same work (a write per target).
 * The controller runs with its default resync period (10 minutes): convergence must come from the
 * restart, not from a resync.
 */
const CONVERGE_MS = 2_500;
/** How far past the present the planned transitions reach at least, after each kill: more than a restart may take (ready() allows 30 s). */
const PLAN_AHEAD_MS = 45_000;

interface Run {
  child: ChildProcess;
  spawnedAt: number;
  readyAt: number;
  killedAt: number;
  logs: string[];
}

interface Seen {
  at: number;
  uid: string;
  resourceVersion: string;
  suspend: boolean;
  /** A window's status.state and status.since. */
  state: string | undefined;
  since: string | undefined;
}

/** Records every change of the watched objects with the time it was seen. */
function observe(s: Setup, path: string, into: Map<string, Seen[]>): Promise<AbortController> {
  return new Watch(s.cp.kubeConfig).watch(
    path,
    {},
    (phase: string, obj: KubernetesObject & { spec?: { suspend?: boolean }; status?: { state?: string; since?: string } }) => {
      if (phase !== "ADDED" && phase !== "MODIFIED") return;
      const name = obj.metadata?.name ?? "";
      const list = into.get(name) ?? [];
      const m = obj.metadata;
      list.push({
        at: Date.now(),
        uid: m?.uid ?? "",
        resourceVersion: m?.resourceVersion ?? "",
        suspend: obj.spec?.suspend === true,
        state: obj.status?.state,
        since: obj.status?.since,
      });
      into.set(name, list);
    },
    (err: unknown) => {
      if (err !== null && err !== undefined && !(err instanceof Error && err.name === "AbortError"))
        process.stderr.write(`# observer watch ended: ${err instanceof Error ? err.message : JSON.stringify(err)}\n`);
    },
  );
}

function startRun(s: Setup): Run {
  const child = spawn(
    process.execPath,
    [
      "src/cli/main.ts",
      "controller",
      "--kubeconfig",
      s.controllerKubeconfigPath,
      "--namespace",
      s.namespace,
      "--target-kinds",
      "Kustomization",
      "--metrics-addr",
      "127.0.0.1:0",
      "--health-addr",
      "127.0.0.1:0",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  const run: Run = { child, spawnedAt: Date.now(), readyAt: Infinity, killedAt: Infinity, logs: [] };
  createInterface({ input: child.stderr }).on("line", (line) => {
    run.logs.push(line);
    if (line.includes('"msg":"Synced informers"')) run.readyAt = Date.now();
  });
  return run;
}

async function ready(run: Run): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (run.readyAt === Infinity) {
    if (run.child.exitCode !== null) throw new Error(`the controller exited (${run.child.exitCode}) before it synced:\n${run.logs.slice(-20).join("\n")}`);
    if (Date.now() > deadline) throw new Error(`the controller did not sync within 30 s:\n${run.logs.slice(-20).join("\n")}`);
    await sleep(10);
  }
}

async function kill(run: Run, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
  if (run.child.exitCode !== null) throw new Error(`the controller exited by itself (${run.child.exitCode}):\n${run.logs.slice(-20).join("\n")}`);
  const exited = new Promise((resolve) => run.child.once("exit", resolve));
  run.killedAt = Date.now();
  run.child.kill(signal);
  await exited;
}

/** The value of the last change seen at or before `t`. */
function valueAt(seen: readonly Seen[], t: number): Seen | undefined {
  let out: Seen | undefined;
  for (const e of seen) {
    if (e.at > t) break;
    out = e;
  }
  return out;
}

/** When the value seen at `t` (spec.suspend, or what `of` reads) was first seen: the last change at or before `t`. */
function lastChangeAt(seen: readonly Seen[], t: number, of: (e: Seen) => unknown = (e) => e.suspend): number {
  let at = -Infinity;
  for (const [j, e] of seen.entries()) {
    if (e.at > t) break;
    if (j === 0 || of(e) !== of(seen[j - 1] as Seen)) at = e.at;
  }
  return at;
}

test(`${KILLS} SIGKILLs at random moments around transitions: every target converges after each restart, no transition lost or doubled`, async () => {
  const seed = faultSeed(20_261_122);
  const random = seeded(seed);
  const s = await setup(plane());
  // Set once the first controller has taken every target: the plan starts from the run's progress, not from a guess.
  let t0 = Infinity;
  // The freezes are planned as the run goes, never from a guess of how fast the machine is: each
  // window gets freeze k at first(w) + k·2·HALF_MS, and the plan is extended whenever less than
  // PLAN_AHEAD_MS of it remains. The windows carry only the freezes not long past (at most 64 fit).
  const first = (w: number): number => t0 + w * SHIFT_MS;
  const freezeOf = (w: number, k: number): { from: string; to: string; reason: string } => ({
    from: utc(first(w) + k * 2 * HALF_MS),
    to: utc(first(w) + k * 2 * HALF_MS + HALF_MS),
    reason: `drill ${k}`,
  });
  const names = Array.from({ length: WINDOWS }, (_, w) => `w${w}`);
  let planned = Math.ceil((2 * PLAN_AHEAD_MS) / (2 * HALF_MS));
  const freezesFrom = (w: number, from: number): ReturnType<typeof freezeOf>[] => Array.from({ length: planned - from }, (_, i) => freezeOf(w, from + i));
  const targets = new Map<string, string[]>();
  for (const name of names) targets.set(name, await createTargets(s, name, TARGETS_PER_WINDOW, name));
  for (const name of names) await createWindow(s, name, { schedules: [ALWAYS], targets: targetsLabelled(name) });
  // The expected states and the transition instants, from the plan (freezes never touch, and the schedule is always open).
  const suspendedAt = (window: string, t: number): boolean => {
    const k = Math.floor((t - first(names.indexOf(window))) / (2 * HALF_MS));
    return k >= 0 && k < planned && t - first(names.indexOf(window)) - k * 2 * HALF_MS < HALF_MS;
  };
  const transitions: { window: string; at: number; suspend: boolean }[] = [];
  const plan = (): void => {
    transitions.length = 0;
    for (const [w, window] of names.entries()) {
      for (let k = 0; k < planned; k++)
        transitions.push({ window, at: first(w) + k * 2 * HALF_MS, suspend: true }, { window, at: first(w) + k * 2 * HALF_MS + HALF_MS, suspend: false });
    }
    transitions.sort((a, b) => a.at - b.at);
  };
  /**
   * When less than PLAN_AHEAD_MS of the plan remains past `now`, extends it to twice that; the windows
   * keep the freezes that ended less than two cycles ago. Called while no controller runs (between a
   * kill and the restart), so a changed window adds no work to the convergence the test measures.
   */
  const extendPlan = async (now: number): Promise<void> => {
    if (t0 + planned * 2 * HALF_MS - now >= PLAN_AHEAD_MS) return;
    planned = Math.ceil((now + 2 * PLAN_AHEAD_MS - t0) / (2 * HALF_MS));
    plan();
    const keepFrom = Math.max(0, Math.floor((now - t0) / (2 * HALF_MS)) - 2);
    for (const [w, name] of names.entries()) await setFreezes(s, name, freezesFrom(w, keepFrom));
  };

  const seenTargets = new Map<string, Seen[]>();
  const seenWindows = new Map<string, Seen[]>();
  const watches = [
    await observe(s, `/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/${s.namespace}/kustomizations`, seenTargets),
    await observe(s, `/apis/fluxgate.io/v1alpha1/namespaces/${s.namespace}/reconciliationwindows`, seenWindows),
  ];
  const runs: Run[] = [startRun(s)];
  let converge = CONVERGE_MS;
  try {
    await ready(runs[0] as Run);
    await waitAllSuspend(s, [...targets.values()].flat(), false, 20_000);
    const firstTake = Date.now() - (runs[0] as Run).readyAt;
    converge = Math.max(CONVERGE_MS, 2 * firstTake);
    // The first freeze begins 2 s after the windows get their freezes (whole seconds, as absolute freezes are written).
    t0 = Math.ceil((Date.now() + 2_000) / 1000) * 1000;
    plan();
    for (const [w, name] of names.entries()) await setFreezes(s, name, freezesFrom(w, 0));
    const delays: number[] = [];
    for (let k = 0; k < KILLS; k++) {
      const run = runs[runs.length - 1] as Run;
      await ready(run);
      // A moment within ±AROUND_MS of a transition, once this run has lived MIN_LIFE_MS.
      const offset = Math.round((random() * 2 - 1) * AROUND_MS);
      const next = transitions.find((tr) => tr.at + offset >= run.readyAt + Math.max(MIN_LIFE_MS, converge));
      if (next === undefined) throw new Error("ran out of transitions: add freezes");
      delays.push(offset);
      await sleep(next.at + offset - Date.now());
      await kill(run);
      await extendPlan(Date.now());
      runs.push(startRun(s));
    }
    const last = runs[runs.length - 1] as Run;
    await ready(last);
    // Three more transitions with the last run up.
    // Up through a few more transitions; stopped half-way between two (they are a second apart), so
    // that no write of the last run is still on its way when the counting starts.
    const end = (transitions.find((tr) => tr.at >= last.readyAt + converge) as { at: number }).at + 2_500;
    await sleep(end - Date.now());
    await kill(last, "SIGTERM");
    const stoppedAt = last.killedAt;
    await sleep(1_000);

    // 1. Every transition converged in time: after the transition, or after the restart that followed a kill around it.
    const convergence: number[] = [];
    let unchecked = 0;
    // How long after the transition (or the restart) each window's status said it.
    const statusLags: number[] = [];
    let statusUnchecked = 0;
    for (const [i, tr] of transitions.entries()) {
      if (tr.at > stoppedAt - converge) break;
      const nextOfWindow = transitions.slice(i + 1).find((o) => o.window === tr.window)?.at ?? Infinity;
      const run = runs.find((r) => Math.max(r.readyAt, tr.at) + converge <= Math.min(r.killedAt, nextOfWindow));
      if (run === undefined) {
        unchecked++;
        continue;
      }
      const from = Math.max(run.readyAt, tr.at);
      const deadline = from + converge;
      const names = targets.get(tr.window) as string[];
      for (const n of names) {
        assert.equal(
          valueAt(seenTargets.get(n) ?? [], deadline)?.suspend,
          tr.suspend,
          `${n}: not ${tr.suspend ? "suspended" : "resumed"} within ${converge} ms of ${run.readyAt > tr.at ? "the restart after" : ""} the transition at ${utc(tr.at)}`,
        );
      }
      // When the last of them got there (before `from` when the killed run had done it already).
      const done = Math.max(...names.map((n) => lastChangeAt(seenTargets.get(n) ?? [], deadline)));
      convergence.push(Math.max(0, done - from));
      // The window's status follows its targets' writes (STATUS_DEBOUNCE_MS after the last of them, then its own write, behind any other window's target
      // writes still going): it says the transition by the time this run is killed or the window turns again, where that is at least `converge` and the
      // debounce after the transition (or the restart), or the debounce and half of `converge` (for its write) after the targets got there. A run killed
      // sooner may have converged its targets without having said it yet.
      const statusAt = Math.min(run.killedAt, nextOfWindow - 1);
      if (statusAt < Math.min(from + converge, Math.max(from, done) + converge / 2) + STATUS_DEBOUNCE_MS) {
        statusUnchecked++;
        continue;
      }
      const windowSeen = seenWindows.get(tr.window) ?? [];
      const state = valueAt(windowSeen, statusAt)?.state;
      assert.equal(
        state,
        tr.suspend ? "Frozen" : "Open",
        `window ${tr.window} status ${statusAt - from} ms after ${run.readyAt > tr.at ? "the restart after " : ""}the transition at ${utc(tr.at)}`,
      );
      statusLags.push(Math.max(0, lastChangeAt(windowSeen, statusAt, (e) => e.state) - from));
    }
    assert.ok(
      unchecked <= transitions.filter((tr) => tr.at <= stoppedAt).length / 4,
      `${unchecked} transitions fell where no run lived long enough to check them`,
    );
    assert.ok(statusUnchecked <= convergence.length / 4, `${statusUnchecked} of ${convergence.length} transitions' window status unchecked`);

    // 2. Nothing doubled: after t0 every write to a target flips spec.suspend, to the engine's state of that moment.
    const flips = new Map<string, Seen[]>();
    for (const [window, names] of targets) {
      for (const n of names) {
        const seen = seenTargets.get(n) ?? [];
        const mine: Seen[] = [];
        for (const [j, e] of seen.entries()) {
          if (j === 0 || e.at < t0 - 500) continue;
          const before = seen[j - 1] as Seen;
          assert.notEqual(
            e.suspend,
            before.suspend,
            `${n}: a write at ${new Date(e.at).toISOString()} that did not flip spec.suspend (rv ${before.resourceVersion} → ${e.resourceVersion})`,
          );
          const expected = [0, 250, 500, 1_000].some((back) => suspendedAt(window, e.at - back) === e.suspend);
          assert.ok(expected, `${n}: flipped to suspend=${String(e.suspend)} at ${new Date(e.at).toISOString()}, against the window`);
          mine.push(e);
        }
        flips.set(n, mine);
      }
    }

    // 3. Every transition announced exactly once. Announcements are named after their interval, so the
    // test names the event each flip and each status change must have, and allows no other. The one
    // excuse: a run killed after announcing, whose successor came back only after the interval ended.
    const events = (await s.core.listNamespacedEvent({ namespace: s.namespace })).items.filter(
      (e) => e.reason === "WindowOpened" || e.reason === "WindowClosed",
    );
    const intervalOf = (window: string, t: number): { at: number; next: number; suspend: boolean } => {
      const own = transitions.filter((tr) => tr.window === window);
      const i = own.findLastIndex((tr) => tr.at <= t);
      const tr = own[i] as (typeof own)[number];
      return { at: tr.at, next: own[i + 1]?.at ?? Infinity, suspend: tr.suspend };
    };
    const unattended = (iv: { at: number; next: number }): boolean =>
      runs.some((r, i) => r.killedAt >= iv.at && r.killedAt < iv.next && (runs[i + 1]?.readyAt ?? Infinity) >= iv.next);
    const check = (kind: string, name: string, uid: string, expected: Set<string>, excused: Set<string>): number => {
      const got = events.filter((e) => e.involvedObject.kind === kind && e.involvedObject.name === name).map((e) => e.metadata?.name ?? "");
      const detail = `\nexpected ${[...expected].join(" ")}\ngot ${got.join(" ")}\nruns ${runs.map((r) => `${utc(r.readyAt)}..${utc(r.killedAt)}`).join(" ")}`;
      for (const e of got)
        assert.ok(expected.has(e) || excused.has(e), `${kind}/${name}: event ${e} announces no transition that happened (uid ${uid})${detail}`);
      const missing = [...expected].filter((e) => !got.includes(e));
      assert.ok(
        missing.every((e) => excused.has(e)),
        `${kind}/${name}: transitions never announced: ${missing.join(" ")}${detail}`,
      );
      return missing.length + got.filter((e) => !expected.has(e)).length;
    };
    let excusedCount = 0;
    let targetEvents = 0;
    for (const [window, names] of targets) {
      for (const n of names) {
        const own = flips.get(n) ?? [];
        const uid = own[0]?.uid ?? "";
        const obj = { kind: "Kustomization", metadata: { name: n, uid } };
        const name = (iv: { at: number; suspend: boolean }): string =>
          onceEventName(obj, iv.suspend ? "WindowClosed" : "WindowOpened", `${iv.suspend ? "frozen" : "open"}@${utc(iv.at)}`);
        const expected = new Set(own.map((f) => name(intervalOf(window, f.at))));
        const excused = new Set(
          own
            .map((f) => intervalOf(window, f.at))
            .filter(unattended)
            .map(name),
        );
        excusedCount += check("Kustomization", n, uid, expected, excused);
        targetEvents += events.filter((e) => e.involvedObject.name === n).length;
      }
    }
    for (const window of names) {
      const seen = seenWindows.get(window) ?? [];
      const uid = seen[0]?.uid ?? "";
      const obj = { kind: "ReconciliationWindow", metadata: { name: window, uid } };
      const name = (state: string, since: string): string => onceEventName(obj, state === "Open" ? "WindowOpened" : "WindowClosed", `${state}@${since}`);
      const changes = seen.filter((e, j) => j > 0 && seen[j - 1]?.state !== undefined && e.state !== seen[j - 1]?.state);
      const expected = new Set(changes.map((e) => name(e.state ?? "", e.since ?? "always")));
      const own = transitions.filter((tr) => tr.window === window && tr.at <= stoppedAt).map((tr) => intervalOf(window, tr.at));
      const excused = new Set(own.filter(unattended).map((iv) => name(iv.suspend ? "Frozen" : "Open", utc(iv.at))));
      excusedCount += check("ReconciliationWindow", window, uid, expected, excused);
    }
    const flipCount = [...flips.values()].reduce((a, f) => a + f.length, 0);

    const sorted = convergence.slice().sort((a, b) => a - b);
    const pct = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
    const lags = statusLags.slice().sort((a, b) => a - b);
    process.stdout.write(
      `# ${KILLS} kills (offsets ${Math.min(...delays)}..${Math.max(...delays)} ms around transitions), ${runs.length} runs, ${convergence.length} transitions checked, ${unchecked} unchecked, each within ${converge} ms; ` +
        `convergence p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${sorted[sorted.length - 1]} ms; ` +
        `window status after p50 ${lags[Math.floor(lags.length / 2)]} ms, max ${lags[lags.length - 1]} ms (${lags.filter((l) => l > converge).length} over ${converge} ms; ${statusLags.length} checked, ${statusUnchecked} in runs killed before it was due); ${flipCount} flips, ${targetEvents} target events; ${excusedCount} announcements excused (a controller down until the interval ended)\n`,
    );
  } finally {
    for (const r of runs) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill("SIGKILL");
    for (const w of watches) w.abort();
  }
});
