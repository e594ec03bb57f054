// `fluxgate controller` runs V8 for memory: bytecode only (no optimizing compiler) and a heap sized for size, unless the user names a flag.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { promisify } from "node:util";

const module = new URL("../../../src/cli/heap.ts", import.meta.url).href;

/** Runs controllerV8Flags in a fresh node, then a hot function V8 would otherwise optimize, and reports whether it did. */
async function child(nodeArgs: string[]): Promise<{ set: string[]; optimized: boolean; fetched: string }> {
  const script = `
    const { controllerV8Flags, loadControllerBuiltins } = await import(${JSON.stringify(module)});
    // As src/cli/main.ts does: Node's own modules first, then the flags.
    loadControllerBuiltins();
    const set = controllerV8Flags(process.execArgv);
    function hot(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }
    %PrepareFunctionForOptimization(hot);
    for (let i = 0; i < 2000; i++) hot(1000);
    %OptimizeFunctionOnNextCall(hot);
    hot(1000);
    // Bit 4 (16): TurboFan code; bit 5 (32): Maglev code.
    const optimized = (%GetOptimizationStatus(hot) & (16 | 32)) !== 0;
    // WebAssembly stays (Node's fetch is built on it; --jitless and --lite-mode take it away).
    const fetched = typeof WebAssembly === "object" ? "wasm" : "no wasm";
    console.log(JSON.stringify({ set, optimized, fetched }));`;
  const { stdout } = await promisify(execFile)(process.execPath, ["--allow-natives-syntax", ...nodeArgs, "--input-type=module", "-e", script]);
  return JSON.parse(stdout) as { set: string[]; optimized: boolean; fetched: string };
}

test("the controller's V8 compiles no optimized code and sizes its heap for memory, and keeps WebAssembly", async () => {
  const byDefault = await child([]);
  assert.deepEqual(byDefault.set, ["--optimize-for-size", "--no-sparkplug", "--no-maglev", "--no-turbofan"]);
  assert.equal(byDefault.optimized, false, "a function asked to be optimized stays bytecode");
  assert.equal(byDefault.fetched, "wasm");
});

test("a V8 flag the user gives on node's command line wins", async () => {
  const given = await child(["--turbofan", "--maglev"]);
  assert.deepEqual(given.set, ["--optimize-for-size", "--no-sparkplug"]);
  assert.equal(given.optimized, true, "the user's optimizing compilers run");
});
