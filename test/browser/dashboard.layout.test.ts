// The dashboard's layout in a real browser at a narrow and a wide screen: long names and zones end in an ellipsis with the full text in a title, never cut
// silently; the axis's "now" covers no hour; a bad selector moves nothing.

import assert from "node:assert/strict";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { startService, type RunningService } from "../../src/server/server.ts";
import { git, tempDir, testServiceOptions, writeFleet, writeTokens, type Tokens } from "../support/server.ts";
import { launch } from "./chromium.ts";
import { openFleetPage } from "./fleet-page.ts";

/** A cluster whose name, zone and window are as long as people make them. */
const LONG_CLUSTER = "edge-tokyo-shinagawa-plant-hall-seven-assembly-line-b";
const LONG_ZONE = "America/Argentina/ComodRivadavia";
const LONG_WINDOW = "weekday-mornings-after-the-night-shift-handover";

let browser: Browser;
let service: RunningService;
let tokens: Tokens;
let cleanup: () => Promise<void>;

before(async () => {
  const temp = await tempDir("browser-layout");
  cleanup = temp.cleanup;
  const repo = join(temp.dir, "fleet");
  await mkdir(repo);
  await writeFleet(repo);
  // The example fleet's Tokyo cluster, its zone and its window renamed to long names.
  const windows = join(repo, "clusters", LONG_CLUSTER, "windows");
  await rename(join(repo, "clusters/edge-tokyo"), join(repo, "clusters", LONG_CLUSTER));
  await rename(join(windows, "apps-rw.yaml"), join(windows, `${LONG_WINDOW}.yaml`));
  await git(repo, "add", "--all");
  for (const path of (await git(repo, "ls-files")).split("\n")) {
    const file = join(repo, path);
    let text = (await readFile(file, "utf8")).replaceAll("edge-tokyo", LONG_CLUSTER).replaceAll("Asia/Tokyo", LONG_ZONE);
    if (file === join(windows, "kustomization.yaml")) text = text.replace("- apps-rw.yaml", `- ${LONG_WINDOW}.yaml`);
    if (file === join(windows, `${LONG_WINDOW}.yaml`)) text = text.replace(/^ {2}name: apps-rw$/m, `  name: ${LONG_WINDOW}`);
    await writeFile(file, text);
  }
  await git(repo, "commit", "--quiet", "--all", "-m", "Long names");
  tokens = await writeTokens(temp.dir);
  service = await startService(testServiceOptions(repo, tokens.file));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await service?.close();
  await cleanup?.();
});

/** An element of the fleet's row labels whose text does not fit, or is cut: how it says so. */
interface Cut {
  text: string;
  /** Wider than its box: ends in an ellipsis (one line, the rest hidden), its full text in its title. */
  ellipsis: boolean;
  title: string | null;
  /** Wrapped past its row's bottom (or taller than its box): hidden with no sign. */
  silent: boolean;
}

for (const width of [800, 1400]) {
  test(`at ${width} px, names and clocks that do not fit end in an ellipsis with their full text in a title; no text is cut silently`, async () => {
    const { page, errors } = await openFleetPage(browser, service.url, tokens.viewer, "#/?lanes=all", { viewport: { width, height: 900 } });
    await page.locator(`[data-cluster="${LONG_CLUSTER}"] [data-window="${LONG_WINDOW}"]`).waitFor();
    const cuts = await page.locator(".vrow .label").evaluateAll((labels): Cut[] => {
      const out: Cut[] = [];
      for (const label of labels) {
        const row = (label.closest(".vrow") as HTMLElement).getBoundingClientRect();
        for (const element of [label as HTMLElement, ...Array.from(label.querySelectorAll<HTMLElement>("*"))]) {
          const style = getComputedStyle(element);
          if (style.display === "none" || style.display === "inline") continue;
          const wide = element.scrollWidth > element.clientWidth;
          const box = element.getBoundingClientRect();
          const silent = element.scrollHeight > element.clientHeight || box.bottom > row.bottom + 0.5 || box.right > row.right + 0.5;
          if (!wide && !silent) continue;
          const ellipsis = style.textOverflow === "ellipsis" && style.whiteSpace === "nowrap" && style.overflowX === "hidden";
          out.push({ text: (element.textContent ?? "").trim(), ellipsis, title: element.getAttribute("title"), silent });
        }
      }
      return out;
    });
    for (const cut of cuts) {
      assert.deepEqual(cut, { text: cut.text, ellipsis: true, title: cut.text, silent: false }, `"${cut.text}" at ${width} px`);
    }
    const text = (t: string): Cut | undefined => cuts.find((c) => c.text === t);
    // The long ones do not fit at either width: the test sees them.
    assert.ok(text(LONG_CLUSTER) !== undefined, `the long cluster name is too long for its label: ${JSON.stringify(cuts)}`);
    assert.ok(text(LONG_ZONE) !== undefined, `the long zone is too long: ${JSON.stringify(cuts)}`);
    const clock = page.locator(`[data-cluster="${LONG_CLUSTER}"] .zone .clock`);
    assert.equal(await clock.textContent(), " · 07:00 GMT-3");
    assert.ok(
      await clock.evaluate(
        (c) => c.scrollWidth <= c.clientWidth && c.getBoundingClientRect().right <= (c.closest(".label") as HTMLElement).getBoundingClientRect().right,
      ),
      "the zone gives way to the cluster's clock, which is shown whole",
    );
    assert.ok(
      cuts.some((c) => c.text.includes(LONG_WINDOW)),
      `the long window name is too long: ${JSON.stringify(cuts)}`,
    );
    assert.deepEqual(errors, []);
    await page.close();
  });
}

for (const width of [800, 1400]) {
  test(`at ${width} px, the axis's "now" covers no hour tick and no day, by the day and by the week, at the first tick and later`, async () => {
    const overlaps = (a: DOMRect, b: DOMRect): boolean => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    // 06:20 is by the week's first tick (06) and the day's 06; 10:00 is the fixtures' now.
    for (const at of ["2026-11-23T06:20:00Z", "2026-11-23T10:00:00Z"]) {
      for (const hash of ["#/", "#/?zoom=day"]) {
        const { page, errors } = await openFleetPage(browser, service.url, tokens.viewer, hash, { viewport: { width, height: 900 }, now: Date.parse(at) });
        const now = await page.locator(".axis .now-label").evaluate((n) => n.getBoundingClientRect().toJSON() as DOMRect);
        const marks = await page
          .locator(".axis .hour-tick:visible, .axis .day > span:visible")
          .evaluateAll((nodes) =>
            nodes.map((n) => ({ text: n.textContent ?? "", tick: n.classList.contains("hour-tick"), box: n.getBoundingClientRect().toJSON() as DOMRect })),
          );
        const first = marks.find((m) => m.tick);
        assert.ok(first !== undefined, `${hash} at ${at}: the axis has hour ticks`);
        assert.equal(
          overlaps(now, first.box),
          false,
          `${hash} at ${at}: "now" ${JSON.stringify(now)} covers the first hour tick "${first.text}" ${JSON.stringify(first.box)}`,
        );
        assert.deepEqual(
          marks.filter((m) => overlaps(now, m.box)).map((m) => m.text),
          [],
          `${hash} at ${at}: "now" covers no tick and no day`,
        );
        assert.deepEqual(errors, []);
        await page.close();
      }
    }
  });
}

for (const width of [800, 1400]) {
  test(`at ${width} px, a selector that cannot be read says why without moving the fleet toolbar or its controls`, async () => {
    const { page, errors } = await openFleetPage(browser, service.url, tokens.viewer, "#/", { viewport: { width, height: 900 } });
    const boxes = (): Promise<Array<{ control: string; box: DOMRect }>> =>
      page.locator(".toolbar").evaluate((toolbar) => [
        { control: "toolbar", box: toolbar.getBoundingClientRect().toJSON() as DOMRect },
        ...Array.from(toolbar.querySelectorAll("input, select, button")).map((c) => ({
          control: c.getAttribute("data-testid") ?? c.getAttribute("aria-label") ?? c.textContent ?? "",
          box: c.getBoundingClientRect().toJSON() as DOMRect,
        })),
      ]);
    const before = await boxes();
    await page.getByTestId("selector").fill("ring in (canary");
    const problem = page.locator("#selector-error");
    await problem.waitFor();
    assert.match(await problem.innerText(), /^selector "ring in \(canary": parentheses do not match/);
    assert.deepEqual(await boxes(), before, "the toolbar and every control stay where they were");
    const shown = await problem.evaluate((p) => p.getBoundingClientRect().toJSON() as DOMRect);
    const overlaps = (a: DOMRect, b: DOMRect): boolean => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    assert.deepEqual(
      before
        .slice(1)
        .filter((c) => overlaps(c.box, shown))
        .map((c) => c.control),
      [],
      "the message covers no control",
    );
    assert.ok(shown.width > 0 && overlaps(shown, before[0]?.box as DOMRect), "the message is shown, in the toolbar");
    // Read again: the message goes and nothing moves back.
    await page.getByTestId("selector").fill("ring=canary");
    await problem.waitFor({ state: "detached" });
    assert.deepEqual(await boxes(), before);
    assert.deepEqual(errors, []);
    await page.close();
  });
}
