// The dashboard in a real browser: the fleet page's panel of changes waiting for a window, from what the clusters pushed, by revision and by opening.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { addClusterKey, signatureOf } from "../../src/server/status/keys.ts";
import { startService, type RunningService } from "../../src/server/server.ts";
import { NOW, tempDir, writeFleet, testServiceOptions, writeTokens, type Tokens } from "../support/server.ts";
import { launch } from "./chromium.ts";

const A = "main@sha1:1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b";

let browser: Browser;
let service: RunningService;
let tokens: Tokens;
let cleanup: () => Promise<void>;

before(async () => {
  const temp = await tempDir("browser-waiting");
  cleanup = temp.cleanup;
  const repo = join(temp.dir, "fleet");
  await mkdir(repo);
  await writeFleet(repo);
  tokens = await writeTokens(temp.dir);
  const keysFile = join(temp.dir, "cluster-keys.yaml");
  const keys = new Map<string, string>();
  for (const c of ["edge-berlin", "edge-newyork", "edge-tokyo"]) keys.set(c, await addClusterKey(keysFile, { cluster: c, now: NOW }));
  service = await startService(testServiceOptions(repo, tokens.file, { push: { keysFile, store: join(temp.dir, "status.db"), staleAfterMs: 15 * 60_000 } }));
  const post = async (cluster: string, metadata: Record<string, string>): Promise<void> => {
    const body = JSON.stringify({
      involvedObject: { kind: "Kustomization", namespace: "flux-system", name: "apps-rw" },
      severity: "info",
      timestamp: "2026-11-23T09:59:00Z",
      message: "Heartbeat at 2026-11-23T09:59:00Z",
      reason: "Heartbeat",
      metadata: {
        window: "fleet-changes",
        pendingRevision: A,
        pendingSince: "2026-11-23T09:30:00Z",
        since: "",
        suspended: "true",
        gated: "",
        violation: "",
        ...metadata,
      },
      reportingController: "fluxgate",
    });
    const r = await fetch(`${service.url}/api/v1/clusters/${cluster}/events`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-signature": signatureOf(keys.get(cluster) as string, body) },
      body,
    });
    assert.equal(r.status, 202, await r.text());
  };
  // Berlin takes A tonight at 22:00 local; Tokyo on Tuesday morning, local; New York is frozen until noon UTC tomorrow.
  await post("edge-berlin", { state: "closed", nextChange: "2026-11-23T21:00:00Z" });
  await post("edge-tokyo", { state: "closed", nextChange: "2026-11-24T00:00:00Z" });
  await post("edge-newyork", { state: "frozen", nextChange: "2026-11-24T12:00:00Z" });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await service?.close();
  await cleanup?.();
});

test("the fleet page says which revision waits on how many clusters, and when each group takes it, in UTC and in the clusters' zones", async () => {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  await page.clock.setFixedTime(new Date(NOW));
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => void (m.type() === "error" && errors.push(m.text())));
  await page.goto(`${service.url}/#token=${tokens.viewer}`);
  const panel = page.getByTestId("fleet-waiting");
  await panel.waitFor();
  assert.equal(await panel.locator("h3").innerText(), "Waiting for a window: 3 clusters");
  const revision = panel.locator(`[data-revision="${A}"]`);
  assert.equal(await revision.locator("p").innerText(), "main@1a2b3c4 waits on 3 clusters, the oldest since 2026-11-23 09:30 UTC");
  assert.deepEqual(await revision.getByTestId("waiting-release").allInnerTexts(), [
    "1 at 2026-11-23 21:00 UTC (22:00 CET Europe/Berlin) by fleet-changes: edge-berlin",
    "1 at 2026-11-24 00:00 UTC (09:00 JST Asia/Tokyo) by fleet-changes: edge-tokyo",
    "1 when the freeze ends, 2026-11-24 12:00 UTC by fleet-changes: edge-newyork",
  ]);
  assert.deepEqual(errors, []);
  await page.close();
});
