// The controller's zod writes no parsers (src/cli/controller-zod.ts): set by the controller's entry before the API's schemas are made.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { promisify } from "node:util";

const run = promisify(execFile);
const url = (path: string): string => JSON.stringify(new URL(`../../../src/${path}`, import.meta.url).href);

/**
 * In a fresh process, after `first` was imported: how many functions were made from strings while two windows were
 * validated, and the problems found in a bad one (wrong types, a field unknown, one missing), as the controller reports them.
 */
async function validated(first: string | null): Promise<{ made: number; problems: unknown }> {
  const script = `
${first === null ? "" : `await import(${url(first)});`}
let made = 0;
const original = globalThis.Function;
globalThis.Function = new Proxy(original, { construct(target, args, newTarget) { made++; return Reflect.construct(target, args, newTarget); } });
const { validateWindow } = await import(${url("api/validate.ts")});
const window = (name) => ({ apiVersion: "fluxgate.io/v1alpha1", kind: "ReconciliationWindow", metadata: { name, namespace: "flux-system" },
  spec: { timeZone: "UTC", schedules: [{ start: "0 2 * * *", duration: "2h" }], targets: [{ kind: "Kustomization", labelSelector: { matchLabels: { app: "a" } } }] } });
validateWindow(window("one"), Date.now());
validateWindow(window("two"), Date.now());
let problems = null;
try {
  validateWindow({ ...window("bad"), spec: { timeZone: 7, schedules: [{ start: "0 2 * * *", duration: 2, extra: true }], targets: [{ labelSelector: {} }] } }, Date.now());
} catch (e) {
  problems = e.problems ?? String(e);
}
console.log(JSON.stringify({ made, problems }));
`;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script]);
  return JSON.parse(stdout) as { made: number; problems: unknown };
}

test("zod writes parsers as it validates a window, in a process without the controller", async () => {
  assert.ok((await validated(null)).made > 0);
});

test("after the controller's entry is loaded, validating windows makes no function from a string, and a bad window gets the same problems", async () => {
  const [without, controller] = await Promise.all([validated(null), validated("cli/controller.ts")]);
  assert.equal(controller.made, 0);
  assert.ok(Array.isArray(without.problems) && without.problems.length >= 3, `problems found: ${JSON.stringify(without.problems)}`);
  assert.deepEqual(controller.problems, without.problems);
});
