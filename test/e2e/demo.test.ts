// `fluxgate demo --ci` end to end: both modes' stories, played at the same time, on the real Flux controllers, one `ok` line per expectation, nothing left behind.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const main = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));

function runDemo(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main, "demo", ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

test(
  "fluxgate demo --ci plays Suspend and Gate at the same time, tells them in that order, and every expectation holds",
  { timeout: 10 * 60_000 },
  async () => {
    const r = await runDemo(["--ci"]);
    const lines = r.stdout.trimEnd().split("\n");
    assert.equal(r.code, 0, `exit ${String(r.code)}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    assert.deepEqual(
      lines.filter((l) => !l.startsWith("ok   ")),
      [],
      "stdout holds only ok lines",
    );
    const expected = [
      /^ok {3}\[Suspend\] Flux applied the first commit: ConfigMap nginx\.conf v1, Deployment nginx:1\.27: in /,
      /^ok {3}\[Suspend\] the closed window suspended apps-rw; apps-rt was left alone: status\.nextOpen \d\d:\d\d:00/,
      /^ok {3}\[Suspend\] a commit changing nginx\.conf and the image reached the ConfigMap at once/,
      /^ok {3}\[Suspend\] the window's status shows apps-rw waiting for that revision, and when it opens: main@[0-9a-f]{7} pending/,
      /^ok {3}\[Suspend\] the Deployment stayed at nginx:1\.27 while the window was closed/,
      /^ok {3}\[Suspend\] deleted while the window is closed, the Deployment stays deleted \(a suspended Kustomization heals no drift\): still deleted/,
      /^ok {3}\[Suspend\] the window opened on schedule and fluxgate resumed apps-rw/,
      /^ok {3}\[Suspend\] the Deployment changed to nginx:1\.28 within seconds of the opening: \d+\.\ds after the opening$/,
      /^ok {3}\[Suspend\] the window closed 30s later and fluxgate suspended apps-rw again/,
      /^ok {3}\[Gate\] Flux applied the first commit/,
      /^ok {3}\[Gate\] the closed window pinned gitops-gated to what apps-rw applied, and apps-rw follows the pinned copy: pinned main@[0-9a-f]{7}/,
      /^ok {3}\[Gate\] a commit changing nginx\.conf and the image reached the ConfigMap at once/,
      /^ok {3}\[Gate\] the window's status shows apps-rw waiting for that revision/,
      /^ok {3}\[Gate\] the Deployment stayed at nginx:1\.27 while the window was closed/,
      /^ok {3}\[Gate\] deleted while the window is closed, the Deployment is recreated by Flux at the pinned revision \(nginx:1\.27\): recreated/,
      /^ok {3}\[Gate\] the window opened on schedule and fluxgate moved the pin to the waiting revision/,
      /^ok {3}\[Gate\] the Deployment changed to nginx:1\.28 within seconds of the opening/,
      /^ok {3}\[Gate\] the window closed 30s later; the pin holds and apps-rw keeps reconciling/,
    ];
    assert.equal(lines.length, expected.length, r.stdout);
    expected.forEach((re, i) => assert.match(lines[i] as string, re));
    // The two modes play at the same time: their windows open within a minute of each other (one after the other, 2 minutes or more apart).
    const opens = ["Suspend", "Gate"].map((mode) => {
      const hms = new RegExp(`^ok {3}\\[${mode}\\] the closed window .*status\\.nextOpen (\\d\\d):(\\d\\d):(\\d\\d)`, "m").exec(r.stdout);
      assert.ok(hms !== null, `${mode}'s nextOpen in:\n${r.stdout}`);
      return (Number(hms[1]) * 60 + Number(hms[2])) * 60 + Number(hms[3]);
    });
    const apart = Math.abs((opens[0] as number) - (opens[1] as number));
    assert.ok(Math.min(apart, 86_400 - apart) <= 60, `the windows open ${apart}s apart: the modes were not played at the same time`);
    assert.match(r.stderr, /== Gate mode: [^\n]*==\n {10}Played at the same time as Suspend mode, in namespace demo-gate/);

    // The timeline (stderr under --ci) tells what fluxgate did and why, and the demo removed what it started.
    assert.match(r.stderr, /fluxgate {2}WindowClosed on Kustomization apps-rw: Suspended by window nginx-window: Closed: no schedule is active/);
    assert.match(r.stderr, /waiting {3}apps-rw: main@[0-9a-f]{7} waits since \d\d:\d\d:\d\d \(applied: main@[0-9a-f]{7}\), until the window opens at/);
    assert.match(
      r.stderr,
      /fluxgate {2}RevisionPinned on ReconciliationWindow nginx-window: Pinned GitRepository\/gitops-gated to [0-9a-f]{7} \(was [0-9a-f]{7}\): the window is open/,
    );
    assert.match(r.stderr, /demo: all 18 expectations held \(Suspend, Gate\)/);
    const dir = /kubeconfig: (\S+)\/kubeconfig/.exec(r.stderr)?.[1];
    assert.ok(dir !== undefined, "the demo names its control plane's directory");
    assert.equal(existsSync(dir), false, `${dir} was removed`);
  },
);
