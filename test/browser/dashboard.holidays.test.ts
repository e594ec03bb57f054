// The dashboard in a real browser names each holiday of a holiday freeze: edge-newyork freezes the US's public holidays, and Thanksgiving is a band that says so.

import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { startService, type RunningService } from "../../src/server/server.ts";
import { bareRemoteWithClone, git, NOW, tempDir, writeFleet, testServiceOptions, writeTokens, type Tokens } from "../support/server.ts";
import { launch } from "./chromium.ts";

let browser: Browser;
let service: RunningService;
let tokens: Tokens;
let cleanup: () => Promise<void>;

before(async () => {
  const temp = await tempDir("browser-holidays");
  cleanup = temp.cleanup;
  const seed = join(temp.dir, "seed");
  await mkdir(seed);
  await writeFleet(seed);
  // edge-newyork's window also freezes the public holidays of the United States.
  const file = join(seed, "clusters/edge-newyork/windows/apps-rw.yaml");
  const text = await readFile(file, "utf8");
  assert.ok(text.includes("      reason: Holiday freeze\n"));
  await writeFile(file, text.replace("      reason: Holiday freeze\n", "      reason: Holiday freeze\n    - holidays: {country: US}\n"));
  await git(seed, "commit", "--quiet", "-am", "edge-newyork freezes US public holidays");
  await bareRemoteWithClone(temp.dir, seed);
  tokens = await writeTokens(temp.dir);
  service = await startService(testServiceOptions(join(temp.dir, "work"), tokens.file));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await service?.close();
  await cleanup?.();
});

test("a holiday freeze is a frozen band named by its holiday: Thanksgiving on edge-newyork", async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.clock.setFixedTime(new Date(NOW));
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`${service.url}/#token=${tokens.viewer}`);
  await page.goto(`${service.url}/#/?lanes=all`);
  const newyork = page.locator('[data-cluster="edge-newyork"] [data-window="apps-rw"]');
  await newyork.waitFor();
  await page.locator('.fleet-grid[data-loading="0"]').waitFor();
  // Thursday 26 November 2026 in New York: 05:00Z to 05:00Z the next day.
  const band = newyork.locator('.band.frozen[data-start="2026-11-26T05:00:00Z"]');
  assert.equal(await band.getAttribute("data-end"), "2026-11-27T05:00:00Z");
  await band.click();
  assert.match(await page.locator(".details").innerText(), /Thanksgiving Day/);
  assert.match(await page.getByTestId("detail-local").innerText(), /^Thu 26 Nov, 00:00 (EST|GMT-5) → Fri 27 Nov, 00:00 (EST|GMT-5)$/);
  assert.deepEqual(errors, []);
  await page.close();
});
