// The dashboard with the keyboard alone (Tab, Shift+Tab, Enter, Space, Escape, arrows: no click) and without colour (forced colours): a real `fluxgate serve`
// and a real Chromium.

import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { writeGeneratedFleet } from "../../src/devenv/generated-fleet.ts";
import { startService, type RunningService } from "../../src/server/server.ts";
import { git, NOW, tempDir, testServiceOptions, writeTokens, type Tokens } from "../support/server.ts";
import { launch } from "./chromium.ts";
import { fleetLoaded, openFleetPage } from "./fleet-page.ts";

const CLUSTERS = 60;

let browser: Browser;
let service: RunningService;
let tokens: Tokens;
let cleanup: () => Promise<void>;

before(async () => {
  const temp = await tempDir("browser-keyboard");
  cleanup = temp.cleanup;
  const repo = join(temp.dir, "fleet");
  await writeGeneratedFleet(repo, CLUSTERS);
  // One window that cannot be read, so the page has an invalid lane to show.
  await writeFile(
    join(repo, "clusters/edge-eu-4/windows/nightly.yaml"),
    'apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata:\n  name: nightly\n  namespace: flux-system\nspec:\n  schedules:\n    - {start: "not a cron", duration: 2h}\n  targets:\n    - {kind: Kustomization, name: apps-rw}\n',
  );
  await git(repo, "commit", "--quiet", "--all", "-m", "nightly of edge-eu-4 made invalid");
  tokens = await writeTokens(temp.dir);
  service = await startService(testServiceOptions(repo, tokens.file));
  // An override of each kind on edge-eu-0, from now (Monday 10:00 UTC): an opening and a freeze.
  for (const [window, action] of [
    ["maintenance", "Open"],
    ["nightly", "Freeze"],
  ] as const) {
    const response = await fetch(`${service.url}/api/v1/clusters/edge-eu-0/overrides`, {
      method: "POST",
      headers: { Authorization: `Bearer ${tokens.editor}`, "Content-Type": "application/json" },
      body: JSON.stringify({ window, action, duration: "48h", reason: `${action} for the keyboard test` }),
    });
    assert.equal(response.status, 201, await response.text());
  }
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await service?.close();
  await cleanup?.();
});

/** A page signed in as the editor at `hash`, its clock at the service's (Monday 23 Nov 2026, 10:00 UTC), recording errors. */
async function open(hash: string): Promise<{ page: Page; errors: string[] }> {
  return openFleetPage(browser, service.url, tokens.editor, hash, { locale: "en-US" });
}

const loaded = fleetLoaded;

/** Presses Tab (Shift+Tab with `back`) until the focused element matches `selector`; fails after `max` presses. */
async function tabTo(page: Page, selector: string, options: { back?: boolean; max?: number } = {}): Promise<void> {
  const max = options.max ?? 300;
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(options.back === true ? "Shift+Tab" : "Tab");
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
  }
  const at = await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 200) ?? "nothing");
  assert.fail(`${max} presses of ${options.back === true ? "Shift+Tab" : "Tab"} did not reach ${selector}; the focus is on ${at}`);
}

/** What has the focus: its tag, classes and the attributes the tests look at. */
const focused = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const e = document.activeElement;
    if (e === null) return "nothing";
    const row = e.closest(".vrow")?.getAttribute("data-cluster") ?? "";
    return `${e.tagName.toLowerCase()}.${Array.from(e.classList).join(".")} ${row} ${e.getAttribute("data-start") ?? e.getAttribute("aria-label") ?? ""}`.trim();
  });

const count = (page: Page): Promise<string> => page.getByTestId("count").innerText();
const countStarts = (page: Page, text: string): Promise<unknown> =>
  page.waitForFunction((t) => document.querySelector('[data-testid="count"]')?.textContent?.startsWith(t) === true, text);

test("with the keyboard alone: search, label selector, grouping, zoom, earlier and later, jump to date", async () => {
  const { page, errors } = await open("#/");
  await tabTo(page, '[data-testid="search"]');
  await page.keyboard.type("eu-2");
  await countStarts(page, "5 of 60");
  await tabTo(page, '[data-testid="selector"]');
  await page.keyboard.type("ring=canary");
  // Of edge-eu-20, 23, 24, 27 and 28, only edge-eu-20 is a canary (every tenth cluster is).
  await countStarts(page, "1 of 60");
  await loaded(page);
  assert.deepEqual(await page.locator(".vrow[data-status]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-cluster"))), ["edge-eu-20"]);

  // Grouping: the select's options are none, region, ring; the arrow keys choose.
  await tabTo(page, '[data-testid="group"]');
  await page.keyboard.press("ArrowDown");
  await page.locator('.group-head[data-group="region=eu"]').waitFor();
  assert.equal(await page.getByTestId("group").inputValue(), "region");
  await page.keyboard.press("ArrowDown");
  await page.locator('.group-head[data-group="ring=canary"]').waitFor();
  assert.deepEqual(await page.locator(".group-head").allInnerTexts(), ["ring=canary 1 cluster"]);

  // Zoom: day, week, month, quarter, by the arrow keys on the zoom select.
  await tabTo(page, '[data-testid="zoom"]');
  assert.match(await count(page), /Mon 23 Nov to Sun 29 Nov \(UTC\)/);
  await page.keyboard.press("ArrowUp");
  await countStarts(page, "1 of 60 clusters · Mon 23 Nov to Mon 23 Nov");
  assert.equal(await page.locator(".sticky-axis .hour-tick").count(), 23, "a day is drawn by the hour");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  await countStarts(page, "1 of 60 clusters · Mon 23 Nov to Wed 23 Dec");
  await page.keyboard.press("ArrowDown");
  await countStarts(page, "1 of 60 clusters · Mon 23 Nov to Tue 23 Feb");
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("ArrowUp");
  await countStarts(page, "1 of 60 clusters · Mon 23 Nov to Sun 29 Nov");

  // Later (Enter), then Earlier (Space) from it with Shift+Tab, then Later again and Today.
  await tabTo(page, 'button[aria-label="Later"]');
  await page.keyboard.press("Enter");
  await countStarts(page, "1 of 60 clusters · Mon 30 Nov to Sun 06 Dec");
  await tabTo(page, 'button[aria-label="Earlier"]', { back: true });
  await page.keyboard.press("Space");
  await page.keyboard.press("Space");
  await countStarts(page, "1 of 60 clusters · Mon 16 Nov to Sun 22 Nov");
  await tabTo(page, 'button[aria-label="Later"]');
  await page.keyboard.press("Enter");
  await countStarts(page, "1 of 60 clusters · Mon 23 Nov to Sun 29 Nov");

  // Jump to date: the date box takes month, day and year typed in turn.
  await tabTo(page, '[data-testid="jump"]');
  await page.keyboard.type("12212026");
  await countStarts(page, "1 of 60 clusters · Mon 21 Dec to Sun 27 Dec");
  await loaded(page);
  assert.ok((await page.locator('[data-cluster="edge-eu-20"] .band.frozen').count()) > 0, "the holiday freeze is on screen");
  assert.match(page.url(), /#\/\?search=eu-2&selector=ring%3Dcanary&group=ring&from=2026-12-21$/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("with the keyboard alone: a band's details open and close (Close or Escape) and the focus comes back; a window lane opens; a focused band scrolled far away keeps the focus", async () => {
  const { page, errors } = await open("#/?search=edge-eu-0");
  const lane = '.vrow[data-cluster="edge-eu-0"] [data-target="Kustomization/flux-system/apps-rw"]';
  await tabTo(page, `${lane} .band.frozen`);
  const band = await page.evaluate(() => document.activeElement?.getAttribute("data-start"));
  await page.keyboard.press("Enter");
  const details = page.locator('.details-row[data-cluster="edge-eu-0"]');
  await details.waitFor();
  assert.match(await page.getByTestId("detail-local").innerText(), /^Fri 27 Nov, 00:00 CET → Sat 28 Nov, 00:00 CET$/);
  assert.match(page.url(), /band=target%3AKustomization%2Fflux-system%2Fapps-rw%402026-11-26T23%3A00%3A00Z$/);
  // Escape closes them; the focus is on the band again.
  await page.keyboard.press("Escape");
  await details.waitFor({ state: "detached" });
  assert.doesNotMatch(page.url(), /band=/);
  await page.waitForFunction((start) => document.activeElement?.getAttribute("data-start") === start, band);
  // Enter again, then Tab to the details' Close button and press it.
  await page.keyboard.press("Enter");
  await details.waitFor();
  await tabTo(page, ".details-row button");
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Close");
  await page.keyboard.press("Enter");
  await details.waitFor({ state: "detached" });
  await page.waitForFunction((start) => document.activeElement?.getAttribute("data-start") === start, band);

  // The cluster's window lanes: back to its button, Enter, then a band of the nightly lane.
  await tabTo(page, '.vrow[data-cluster="edge-eu-0"] .lanes-toggle', { back: true });
  await page.keyboard.press("Enter");
  const nightly = '.vrow[data-cluster="edge-eu-0"] [data-window="nightly"]';
  await page.locator(nightly).waitFor();
  assert.equal(await page.locator('.vrow[data-cluster="edge-eu-0"] .lanes-toggle').getAttribute("aria-expanded"), "true");
  await tabTo(page, `${nightly} .band.open`);
  await page.keyboard.press("Enter");
  await details.waitFor();
  assert.match(page.url(), /band=window%3Anightly%40/);
  await page.keyboard.press("Escape");
  await details.waitFor({ state: "detached" });
  assert.match(await focused(page), /^button\.band\.open edge-eu-0 /);
  assert.deepEqual(errors, []);
  await page.close();

  // The whole fleet: a band of the first cluster keeps the focus when End scrolls to the last one, thousands of pixels (far more than the rows drawn off
  // screen) below.
  const { page: fleet, errors: fleetErrors } = await open("#/");
  // The clusters on the first screen loaded (their rows at their height), so the end End scrolls to is the list's end.
  await loaded(fleet);
  await tabTo(fleet, '.vrow[data-cluster="edge-ap-2"] .band');
  const before = await focused(fleet);
  await fleet.keyboard.press("End");
  await fleet.locator('.vrow[data-cluster="edge-us-57"]').first().waitFor();
  await loaded(fleet);
  const scrolled = await fleet.evaluate(() => window.scrollY);
  assert.ok(scrolled > 5000, `the page scrolled to its end: ${scrolled} px`);
  assert.equal(await focused(fleet), before, "the band still has the focus");
  assert.equal(await fleet.locator('.vrow[data-cluster="edge-ap-6"]').count(), 0, "the rows around it are not drawn");
  // Enter still chooses it; Home scrolls back to it and its details.
  await fleet.keyboard.press("Enter");
  await fleet.waitForFunction(() => location.hash.includes("cluster=edge-ap-2&band="));
  await fleet.keyboard.press("Home");
  await fleet.locator('.details-row[data-cluster="edge-ap-2"]').waitFor();
  await fleet.keyboard.press("Escape");
  await fleet.locator(".details-row").waitFor({ state: "detached" });
  assert.equal(await focused(fleet), before, "Escape leaves the focus on the band");
  assert.deepEqual(fleetErrors, []);
  await fleet.close();
});

test("with the keyboard alone: a cluster's page, the editor of one of its windows, and the override form", async () => {
  const { page, errors } = await open("#/?search=edge-eu-0");
  await tabTo(page, '.vrow[data-cluster="edge-eu-0"] .cluster-head a');
  await page.keyboard.press("Enter");
  await page.locator(".cluster-page table.windows").waitFor();
  assert.match(page.url(), /#\/c\/edge-eu-0$/);

  // The window editor, from the cluster's table of windows.
  await tabTo(page, 'table.windows a[href$="/w/nightly"]');
  await page.keyboard.press("Enter");
  await page.locator(".editor-form h2").waitFor();
  assert.equal(await page.locator(".editor-form h2").innerText(), "Window nightly on edge-eu-0");
  await tabTo(page, '.editor-form [data-path="spec.schedules[0].start"]');
  await page.keyboard.press("Control+A");
  // In one input event: typed a key at a time on a busy machine, a pause past the editor's 250 ms
  // wait would check "0 2" on the way, which the service answers 400 (an invalid schedule), logged
  // by the browser as a failed load.
  await page.keyboard.insertText("0 23 * * *");
  assert.equal(await page.locator('[data-path="spec.schedules[0].start"]').inputValue(), "0 23 * * *");
  await page.getByTestId("validation").filter({ hasText: "✓ Valid" }).waitFor();
  await tabTo(page, '[data-testid="reason"]');
  await page.keyboard.type("later at night");
  assert.equal(await page.getByTestId("reason").inputValue(), "later at night");

  // Back to the cluster by the address bar's trail (Shift+Tab to it), then the override form.
  await tabTo(page, 'nav a[href="#/c/edge-eu-0"]', { back: true });
  await page.keyboard.press("Enter");
  await page.locator('form[aria-label="New override"]').waitFor();
  const selects = page.locator('form[aria-label="New override"] select');
  const second = await selects.first().evaluate((s) => (s as HTMLSelectElement).options[1]?.value);
  await tabTo(page, 'form[aria-label="New override"] select');
  await page.keyboard.press("ArrowDown");
  // The window, then the action (Open, Freeze): the next Tab.
  await page.keyboard.press("Tab");
  await page.keyboard.press("ArrowDown");
  await tabTo(page, 'form[aria-label="New override"] input[required]');
  await page.keyboard.type("hotfix for the plant");
  const form = await page
    .locator('form[aria-label="New override"]')
    .evaluate((f) => Array.from(f.querySelectorAll("select, input")).map((e) => (e as HTMLInputElement).value));
  assert.deepEqual(form.slice(0, 4), [second, "Freeze", "2h", "hotfix for the plant"]);
  await tabTo(page, 'form[aria-label="New override"] button[type="submit"]');
  assert.deepEqual(errors, []);
  await page.close();
});

test("without colour (forced colours): every kind of band and the legend say what they are in words and distinct patterns", async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.emulateMedia({ forcedColors: "active" });
  await page.clock.setFixedTime(new Date(NOW));
  await page.goto(`${service.url}/#token=${tokens.viewer}`);
  await page.locator(".fleet-grid").waitFor();
  await page.goto(`${service.url}/#/?search=edge-eu-&lanes=all`);
  await page.reload();
  await loaded(page);
  assert.equal(await page.evaluate(() => matchMedia("(forced-colors: active)").matches), true);

  const legend = await page.locator(".legend li").allInnerTexts();
  const words = {
    open: "open: targets may take changes",
    frozen: "frozen: a freeze holds every change",
    "override-open": "override open",
    "override-freeze": "override freeze",
    now: "now",
    invalid: "invalid: the controller leaves its targets as they are",
  };
  for (const text of Object.values(words))
    assert.ok(
      legend.some((l) => l.trim() === text),
      `the legend says "${text}": ${JSON.stringify(legend)}`,
    );
  assert.ok(
    legend.some((l) => l.startsWith("Blank: closed.")),
    "closed is said too",
  );

  // How each kind is drawn once colours are forced: the border (hatching is dropped), the same for the legend's swatch and the bands.
  const look = (selector: string): Promise<string> =>
    page
      .locator(selector)
      .first()
      .evaluate((e) => {
        const s = getComputedStyle(e);
        return (
          ["Top", "Right", "Bottom", "Left"]
            .map((side) => `${s.getPropertyValue(`border-${side.toLowerCase()}-style`)} ${s.getPropertyValue(`border-${side.toLowerCase()}-width`)}`)
            .join(" / ") + (e.classList.contains("now") ? ` | ${s.borderLeftStyle} left` : "")
        );
      });
  const swatches: Record<string, string> = {};
  for (const kind of Object.keys(words)) swatches[kind] = await look(`.legend .swatch.${kind}`);
  assert.equal(new Set(Object.values(swatches)).size, Object.keys(swatches).length, `each swatch has its own pattern: ${JSON.stringify(swatches)}`);
  for (const kind of ["open", "frozen", "override-open", "override-freeze", "invalid"]) {
    const bands = page.locator(`.fleet-grid .band.${kind}`);
    assert.ok((await bands.count()) > 0, `a ${kind} band is on screen`);
    assert.equal(await look(`.fleet-grid .band.${kind}`), swatches[kind], `a ${kind} band is drawn as its swatch`);
    // And each says what it is in words: its label (screen readers, and the title on hover) starts with its kind.
    const labels = await bands.evaluateAll((list) => list.map((b) => b.getAttribute("aria-label") ?? b.textContent ?? ""));
    const start = {
      open: /^Open: /,
      frozen: /^Frozen: /,
      "override-open": /^Override: open: /,
      "override-freeze": /^Override: freeze: /,
      invalid: /⚠ (Invalid|Held as it is)/,
    }[kind] as RegExp;
    for (const label of labels) assert.match(label, start);
  }
  // Wide bands carry their word on the band itself.
  const written = await page.locator(".fleet-grid .band .band-label").allInnerTexts();
  for (const word of ["open", "frozen", "override open", "override freeze"])
    assert.ok(written.includes(word), `some band reads "${word}": ${JSON.stringify([...new Set(written)])}`);
  // The "now" line is a border, which forced colours keep.
  assert.equal(
    await page
      .locator(".fleet-grid .now-line")
      .first()
      .evaluate((e) => getComputedStyle(e).borderLeftStyle),
    "solid",
  );
  // Each lane's state now is in words and symbols too.
  const states = await page.locator(".vrow .state").allInnerTexts();
  for (const state of [/^● open/, /^○ closed/, /^❄ (frozen|overridden)/, /^⚠ invalid/])
    assert.ok(
      states.some((s) => state.test(s)),
      `a lane says ${state}: ${JSON.stringify([...new Set(states)])}`,
    );
  // A chosen band stays marked (its shadow is dropped): an outline of the system's highlight.
  await page.locator(".fleet-grid .band.frozen").first().focus();
  await page.keyboard.press("Enter");
  await page.locator(".details-row").waitFor();
  // Focus moved on, so the outline is the chosen band's own, not the focus ring.
  await page.keyboard.press("Tab");
  assert.equal(await page.locator(".fleet-grid .band.chosen").evaluate((e) => getComputedStyle(e).outlineStyle), "solid");
  await page.close();
});
