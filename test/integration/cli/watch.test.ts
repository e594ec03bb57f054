// `fluxgate status --watch`: a frame on every change — a new window, an override, its end — until stopped.

import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { test } from "node:test";
import { status, type StatusResult } from "../../../src/cli/status.ts";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import { createKustomization, createWindow, setup, startController, waitForSuspend, YEARLY } from "../controller/helpers.ts";
import { fluxgate } from "./helpers.ts";

const plane = sharedControlPlane();

/** Collects what --watch writes: one write is one frame. */
function frames(): { stream: Writable; all: string[] } {
  const all: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      all.push(chunk.toString());
      done();
    },
  });
  return { stream, all };
}

test("the table is drawn again on each change, and only then (not on a terminal)", async () => {
  const s = await setup(plane());
  await createKustomization(s, "apps-rw");
  await createWindow(s, "weekday-changes", { timeZone: "Europe/Berlin", schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const c = await startController(s);
  const out = frames();
  const stop = new AbortController();
  let watching: Promise<string> | undefined;
  try {
    await waitForSuspend(s, "apps-rw", true);
    // Start from a reported window, so the first frame is known.
    await waitFor("reported", async () => {
      const got = JSON.parse((await fluxgate("status", "--kubeconfig", s.cp.kubeconfigPath, "-n", s.namespace, "-o", "json")).stdout) as StatusResult;
      return got.windows[0]?.state === "Closed" && got.windows[0].targets?.open === 0 ? true : undefined;
    });
    watching = status({
      kubeconfig: s.cp.kubeconfigPath,
      namespace: s.namespace,
      allNamespaces: false,
      output: "table",
      watch: true,
      color: false,
      now: Date.now,
      out: out.stream,
      signal: stop.signal,
    });
    const seen = async (what: string, test: (frame: string) => boolean): Promise<number> =>
      await waitFor(
        what,
        () => {
          const i = out.all.findIndex(test);
          return Promise.resolve(i >= 0 ? i : undefined);
        },
        { timeoutMs: 10_000, intervalMs: 50 },
      );

    const first = await seen("the first frame", (f) => /^weekday-changes\s+Closed\s/m.test(f));
    assert.equal(first, 0);
    assert.match(out.all[0] ?? "", /^NAME\s+STATE\s+SINCE\s+NEXT\s+TARGETS\s+PENDING\s+OVERRIDE\n/);

    await createWindow(s, "weekend", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
    const added = await seen("a frame with the new window", (f) => /^weekend\s+Closed\s/m.test(f));

    const opened = await fluxgate(
      "open",
      "weekday-changes",
      "--kubeconfig",
      s.cp.kubeconfigPath,
      "-n",
      s.namespace,
      "--for",
      "3s",
      "--reason",
      "hotfix INC-42",
      "--no-wait",
    );
    assert.equal(opened.code, 0, opened.stderr);
    const overridden = await seen("a frame with the override", (f) => /^weekday-changes\s+Overridden\s.*1\/1 open\s+0\s+weekday-changes-open-/m.test(f));
    const ended = await seen("a frame after the override ended", (f) => out.all.indexOf(f) > overridden && /^weekday-changes\s+Closed\s.*0\/1 open/m.test(f));
    assert.ok(first < added && added < overridden && overridden < ended, `frames in order: ${first}, ${added}, ${overridden}, ${ended}`);
    // A pipe gets a frame per change: frames are separated by a blank line and never repeat.
    for (let i = 1; i < out.all.length; i++) {
      assert.ok((out.all[i] ?? "").startsWith("\nNAME"), `frame ${i} starts with a blank line`);
      assert.notEqual(out.all[i], out.all[i - 1]);
    }
    assert.ok(out.all.length < 20, `${out.all.length} frames for a handful of changes`);
  } finally {
    stop.abort();
    await c.stop();
  }
  // Stopping returns, with nothing more to print.
  assert.equal(await watching, "");
});

test("-o json --watch prints one JSON document per line, per change; stopping returns", async () => {
  const s = await setup(plane());
  await createWindow(s, "weekday-changes", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const out = frames();
  const stop = new AbortController();
  const watching = status({
    kubeconfig: s.cp.kubeconfigPath,
    namespace: s.namespace,
    allNamespaces: false,
    output: "json",
    watch: true,
    color: false,
    now: Date.now,
    out: out.stream,
    signal: stop.signal,
  });
  try {
    await waitFor("first line", () => Promise.resolve(out.all.length > 0 ? true : undefined));
    await createWindow(s, "weekend", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
    await waitFor("a line with both windows", () => Promise.resolve(out.all.some((l) => l.includes('"weekend"')) ? true : undefined));
  } finally {
    stop.abort();
  }
  assert.equal(await watching, "");
  for (const line of out.all) {
    assert.ok(line.endsWith("\n") && !line.slice(0, -1).includes("\n"), `one line: ${line}`);
    assert.ok(Array.isArray((JSON.parse(line) as StatusResult).windows));
  }
  const names = (line: string | undefined): string[] => (JSON.parse(line ?? "") as StatusResult).windows.map((w) => w.name);
  assert.deepEqual(names(out.all[0]), ["weekday-changes"]);
  assert.deepEqual(names(out.all[out.all.length - 1]), ["weekday-changes", "weekend"]);
});

test("on a terminal the table is redrawn in place, with the time, each second", async () => {
  const s = await setup(plane());
  await createWindow(s, "weekday-changes", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const out = frames();
  Object.assign(out.stream, { isTTY: true });
  const stop = new AbortController();
  const watching = status({
    kubeconfig: s.cp.kubeconfigPath,
    namespace: s.namespace,
    allNamespaces: false,
    output: "table",
    watch: true,
    color: false,
    now: Date.now,
    out: out.stream,
    signal: stop.signal,
  });
  try {
    await waitFor("three frames", () => Promise.resolve(out.all.length >= 3 ? true : undefined), { timeoutMs: 5_000, intervalMs: 100 });
  } finally {
    stop.abort();
  }
  assert.equal(await watching, "");
  const ESC = "\u001b";
  const last = out.all.pop() ?? "";
  assert.ok((out.all[0] ?? "").startsWith(`${ESC}[?1049h`), "on the alternate screen");
  assert.ok(last.startsWith(`${ESC}[?1049l`), "back on the normal screen at the end");
  assert.match(last, /Ctrl-C to stop\n\nNAME\s+STATE/, "with the last table left there");
  for (const frame of out.all.map((f) => f.replace(`${ESC}[?1049h`, ""))) {
    assert.ok(frame.startsWith(`${ESC}[H`) && frame.endsWith(`${ESC}[J`), "home first, erase below last");
    const lines = frame.slice(3, -3).split(`${ESC}[K\n`);
    assert.match(lines[0] ?? "", /^\w{3} \d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? UTC · fluxgate status --watch · Ctrl-C to stop$/);
    assert.match(lines[2] ?? "", /^NAME\s+STATE\s+SINCE\s+NEXT\s+TARGETS\s+PENDING\s+OVERRIDE$/);
  }
});
