// The dashboard in a real browser with pushed status: the fleet's one-line summary and, per cluster, each target as the cluster reported it.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { addClusterKey, signatureOf } from "../../src/server/status/keys.ts";
import { startService, type RunningService } from "../../src/server/server.ts";
import { NOW, tempDir, writeFleet, testServiceOptions, writeTokens, type Tokens } from "../support/server.ts";
import { launch } from "./chromium.ts";

let browser: Browser;
let service: RunningService;
let tokens: Tokens;
let cleanup: () => Promise<void>;

before(async () => {
  const temp = await tempDir("browser-pushed");
  cleanup = temp.cleanup;
  const repo = join(temp.dir, "fleet");
  await mkdir(repo);
  await writeFleet(repo);
  tokens = await writeTokens(temp.dir);
  const keysFile = join(temp.dir, "cluster-keys.yaml");
  const key = await addClusterKey(keysFile, { cluster: "edge-berlin", now: NOW });
  service = await startService(testServiceOptions(repo, tokens.file, { push: { keysFile, store: join(temp.dir, "status.db"), staleAfterMs: 15 * 60_000 } }));
  const post = async (name: string, timestamp: string, reason: string, metadata: Record<string, string>, message = `${reason} of ${name}`): Promise<void> => {
    const body = JSON.stringify({
      involvedObject: { kind: "Kustomization", namespace: "flux-system", name },
      severity: "info",
      timestamp,
      message,
      reason,
      metadata,
      reportingController: "fluxgate",
    });
    const r = await fetch(`${service.url}/api/v1/clusters/edge-berlin/events`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-signature": signatureOf(key, body) },
      body,
    });
    assert.equal(r.status, 202, await r.text());
  };
  // edge-berlin reports apps-rw closed since 09:00, suspended, a revision waiting since 09:30 ...
  await post("apps-rw", "2026-11-23T09:59:00Z", "WindowClosed", {
    window: "apps-rw",
    state: "closed",
    nextChange: "2026-11-23T16:00:00Z",
    pendingRevision: "main@sha1:4b825dc",
    pendingSince: "2026-11-23T09:30:00Z",
    since: "2026-11-23T09:00:00Z",
    suspended: "true",
    gated: "",
    violation: "",
  });
  // ... and infra closed, but a parent set its suspend back; nothing of it since 09:30: stale (past 15 minutes).
  await post("infra", "2026-11-23T09:30:00Z", "SuspendReverted", {
    window: "apps-rw",
    state: "closed",
    nextChange: "2026-11-23T16:00:00Z",
    pendingRevision: "",
    pendingSince: "",
    since: "2026-11-23T09:00:00Z",
    suspended: "false",
    gated: "",
    violation: "",
  });
  // ... and locked decided open, yet still suspended: its controller says why (RBAC refused the write).
  await post(
    "locked",
    "2026-11-23T09:58:00Z",
    "TargetNotFollowing",
    {
      window: "apps-rw",
      state: "open",
      nextChange: "",
      pendingRevision: "",
      pendingSince: "",
      since: "2026-11-23T09:00:00Z",
      suspended: "true",
      gated: "",
      violation: "",
    },
    LOCKED,
  );
  // ... and web: window apps-rw announced it opens at 10:15 (spec.notice), with the revision that will go out.
  await post(
    "web",
    "2026-11-23T09:45:00Z",
    "WindowOpensSoon",
    {
      window: "apps-rw",
      state: "closed",
      nextChange: "2026-11-23T10:15:00Z",
      pendingRevision: "",
      pendingSince: "",
      since: "2026-11-23T09:00:00Z",
      suspended: "true",
      gated: "",
      violation: "",
      upcoming: "Open",
      upcomingAt: "2026-11-23T10:15:00Z",
      upcomingWindow: "apps-rw",
    },
    "Window apps-rw opens Mon 2026-11-23 11:15 CET (in 30m): flux-system/web: nothing waits",
  );
  browser = await launch();
});

const LOCKED =
  'spec.suspend is true, the window wants false: fluxgate may not write it (403): kustomizations.kustomize.toolkit.fluxcd.io "locked" is forbidden';

after(async () => {
  await browser?.close();
  await service?.close();
  await cleanup?.();
});

test("the fleet says how the clusters report and what waits; a cluster page lists what its cluster pushed, and one that never reported says so", async () => {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  await page.clock.setFixedTime(new Date(NOW));
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => void (m.type() === "error" && errors.push(m.text())));
  await page.goto(`${service.url}/#token=${tokens.viewer}`);
  const summary = page.getByTestId("fleet-pushed");
  await summary.waitFor();
  assert.equal(
    await summary.innerText(),
    "Reported by the clusters: 1 reporting, 0 stale, 2 not yet; 1 of 4 targets waiting, the oldest since 2026-11-23 09:30 UTC.",
  );

  await page.goto(`${service.url}/#/c/edge-berlin`);
  const pushed = page.getByTestId("pushed");
  await pushed.waitFor();
  assert.match(await page.getByTestId("reporting").innerText(), /^reporting; last heard Mon 23 Nov, 11:00 CET\n2026-11-23 10:00 UTC$/);
  // What its windows announced (spec.notice) and is still to come.
  assert.equal(await page.getByTestId("upcoming").innerText(), "Announced: window apps-rw opens Mon 23 Nov, 11:15 CET (2026-11-23 10:15 UTC), to 1 target");
  // Per target: state, windows, next change, what waits and since when, the last transition, when last heard of, the source.
  const row = pushed.locator('[data-target="Kustomization/flux-system/apps-rw"]');
  const cells = async (r: typeof row): Promise<string[]> => (await r.locator("th, td").allInnerTexts()).map((x) => x.replace(/\s+/g, " ").trim());
  assert.deepEqual(await cells(row), [
    "Kustomization flux-system/apps-rw",
    "○ closed",
    "apps-rw",
    "Mon 23 Nov, 17:00 CET 2026-11-23 16:00 UTC",
    "main@sha1:4b825dc since 2026-11-23 09:30 UTC",
    "Mon 23 Nov, 10:00 CET 2026-11-23 09:00 UTC",
    "WindowClosed · 2026-11-23 09:59 UTC",
    "pushed",
  ]);
  assert.equal(await row.getByTestId("diverged").count(), 0, "held as decided");
  assert.equal(await row.getByTestId("target-stale").count(), 0);
  // infra: decided closed, not held; silent past the threshold.
  const infra = pushed.locator('[data-target="Kustomization/flux-system/infra"]');
  assert.equal(await infra.getByTestId("diverged").innerText(), "⚠ not held: Decided closed, but spec.suspend is false");
  assert.equal(await infra.getByTestId("target-stale").innerText(), "⚠ stale: silent past the threshold");
  assert.match((await cells(infra))[6] ?? "", /^SuspendReverted · 2026-11-23 09:30 UTC/);
  // locked: decided open yet held, in the controller's own words, not a guess.
  const locked = pushed.locator('[data-target="Kustomization/flux-system/locked"]');
  assert.equal(await locked.getByTestId("diverged").innerText(), `⚠ not open: ${LOCKED}`);

  await page.goto(`${service.url}/#/c/edge-tokyo`);
  await page.getByTestId("reporting").waitFor();
  assert.equal(await page.getByTestId("reporting").innerText(), "has not reported yet");
  assert.equal(await page.getByTestId("pushed").locator("table").count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});
