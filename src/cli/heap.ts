// V8 heap settings for the commands whose process is a long-running service, and for long previews.

import { setFlagsFromString } from "node:v8";

/**
 * The server's heap, set for a long-running service rather than for throughput. By default V8
 * grows each thread's young generation up to 16 MiB semi-spaces while new objects live on (reading
 * a fleet's commit does) and keeps it, and lets the old generation grow to up to 4 times what is
 * live before it collects: at 1,000 clusters, 331–343 MiB at ready and 469–477 MiB after the
 * bench's reads and writes, of which about 80 MiB was live. Here the young generation stays at its
 * first size (1 MiB semi-spaces) and the old one grows by half of what is live. Both flags are read
 * each time V8 sizes the heap, so setting them at run time works (unlike --max-semi-space-size,
 * fixed when a thread's heap is made), but only before the young generation grew: before the
 * command's modules are loaded. A size the user gives (on node's command line or in NODE_OPTIONS)
 * is left alone. Returns the flags set.
 */
export function serverHeapFlags(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  return setUnlessGiven(execArgv, nodeOptions, [YOUNG_AT_FIRST_SIZE, [/^--heap[-_]growing[-_]percent\b/, "--heap-growing-percent=50"]]);
}

/** The young generation kept at its first size, unless the user sized it. */
const YOUNG_AT_FIRST_SIZE: readonly [RegExp, string] = [
  /^--(?:max|min)[-_]semi[-_]space[-_]size\b|^--semi[-_]space[-_]growth[-_]factor\b/,
  "--semi-space-growth-factor=1",
];

/**
 * `fluxgate schedule preview -o json|yaml`: a long preview makes and writes its intervals as a stream of
 * short-lived objects, and V8 grew the young generation to its largest for them. Kept at its first
 * size, as the server's is: a year every 2 minutes (262,800 intervals, 23 MB of JSON) peaks at
 * 83-88 MiB against 111-113 MiB, in the same time (docs/performance-history.md). Not for the table:
 * it keeps its rows to line up their columns, and the small young generation copied them over and
 * over (a year of an hourly freeze: 48-57 collections, 30-40 ms, against 13 and 18-29 ms). Set by the
 * command as it starts, before its long work: the young generation has not grown yet (the command is
 * one module, scripts/bundle.ts). A size the user gives is left alone. Returns the flags set.
 */
export function previewHeapFlags(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  return setUnlessGiven(execArgv, nodeOptions, [YOUNG_AT_FIRST_SIZE]);
}

/** Sets each flag whose pattern matches none of the flags given on node's command line or in NODE_OPTIONS. */
function setUnlessGiven(execArgv: readonly string[], nodeOptions: string | undefined, flags: ReadonlyArray<readonly [RegExp, string]>): string[] {
  const given = [...execArgv, ...(nodeOptions ?? "").split(/\s+/)];
  const set = flags.filter(([pattern]) => !given.some((a) => pattern.test(a))).map(([, flag]) => flag);
  for (const flag of set) setFlagsFromString(flag);
  return set;
}

/**
 * V8 for `fluxgate controller`: interpreted bytecode only, and a heap sized for memory rather than
 * speed. The controller spends its time waiting on the API server; what it computes per target is
 * little (docs/performance-history.md, "Third round": the CPU of enforcing 1,000 targets). V8's
 * optimizing compilers (Sparkplug, Maglev, TurboFan) made code and touched pages of the node binary
 * that stayed resident, and the heap grew ahead of what was live: together about 30 MiB of the
 * controller's 115-120 MiB at 1,000 targets. As `--lite-mode` does, which Node.js does not take in
 * NODE_OPTIONS, and without its `--jitless`, which would take WebAssembly away (Node's fetch needs
 * it). Set at run time, before the command's modules are loaded (V8 reads these flags when it
 * decides to compile or to grow the heap); a flag the user gives on node's command line wins.
 * Returns the flags set.
 */
export function controllerV8Flags(execArgv: readonly string[]): string[] {
  const named = (flag: string): boolean =>
    execArgv.some(
      (a) =>
        a
          .replace(/_/g, "-")
          .replace(/^--no-/, "--")
          .split("=")[0] === flag,
    );
  const set = ["--optimize-for-size", "--no-sparkplug", "--no-maglev", "--no-turbofan"].filter((f) => !named(f.replace(/^--no-/, "--")));
  for (const flag of set) setFlagsFromString(flag);
  return set;
}

/**
 * Node's own modules the controller's bundle loads as it starts (`node:https` brings http, tls, net,
 * crypto and stream with it). Node compiles its modules from a code cache made with its default V8
 * flags, which V8 rejects once controllerV8Flags has changed them: loading these after the flags
 * compiled them from source, 10-15 ms of CPU more at each start. Loaded first, they come from the
 * cache; the flags still govern them (V8 reads them when a function would tier up, and they never do).
 * test/integration/controller/bundle.test.ts checks the bundle loads no other public module as it starts.
 */
export const CONTROLLER_BUILTINS = [
  "node:https",
  "node:http",
  "node:zlib",
  "node:child_process",
  "node:dns",
  "node:vm",
  "node:tty",
  "node:perf_hooks",
  "node:string_decoder",
  "node:os",
  "node:module",
  "node:process",
  "node:v8",
] as const;

/** Loads CONTROLLER_BUILTINS: called before controllerV8Flags. */
export function loadControllerBuiltins(): void {
  for (const id of CONTROLLER_BUILTINS) process.getBuiltinModule(id);
}
