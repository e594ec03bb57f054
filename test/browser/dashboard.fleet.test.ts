// The fleet page in a real browser over a generated fleet of 60 labelled clusters: filters, groups, zoom and range, the view in the address, virtualised rows,
// and a rate limit met without losing a row.

import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { writeGeneratedFleet } from "../../src/devenv/generated-fleet.ts";
import { startService, type RunningService } from "../../src/server/server.ts";
import { NOW, tempDir, testServiceOptions, writeTokens, type Tokens } from "../support/server.ts";
import { launch } from "./chromium.ts";
import { fleetLoaded, openFleetPage } from "./fleet-page.ts";

const CLUSTERS = 60;

let browser: Browser;
let service: RunningService;
let serviceOptions: Parameters<typeof startService>[0];
let tokens: Tokens;
let cleanup: () => Promise<void>;

before(async () => {
  const temp = await tempDir("browser-fleet");
  cleanup = temp.cleanup;
  const repo = join(temp.dir, "fleet");
  await writeGeneratedFleet(repo, CLUSTERS);
  tokens = await writeTokens(temp.dir);
  serviceOptions = testServiceOptions(repo, tokens.file, {
    // Lower than the default: a few screens of the page in a row stay under it, a burst of reads does not.
    rateLimit: { burst: 16, perSecond: 8 },
  });
  service = await startService(serviceOptions);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await service?.close();
  await cleanup?.();
});

/** A signed-in page at `hash` (e.g. "#/?zoom=day"), its clock at the service's (Monday 23 Nov 2026, 10:00 UTC), recording errors. */
async function open(hash: string, viewport = { width: 1400, height: 900 }): Promise<{ page: Page; errors: string[] }> {
  // A 429 is logged by the browser as a failed resource; the page waits and asks again, which the tests check.
  return openFleetPage(browser, service.url, tokens.viewer, hash, { viewport, ignore: (m) => m.includes("status of 429") });
}

const loaded = fleetLoaded;

const count = (page: Page): Promise<string> => page.getByTestId("count").innerText();
const heads = (page: Page): Promise<string[]> =>
  page.locator(".vrow[data-status]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-cluster") ?? ""));

test("search, label selector and grouping filter the fleet; a bad selector says why and changes nothing; a reload keeps the view", async () => {
  const { page, errors } = await open("#/");
  assert.match(await count(page), /^60 of 60 clusters · Mon 23 Nov to Sun 29 Nov \(UTC\)/);
  await page.getByTestId("search").fill("US-5");
  await page.waitForFunction(() => document.querySelector('[data-testid="count"]')?.textContent?.startsWith("3 of 60") === true);
  await loaded(page);
  assert.deepEqual(await heads(page), ["edge-us-5", "edge-us-53", "edge-us-57"], "any case, in name order (numbers as numbers)");
  await page.getByTestId("search").fill("");
  // Every tenth cluster is a canary (0, 10, ... 50): those with i % 4 = 0 are in region eu, i % 4 = 2 in ap.
  await page.getByTestId("selector").fill("ring=canary,region notin (us)");
  await page.waitForFunction(() => document.querySelector('[data-testid="count"]')?.textContent?.startsWith("6 of 60") === true);
  await loaded(page);
  assert.deepEqual(await heads(page), ["edge-ap-10", "edge-ap-30", "edge-ap-50", "edge-eu-0", "edge-eu-20", "edge-eu-40"]);
  assert.deepEqual(await page.locator('[data-cluster="edge-ap-10"] .chip').allInnerTexts(), ["region=ap", "ring=canary"], "each cluster's labels by its name");
  await page.getByTestId("group").selectOption("region");
  await page.locator('.group-head[data-group="region=eu"]').waitFor();
  assert.deepEqual(await page.locator(".group-head").allInnerTexts(), ["region=ap 3 clusters", "region=eu 3 clusters"]);

  // A selector that cannot be read: the error names the fault, the box is marked, the list stays as it was.
  await page.getByTestId("selector").fill("ring in (canary");
  const problem = page.locator("#selector-error");
  await problem.waitFor();
  assert.match(await problem.innerText(), /^selector "ring in \(canary": parentheses do not match; write a Kubernetes label selector/);
  assert.equal(await page.getByTestId("selector").getAttribute("aria-invalid"), "true");
  assert.match(await count(page), /^6 of 60 clusters/);
  await page.getByTestId("selector").fill("ring=canary,region notin (us)");
  await problem.waitFor({ state: "detached" });

  // The address holds the view: a reload (or the link, shared) opens it again.
  const url = page.url();
  assert.match(url, /#\/\?selector=ring%3Dcanary%2Cregion\+notin\+%28us%29&group=region$/);
  await page.reload();
  await loaded(page);
  assert.equal(await page.getByTestId("selector").inputValue(), "ring=canary,region notin (us)");
  assert.equal(await page.getByTestId("group").inputValue(), "region");
  assert.match(await count(page), /^6 of 60 clusters/);
  assert.deepEqual(await page.locator(".group-head").allInnerTexts(), ["region=ap 3 clusters", "region=eu 3 clusters"]);
  assert.deepEqual(errors, []);
  await page.close();
});

test("only the rows on screen are in the page; the date header stays while scrolling; a band's details open under it and nothing else is drawn again", async () => {
  const { page, errors } = await open("#/");
  const drawn = await heads(page);
  assert.ok(drawn.length >= 4 && drawn.length < 20, `a screen of clusters and a margin, not all 60: ${drawn.length}`);
  // Clusters still loading take the lane count of the last one loaded: the page lays them out again
  // in the frame after the first screen's answer, so their height is read once that frame is drawn.
  const tall = 60 * (48 + 2 * 52);
  await page.waitForFunction((min) => document.documentElement.scrollHeight > min, tall, { timeout: 10_000 }).catch(() => undefined);
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  assert.ok(height > tall, `the page is as tall as the whole fleet (a head and two target lanes a cluster): ${height} px`);
  assert.equal(await page.locator('[data-cluster="edge-us-57"]').count(), 0, "the last cluster is not drawn yet");

  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await page.locator('[data-cluster="edge-us-57"] .cluster-head').waitFor();
  await loaded(page);
  assert.equal(await page.locator('[data-cluster="edge-ap-2"]').count(), 0, "the first cluster is gone from the page");
  const axis = await page.locator(".sticky-axis").boundingBox();
  assert.ok(axis !== null && Math.abs(axis.y) <= 1, `the date header is at the top of the screen: ${JSON.stringify(axis)}`);
  assert.deepEqual(await page.locator(".sticky-axis .day .long").allInnerTexts(), [
    "Mon 23 Nov",
    "Tue 24 Nov",
    "Wed 25 Nov",
    "Thu 26 Nov",
    "Fri 27 Nov",
    "Sat 28 Nov",
    "Sun 29 Nov",
  ]);

  // Watch the list: choosing a band may change its own lane and add the details under it; other rows only move.
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { seen: string[] }).seen = seen;
    new MutationObserver((records) => {
      for (const r of records) {
        const row = (r.target instanceof Element ? r.target : r.target.parentElement)?.closest(".vrow");
        const moved = r.type === "attributes" && r.attributeName === "style" && r.target === row;
        if (row === null || row === undefined || moved) continue;
        const lane = row.querySelector("[data-target]")?.getAttribute("data-target") ?? row.className;
        const what =
          r.type === "attributes"
            ? `${r.attributeName ?? ""} of ${(r.target as Element).className}`
            : `${r.type} in ${(r.target as Element).className ?? "text"}`;
        seen.push(`${row.getAttribute("data-cluster") ?? ""} ${lane}: ${what}`);
      }
    }).observe(document.querySelector(".vlist") as Element, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  const lane = page.locator('[data-cluster="edge-us-53"] [data-target="Kustomization/flux-system/apps-rw"]');
  await lane.locator(".band.frozen").first().focus();
  await page.keyboard.press("Enter");
  const details = page.locator('.details-row[data-cluster="edge-us-53"]');
  await details.waitFor();
  assert.equal(await page.getByTestId("detail-local").innerText(), "Fri 27 Nov, 00:00 EST → Sat 28 Nov, 00:00 EST");
  const laneBox = await lane.boundingBox();
  const detailsBox = await details.boundingBox();
  assert.ok(
    laneBox !== null && detailsBox !== null && Math.abs(detailsBox.y - (laneBox.y + laneBox.height)) <= 2,
    `the details are right under the band's lane: lane ends at ${laneBox ? laneBox.y + laneBox.height : "?"}, details at ${detailsBox?.y}`,
  );
  const redrawn = [...new Set(await page.evaluate(() => (window as unknown as { seen: string[] }).seen))];
  assert.ok(redrawn.length > 0, "the observer saw the change");
  assert.ok(
    redrawn.some((r) => r.startsWith("edge-us-53 Kustomization/flux-system/apps-rw: class of band frozen chosen")),
    `the band is marked chosen: ${JSON.stringify(redrawn)}`,
  );
  // The chosen cluster's head is marked too; no other cluster's row is drawn again.
  assert.deepEqual(
    redrawn.filter((r) => !r.startsWith("edge-us-53 ")),
    [],
    "no other cluster's row was drawn again",
  );
  assert.match(page.url(), /cluster=edge-us-53&band=target%3AKustomization%2Fflux-system%2Fapps-rw%402026-11-27T05%3A00%3A00Z$/);

  // The link, opened elsewhere, scrolls to the cluster and opens the same details.
  const { page: shared } = await open(`#/${page.url().split("#/")[1] as string}`);
  await shared.locator('.details-row[data-cluster="edge-us-53"]').waitFor();
  assert.equal(await shared.getByTestId("detail-local").innerText(), "Fri 27 Nov, 00:00 EST → Sat 28 Nov, 00:00 EST");
  const head = await shared.locator('[data-cluster="edge-us-53"] .cluster-head.selected').boundingBox();
  assert.ok(head !== null && head.y >= 0 && head.y < 900, `the chosen cluster is on screen: ${JSON.stringify(head)}`);
  await shared.getByRole("button", { name: "Close" }).click();
  await shared.locator(".details-row").waitFor({ state: "detached" });
  assert.doesNotMatch(shared.url(), /band=/);
  await shared.close();
  assert.deepEqual(errors, []);
  await page.close();
});

test("zoom shows a day by the hour, a month by the day, a quarter by the week; jump to date finds the holiday freeze and a clock change", async () => {
  const { page, errors } = await open("#/?zoom=day&search=edge-eu-0");
  assert.deepEqual(await page.locator(".sticky-axis .day .long").allInnerTexts(), ["Mon 23 Nov"]);
  assert.deepEqual(
    await page.locator(".sticky-axis .hour-tick").allInnerTexts(),
    Array.from({ length: 23 }, (_, i) => String(i + 1).padStart(2, "0")),
  );
  assert.match((await page.locator('[data-cluster="edge-eu-0"] .zone').textContent()) ?? "", /^Europe\/Berlin · 11:00 CET$/);

  await page.getByTestId("zoom").selectOption("month");
  await loaded(page);
  assert.equal(await page.locator(".sticky-axis .day").count(), 31);
  assert.match(await count(page), /Mon 23 Nov to Wed 23 Dec \(UTC\)/);
  await page.getByTestId("zoom").selectOption("quarter");
  await loaded(page);
  assert.deepEqual((await page.locator(".sticky-axis .week").allInnerTexts()).slice(0, 3), ["23 Nov", "30 Nov", "07 Dec"]);
  assert.equal(await page.locator(".sticky-axis .week").count(), 14);
  assert.match(await count(page), /Mon 23 Nov to Tue 23 Feb \(UTC\)/);

  // The holiday freeze, from the date input: 20 Dec 00:00 in Berlin is 19 Dec 23:00 UTC.
  await page.getByTestId("zoom").selectOption("month");
  await page.getByTestId("jump").fill("2026-12-14");
  await loaded(page);
  const target = page.locator('[data-cluster="edge-eu-0"] [data-target="Kustomization/flux-system/apps-rw"]');
  const frozen = await target
    .locator(".band.frozen")
    .evaluateAll((bands) => bands.map((b) => [b.getAttribute("data-start") as string, b.getAttribute("data-end") as string]));
  assert.ok(
    frozen.some(([s]) => s === "2026-12-19T23:00:00Z") && frozen.some(([, e]) => e === "2027-01-04T23:00:00Z"),
    `the holiday freeze, from 20 Dec to 5 Jan in Berlin: ${JSON.stringify(frozen)}`,
  );
  const opens = await target.locator(".band.open").evaluateAll((bands) => bands.map((b) => b.getAttribute("data-start") as string));
  assert.deepEqual(
    opens.filter((s) => s >= "2026-12-19T23:00:00Z" && s < "2027-01-04T23:00:00Z"),
    [],
    "no opening during the holiday freeze",
  );
  assert.ok(opens.length > 0, "openings before and after it");
  assert.match(page.url(), /#\/\?search=edge-eu-0&from=2026-12-14&zoom=month$/);

  // The week of the clock change: Berlin goes from CET to CEST on Sunday 28 March 2027.
  await page.getByTestId("zoom").selectOption("week");
  await page.getByTestId("jump").fill("2027-03-22");
  await loaded(page);
  assert.equal(await page.locator('[data-cluster="edge-eu-0"] [data-testid="zone-change"]').innerText(), "CET → CEST at Sun 28 Mar, 03:00 CEST");
  await page.getByRole("button", { name: "Later" }).click();
  await loaded(page);
  assert.match(await count(page), /Mon 29 Mar to Sun 04 Apr/);
  assert.equal(await page.locator('[data-cluster="edge-eu-0"] [data-testid="zone-change"]').count(), 0);

  // Window lanes are a detail: the cluster's button shows them; hiding them again forgets a band chosen on one.
  const toggle = page.locator('[data-cluster="edge-eu-0"] .lanes-toggle');
  assert.equal(await toggle.innerText(), "Show 3 window lanes");
  await toggle.click();
  const nightly = page.locator('[data-cluster="edge-eu-0"] [data-window="nightly"]');
  await nightly.locator(".band.open").first().click();
  await page.locator('.details-row[data-cluster="edge-eu-0"]').waitFor();
  assert.equal(await toggle.innerText(), "Hide 3 window lanes");
  assert.match(page.url(), /band=window%3Anightly%402027-03-29T20%3A00%3A00Z$/, "22:00 CEST");
  await toggle.click();
  await nightly.waitFor({ state: "detached" });
  assert.equal(await page.locator(".details-row").count(), 0);
  assert.doesNotMatch(page.url(), /band=/);
  assert.equal(await toggle.getAttribute("aria-expanded"), "false");
  assert.deepEqual(errors, []);
  await page.close();
});

test("met with 429s, the page waits as told and asks again: every cluster on screen gets its timeline and status", async () => {
  // A service of its own whose budget a page's first load exceeds: six requests (who, repository, clusters twice, the screen's timelines and status) against a
  // burst of 4, one more every 2 s.
  const tight = await startService({ ...serviceOptions, rateLimit: { burst: 4, perSecond: 0.5 } });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 2400 } });
    await page.clock.setFixedTime(new Date(NOW));
    const errors: string[] = [];
    page.on("console", (m) => void (m.type() === "error" && !m.text().includes("status of 429") && errors.push(m.text())));
    page.on("pageerror", (e) => errors.push(String(e)));
    const refused: string[] = [];
    page.on("response", (r) => void (r.status() === 429 && refused.push(new URL(r.url()).pathname)));
    await page.goto(`${tight.url}/#token=${tokens.viewer}`);
    await page.locator(".fleet-grid").waitFor({ timeout: 60_000 });
    await loaded(page);
    assert.ok(
      refused.some((p) => p === "/api/v1/timeline" || p === "/api/v1/fleet/clusters"),
      `the fleet's reads met the rate limit: ${JSON.stringify(refused)}`,
    );
    const drawn = await heads(page);
    assert.ok(drawn.length >= 16, `${drawn.length} clusters drawn`);
    assert.equal(await page.locator('.vrow[data-status="done"]').count(), drawn.length, "each head has its status");
    assert.equal(await page.locator(".note").count(), 0, "no lane left loading or failed");
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    await tight.close();
  }
});
