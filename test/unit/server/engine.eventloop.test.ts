// Previews and timelines are computed in worker threads: while ten of each (93 days of a minute-level window) run, no work holds the event loop for 50 ms.

import assert from "node:assert/strict";
import { fork, type ChildProcess } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { LoopReport } from "./eventloop-server.ts";
import { git, tempDir, writeFleet } from "../../support/server.ts";

/** A window open every minute and frozen ten minutes each hour: 93 days of it are seconds of engine work per request in a loaded test run. */
const SPEC = {
  timeZone: "Europe/Berlin",
  schedules: [{ start: "* * * * *", duration: "1m" }],
  freezes: [{ start: "0 * * * *", duration: "10m", reason: "hourly checks" }],
};
const FROM = "2026-11-23T00:00:00Z";
const TO = "2027-02-24T00:00:00Z";
const LIMIT_MS = 50;

const WINDOW = `apiVersion: fluxgate.io/v1alpha1
kind: ReconciliationWindow
metadata:
  name: every-minute
  namespace: flux-system
spec:
  timeZone: ${SPEC.timeZone}
  schedules:
    - start: "* * * * *"
      duration: 1m
  freezes:
    - start: "0 * * * *"
      duration: 10m
      reason: hourly checks
  targets:
    - kind: Kustomization
      name: apps-every-minute
`;

/** The next IPC message of the server process. */
function message<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null): void => reject(new Error(`the server process exited (code ${code}) before answering`));
    child.once("exit", onExit);
    child.once("message", (m) => {
      child.off("exit", onExit);
      resolve(m as T);
    });
  });
}

/** Reads a response of at least `atLeast` bytes to its end, counting bytes and keeping the first few: the client's work stays small. */
async function drain(r: Response, expectedHead: string, atLeast = 1_000_000): Promise<number> {
  assert.equal(r.status, 200, r.status === 200 ? "" : await r.text());
  let bytes = 0;
  let head = "";
  const reader = (r.body as ReadableStream<Uint8Array>).getReader();
  for (let part = await reader.read(); !part.done; part = await reader.read()) {
    if (head.length < expectedHead.length) head += Buffer.from(part.value.subarray(0, expectedHead.length)).toString();
    bytes += part.value.length;
  }
  assert.ok(bytes > atLeast && head.startsWith(expectedHead), `${bytes} bytes starting ${head.slice(0, 40)}`);
  return bytes;
}

test(`while ten previews and ten timelines of 93 days run, no work holds the Config Service's event loop for ${LIMIT_MS} ms`, async (t) => {
  const { dir, cleanup } = await tempDir("eventloop");
  t.after(cleanup);
  const repo = join(dir, "fleet");
  await mkdir(repo);
  await writeFleet(repo);
  await writeFile(join(repo, "clusters/edge-berlin/windows/every-minute.yaml"), WINDOW);
  await git(repo, "add", "--all");
  await git(repo, "commit", "--quiet", "-m", "A window open every minute");

  // The service runs in a process of its own, so the probes see its event loop and not this test's HTTP client.
  const child = fork(new URL("./eventloop-server.ts", import.meta.url), [repo], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  t.after(() => {
    if (child.exitCode === null) child.kill();
  });
  const { port } = await message<{ port: number }>(child);
  const base = `http://127.0.0.1:${port}`;
  const previewBody = JSON.stringify({ spec: SPEC, from: FROM, to: TO });
  const preview = (): Promise<Response> =>
    fetch(`${base}/api/v1/preview`, { method: "POST", headers: { "content-type": "application/json" }, body: previewBody });
  const timeline = (): Promise<Response> => fetch(`${base}/api/v1/clusters/edge-berlin/timeline?from=${FROM}&to=${TO}`);
  // Half of them the fleet's, with ?pretty: indenting its JSON (compact, still a hundred kilobytes and more) is work too.
  const fleetPretty = (): Promise<Response> => fetch(`${base}/api/v1/timeline?from=${FROM}&to=${TO}&pretty`);
  // Once each before measuring: the measurement is of the work, not of starting threads or reading the repository.
  await drain(await preview(), '{"valid":true');
  await drain(await timeline(), '{"cluster":"edge-berlin"');

  child.send("start");
  let done = false;
  const started = performance.now();
  const work = Promise.all([
    ...Array.from({ length: 10 }, async () => drain(await preview(), '{"valid":true')),
    ...Array.from({ length: 10 }, async (_, i) =>
      i % 2 === 0 ? drain(await timeline(), '{"cluster":"edge-berlin"') : drain(await fleetPretty(), '{\n  "format": "compact",', 50_000),
    ),
  ]).finally(() => (done = true));
  const latencies: number[] = [];
  while (!done) {
    const asked = performance.now();
    const r = await fetch(`${base}/healthz`);
    assert.equal(await r.text(), "ok\n");
    latencies.push(performance.now() - asked);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const bytes = (await work).reduce((a, b) => a + b, 0);
  const seconds = (performance.now() - started) / 1000;
  child.send("stop");
  const loop = await message<LoopReport>(child);
  child.send("close");

  latencies.sort((a, b) => a - b);
  const median = latencies[Math.floor(latencies.length / 2)] as number;
  const max = latencies[latencies.length - 1] as number;
  t.diagnostic(
    `${(bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s; event loop: longest busy stretch ${loop.maxBusyMs.toFixed(1)} ms of CPU, ` +
      `delay max ${loop.maxDelayMs.toFixed(1)} ms (median ${loop.medianDelayMs.toFixed(1)} ms); /healthz: ${latencies.length} answers, median ${median.toFixed(1)} ms, max ${max.toFixed(1)} ms`,
  );
  // The probe turned all along (every 5 ms, so many times in the seconds the work takes).
  assert.ok(loop.ticks > 100, `the probe ran only ${loop.ticks} times`);
  assert.ok(latencies.length >= 10, `only ${latencies.length} /healthz answers while the work ran`);
  // What the requirement is about is work holding the loop. The loop's wall-clock delay and /healthz's
  // latency (reported above) also count time the shared machine gave the process no core, which no
  // code can prevent; the CPU time the loop's thread spends between two turns of the probe's timer does
  // not, and one 93-day preview or timeline computed on the loop takes several times the limit.
  assert.ok(
    loop.maxBusyMs < LIMIT_MS,
    `work held the event loop for ${loop.maxBusyMs.toFixed(1)} ms of CPU (wall-clock delay max ${loop.maxDelayMs.toFixed(1)} ms)`,
  );
});
