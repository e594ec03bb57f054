// The controller's zod writes no parsers (src/cli/controller-zod.ts): set by the controller's entry before the API's schemas are made.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { promisify } from "node:util";

const run = promisify(execFile);
const url = (path: string): string => JSON.stringify(new URL(`../../../src/${path}`, import.meta.url).href);

/** How many functions a fresh process made from strings while it validated two windows, after `first` was imported. */
async function functionsMade(first: string | null): Promise<number> {
  const script = `
${first === null ? "" : `await import(${url(first)});`}
let made = 0;
const made_ = globalThis.Function;
globalThis.Function = new Proxy(made_, { construct(target, args, newTarget) { made++; return Reflect.construct(target, args, newTarget); } });
const { validateWindow } = await import(${url("api/validate.ts")});
const window = (name) => ({ apiVersion: "fluxgate.io/v1alpha1", kind: "ReconciliationWindow", metadata: { name, namespace: "flux-system" },
  spec: { timeZone: "UTC", schedules: [{ start: "0 2 * * *", duration: "2h" }], targets: [{ kind: "Kustomization", labelSelector: { matchLabels: { app: "a" } } }] } });
validateWindow(window("one"), Date.now());
validateWindow(window("two"), Date.now());
console.log(made);
`;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script]);
  return Number(stdout.trim());
}

test("zod writes parsers as it validates a window, in a process without the controller", async () => {
  assert.ok((await functionsMade(null)) > 0);
});

test("after the controller's entry is loaded, validating windows makes no function from a string", async () => {
  assert.equal(await functionsMade("cli/controller.ts"), 0);
});
