// The fleet page of 1,000 clusters in a real browser: a screen of clusters takes one call for their timelines and one for their status, scrolling asks only for
// the clusters that came on screen, and every cluster on screen is drawn.

import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { writeGeneratedFleet } from "../../src/devenv/generated-fleet.ts";
import { startService, type RunningService } from "../../src/server/server.ts";
import { NOW, tempDir, testServiceOptions, writeTokens, type Tokens } from "../support/server.ts";
import { launch } from "./chromium.ts";

const CLUSTERS = 1_000;

let browser: Browser;
let service: RunningService;
let tokens: Tokens;
let cleanup: () => Promise<void>;

before(async () => {
  const temp = await tempDir("browser-fleet-calls");
  cleanup = temp.cleanup;
  const repo = join(temp.dir, "fleet");
  await writeGeneratedFleet(repo, CLUSTERS);
  tokens = await writeTokens(temp.dir);
  service = await startService(testServiceOptions(repo, tokens.file));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await service?.close();
  await cleanup?.();
});

/** Waits until every cluster on screen has its timeline and its status. */
async function loaded(page: Page): Promise<void> {
  await page.waitForFunction(
    () => document.querySelector(".fleet-grid")?.getAttribute("data-loading") === "0" && document.querySelector('.vrow[data-status="loading"]') === null,
    undefined,
    { timeout: 60_000 },
  );
}

const heads = (page: Page): Promise<string[]> =>
  page.locator(".vrow[data-status]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-cluster") ?? ""));

test("a screen of 1,000 clusters is one timeline call and one status call; scrolling asks only for the clusters that came on screen", async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.clock.setFixedTime(new Date(NOW));
  const errors: string[] = [];
  page.on("console", (m) => void (m.type() === "error" && errors.push(m.text())));
  page.on("pageerror", (e) => errors.push(String(e)));
  const calls: URL[] = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith("/api/")) calls.push(url);
  });
  const fleetCalls = (): { lists: URL[]; timelines: URL[]; statuses: URL[]; perCluster: string[] } => ({
    lists: calls.filter((u) => u.pathname === "/api/v1/clusters"),
    timelines: calls.filter((u) => u.pathname === "/api/v1/timeline"),
    statuses: calls.filter((u) => u.pathname === "/api/v1/fleet/clusters"),
    perCluster: calls.filter((u) => /^\/api\/v1\/clusters\/[^/]+\/(timeline|status)$/.test(u.pathname)).map((u) => u.pathname),
  });
  await page.goto(`${service.url}/#token=${tokens.viewer}`);
  await page.locator(".fleet-grid").waitFor({ timeout: 60_000 });
  await loaded(page);

  assert.match(await page.getByTestId("count").innerText(), /^1000 of 1000 clusters/);
  const first = await heads(page);
  assert.ok(first.length >= 4 && first.length < 30, `a screen of clusters and a margin: ${first.length}`);
  const screen = fleetCalls();
  // The page's header (the clusters' zones) and the fleet ask for the list as the page opens: one request serves both.
  assert.equal(screen.lists.length, 1, `one call for the cluster list: ${screen.lists.map(String).join(" ")}`);
  assert.equal(screen.timelines.length, 1, `one timeline call: ${screen.timelines.map(String).join(" ")}`);
  assert.equal(screen.statuses.length, 1, `one status call: ${screen.statuses.map(String).join(" ")}`);
  assert.deepEqual(screen.perCluster, [], "no call per cluster");
  // Asked for while the rows were placeholders (a little shorter than drawn): the clusters drawn, and perhaps a few more.
  const askedFirst = (screen.timelines[0]?.searchParams.get("names") ?? "").split(",");
  assert.deepEqual(askedFirst.slice(0, first.length), first, "the timelines of the clusters drawn, in one call");
  assert.deepEqual((screen.statuses[0]?.searchParams.get("names") ?? "").split(","), askedFirst, "their status, in one call");
  // Each cluster drawn has its target lanes with bands, from the expanded compact timeline.
  // (The last cluster of the drawn margin may show only its head: its lanes are below the margin, not drawn yet.)
  let withLanes = 0;
  for (const name of first) {
    if ((await page.locator(`[data-cluster="${name}"] .target-lane`).count()) === 0) continue;
    withLanes++;
    assert.ok((await page.locator(`[data-cluster="${name}"] .target-lane .band`).count()) > 0, `${name} has bands`);
  }
  assert.ok(withLanes >= first.length - 1, `every cluster drawn but the last has its lanes: ${withLanes} of ${first.length}`);
  assert.ok((await page.evaluate(() => document.getElementsByTagName("*").length)) < 3_000, "only the screen's rows are in the page");

  // Half way down: the clusters now on screen, and only they, are asked for, again in one call each.
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight / 2));
  await page.waitForFunction(
    (before) =>
      document.querySelectorAll(".vrow[data-status]").length > 0 &&
      !before.includes(document.querySelector(".vrow[data-status]")?.getAttribute("data-cluster") ?? ""),
    first,
  );
  await loaded(page);
  const middle = await heads(page);
  const scrolled = fleetCalls();
  assert.equal(scrolled.timelines.length, 2, "one more timeline call");
  assert.equal(scrolled.statuses.length, 2, "one more status call");
  const askedMiddle = (scrolled.timelines[1]?.searchParams.get("names") ?? "").split(",");
  assert.ok(
    middle.every((name) => askedMiddle.includes(name)),
    `the clusters drawn were asked for: ${JSON.stringify({ middle, askedMiddle })}`,
  );
  assert.deepEqual(scrolled.perCluster, []);

  // Back to the top: known already, nothing is asked again.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForFunction((names) => document.querySelector(".vrow[data-status]")?.getAttribute("data-cluster") === names[0], first);
  await loaded(page);
  assert.equal(fleetCalls().timelines.length, 2, "the first screen's timelines are kept");
  assert.equal(fleetCalls().statuses.length, 2);
  assert.deepEqual(errors, []);
  await page.close();
});
