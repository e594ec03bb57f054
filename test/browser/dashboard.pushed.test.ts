// The dashboard in a real browser with pushed status: the fleet's one-line summary and, per cluster, each target as the cluster reported it.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { addClusterKey, signatureOf } from "../../src/server/push/keys.ts";
import { startService, type RunningService } from "../../src/server/server.ts";
import { NOW, tempDir, writeFleet, writeTokens, type Tokens } from "../support/server.ts";
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
  service = await startService({
    repo,
    host: "127.0.0.1",
    port: 0,
    tokensFile: tokens.file,
    anonymousRead: false,
    live: null,
    syncIntervalMs: 0,
    version: "test",
    log: () => undefined,
    now: () => NOW,
    push: { keysFile, store: join(temp.dir, "status.db"), staleAfterMs: 15 * 60_000 },
  });
  // edge-berlin reports apps-rw closed, a revision waiting since 09:30.
  const body = JSON.stringify({
    involvedObject: { kind: "Kustomization", namespace: "flux-system", name: "apps-rw" },
    severity: "info",
    timestamp: "2026-11-23T09:59:00Z",
    message: "Suspended by window apps-rw",
    reason: "WindowClosed",
    metadata: { window: "apps-rw", state: "closed", nextChange: "2026-11-23T16:00:00Z", pendingRevision: "main@sha1:4b825dc", pendingSince: "2026-11-23T09:30:00Z" },
    reportingController: "fluxgate",
  });
  const r = await fetch(`${service.url}/api/v1/clusters/edge-berlin/events`, { method: "POST", headers: { "content-type": "application/json", "x-signature": signatureOf(key, body) }, body });
  assert.equal(r.status, 202, await r.text());
  browser = await launch();
});

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
  assert.equal(await summary.innerText(), "Reported by the clusters: 1 reporting, 0 stale, 2 not yet; 1 of 1 targets waiting, the oldest since 2026-11-23 09:30 UTC.");

  await page.goto(`${service.url}/#/c/edge-berlin`);
  const pushed = page.getByTestId("pushed");
  await pushed.waitFor();
  assert.match(await page.getByTestId("reporting").innerText(), /^reporting; last heard Mon 23 Nov, 11:00 CET\n2026-11-23 10:00 UTC$/);
  const row = pushed.locator('[data-target="Kustomization/flux-system/apps-rw"]');
  assert.match(await row.innerText(), /Kustomization flux-system\/apps-rw\s+○ closed\s+apps-rw\s+.*17:00[\s\S]*main@sha1:4b825dc since 2026-11-23 09:30 UTC\s+WindowClosed · 2026-11-23 09:59 UTC/);

  await page.goto(`${service.url}/#/c/edge-tokyo`);
  await page.getByTestId("reporting").waitFor();
  assert.equal(await page.getByTestId("reporting").innerText(), "has not reported yet");
  assert.equal(await page.getByTestId("pushed").locator("table").count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});
