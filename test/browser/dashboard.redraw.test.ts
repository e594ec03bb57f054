// The fleet page in a real browser, watched by a MutationObserver: when a second screen's answers arrive, the rows already drawn are neither replaced nor
// changed.

import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { writeGeneratedFleet } from "../../src/devenv/generated-fleet.ts";
import { startService, type RunningService } from "../../src/server/server.ts";
import { NOW, tempDir, testServiceOptions, writeTokens, type Tokens } from "../support/server.ts";
import { launch } from "./chromium.ts";

let browser: Browser;
let service: RunningService;
let tokens: Tokens;
let cleanup: () => Promise<void>;

before(async () => {
  const temp = await tempDir("browser-redraw");
  cleanup = temp.cleanup;
  const repo = join(temp.dir, "fleet");
  await writeGeneratedFleet(repo, 200);
  tokens = await writeTokens(temp.dir);
  service = await startService(testServiceOptions(repo, tokens.file));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await service?.close();
  await cleanup?.();
});

/** What the observer saw: rows taken out and put in (by what they show), and changes inside rows that were drawn before. */
interface Seen {
  removed: string[];
  added: string[];
  changedOld: string[];
  old: number;
}

/**
 * Watches the fleet's list: every row drawn now is "old"; records rows taken out and put in, and changes inside old rows still on the page (read with
 * `seenRows`).
 */
async function watchRows(page: Page): Promise<void> {
  // Rows just drawn get their bands' words a frame later (once their width is known): that finishes first.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.evaluate(() => {
    const list = document.querySelector(".vlist") as Element;
    const name = (row: Element): string => {
      const lane = row.querySelector("[data-target]")?.getAttribute("data-target") ?? row.querySelector("[data-window]")?.getAttribute("data-window");
      const what =
        lane ?? (row.querySelector(".cluster-head") !== null ? "head" : row.classList.contains("details-row") ? "details" : `note ${row.textContent ?? ""}`);
      return `${row.getAttribute("data-cluster") ?? row.getAttribute("data-group") ?? ""} ${what}`;
    };
    const old = new WeakSet<Element>(Array.from(list.children));
    // Changes inside old rows, kept with their row: a row taken off the page (scrolled away) may still change as it goes (its lanes' width falls to 0), which
    // is no drawing.
    const changed: Array<[Element, string]> = [];
    const seen = { removed: [] as string[], added: [] as string[], changedOld: [] as string[], old: list.children.length };
    (window as unknown as { seen: () => typeof seen }).seen = () => ({
      ...seen,
      changedOld: changed.filter(([row]) => row.isConnected).map(([, what]) => what),
    });
    new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === "childList" && r.target === list) {
          for (const n of Array.from(r.removedNodes)) if (n instanceof Element && old.has(n)) seen.removed.push(name(n));
          for (const n of Array.from(r.addedNodes)) if (n instanceof Element) seen.added.push(name(n));
          continue;
        }
        const row = (r.target instanceof Element ? r.target : r.target.parentElement)?.closest(".vrow");
        // A row moved (its place in the list) is not drawn again.
        if (row === null || row === undefined || !old.has(row) || (r.type === "attributes" && r.target === row && r.attributeName === "style")) continue;
        changed.push([row, `${name(row)}: ${r.type} ${r.attributeName ?? ""}`]);
      }
    }).observe(list, { subtree: true, childList: true, attributes: true, characterData: true });
  });
}

const seenRows = (page: Page): Promise<Seen> => page.evaluate(() => (window as unknown as { seen: () => Seen }).seen());

test("when a second screen's answers arrive, the rows already drawn are not replaced or changed, only moved", async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.clock.setFixedTime(new Date(NOW));
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`${service.url}/#token=${tokens.viewer}`);
  const loaded = (): Promise<unknown> =>
    page.waitForFunction(
      () =>
        document.querySelector(".fleet-grid")?.getAttribute("data-loading") === "0" &&
        document.querySelector('.vrow[data-status="loading"]') === null &&
        document.querySelector(".vrow") !== null,
      undefined,
      { timeout: 60_000 },
    );
  await loaded();

  await watchRows(page);

  // Further down (the first screen also drew and loaded the rows just below it): the clusters that come on screen are asked for and drawn when their answers
  // arrive.
  const asked: string[] = [];
  page.on("request", (r) => void (r.url().includes("/api/v1/timeline?") && asked.push(r.url())));
  const top = await page.evaluate(() => {
    window.scrollBy(0, 1800);
    return window.scrollY;
  });
  assert.ok(top >= 1799, `scrolled: ${top}`);
  await page
    .waitForFunction(
      () => document.querySelector('.vrow[data-status="loading"]') !== null || document.querySelector(".fleet-grid")?.getAttribute("data-loading") !== "0",
      undefined,
      { timeout: 10_000 },
    )
    .catch(() => undefined);
  await loaded();
  const seen = await seenRows(page);

  assert.ok(asked.length >= 1, "the second screen's timelines were asked for");
  assert.ok(seen.old > 10, `a screen of rows was drawn first: ${seen.old}`);
  const lanes = seen.added.filter((a) => a.includes("Kustomization/"));
  assert.ok(lanes.length > 0, `the second screen's lanes were drawn as their answers came: ${JSON.stringify(seen.added)}`);
  // Rows of clusters that came on screen replaced their "Loading…" notes; no old row was taken out and put back.
  const replaced = seen.removed.filter((r) => seen.added.includes(r));
  assert.deepEqual(replaced, [], "no row already drawn was drawn again");
  assert.deepEqual(seen.changedOld, [], "nothing inside a row already drawn changed");
  const kept = await page.evaluate(() => document.querySelectorAll(".vlist > .vrow").length);
  assert.ok(seen.old - seen.removed.length > 0 && kept > 0, `rows drawn before are still there: ${seen.old - seen.removed.length} of ${seen.old}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a new commit: the page asks again for the clusters on screen and draws again only the rows whose answer changed", async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.clock.setFixedTime(new Date(NOW));
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`${service.url}/#token=${tokens.viewer}`);
  await page.waitForFunction(
    () =>
      document.querySelector(".fleet-grid")?.getAttribute("data-loading") === "0" &&
      document.querySelector('.vrow[data-status="loading"]') === null &&
      document.querySelector(".vrow") !== null,
    undefined,
    { timeout: 60_000 },
  );
  const first = await page.locator(".vrow[data-status]").first().getAttribute("data-cluster");
  assert.equal(first, "edge-ap-2");
  await watchRows(page);
  const asked: string[] = [];
  page.on("request", (r) => void (r.url().includes("/api/v1/timeline?") && asked.push(decodeURIComponent(new URL(r.url()).searchParams.get("names") ?? ""))));

  // Someone freezes edge-ap-2's nightly window for two days: one commit, made through the API.
  const response = await fetch(`${service.url}/api/v1/clusters/edge-ap-2/overrides`, {
    method: "POST",
    headers: { Authorization: `Bearer ${tokens.editor}`, "Content-Type": "application/json" },
    body: JSON.stringify({ window: "nightly", action: "Freeze", duration: "48h", reason: "a new commit while the page is open" }),
  });
  assert.equal(response.status, 201, await response.text());
  // The page checks the commit every 15 s.
  await page.locator('.vrow[data-cluster="edge-ap-2"] .band.override-freeze').first().waitFor({ timeout: 40_000 });
  await page.waitForFunction(() => document.querySelector(".fleet-grid")?.getAttribute("data-loading") === "0");

  const seen = await seenRows(page);
  assert.ok(
    asked.some((names) => names.split(",").length > 1 && names.split(",").includes("edge-ap-2")),
    `the screen's clusters were asked for again, together: ${JSON.stringify(asked)}`,
  );
  assert.deepEqual(
    seen.removed.filter((r) => seen.added.includes(r)),
    [],
    "no row was taken out and drawn again",
  );
  assert.ok(
    seen.changedOld.some((c) => c.startsWith("edge-ap-2 Kustomization/flux-system/apps-rw")),
    `edge-ap-2's apps-rw lane shows the freeze: ${JSON.stringify(seen.changedOld)}`,
  );
  assert.deepEqual(
    seen.changedOld.filter((c) => !c.startsWith("edge-ap-2 ")),
    [],
    "no other cluster's row changed",
  );
  assert.deepEqual(errors, []);
  await page.close();
});
