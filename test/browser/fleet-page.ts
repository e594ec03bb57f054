// The dashboard's fleet page opened in Chromium for a test: signed in, its clock at the fixtures' time, its errors recorded, loaded.

import type { Browser, Page } from "playwright-core";
import { NOW } from "../support/server.ts";

export interface FleetPageOptions {
  viewport?: { width: number; height: number };
  locale?: string;
  /** The page's clock; NOW when absent. */
  now?: number;
  /** Console errors that are not errors of the page (e.g. a 429 the page waits out). */
  ignore?: (message: string) => boolean;
}

/**
 * A page at `hash` (e.g. "#/?zoom=day") of the service at `url`, signed in with `token`, its clock at NOW (Monday 23 Nov 2026, 10:00 UTC) or `options.now`,
 * recording errors.
 */
export async function openFleetPage(
  browser: Browser,
  url: string,
  token: string,
  hash: string,
  options: FleetPageOptions = {},
): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({
    viewport: options.viewport ?? { width: 1400, height: 900 },
    ...(options.locale === undefined ? {} : { locale: options.locale }),
  });
  await page.clock.setFixedTime(new Date(options.now ?? NOW));
  const errors: string[] = [];
  const ignore = options.ignore ?? (() => false);
  page.on("console", (m) => void (m.type() === "error" && !ignore(m.text()) && errors.push(m.text())));
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`${url}/#token=${token}`);
  await page.locator(".fleet-grid").waitFor();
  if (hash !== "#/") {
    await page.goto(`${url}/${hash}`);
    await page.reload();
  }
  await fleetLoaded(page);
  return { page, errors };
}

/** Waits until every cluster on screen has its timeline and its status. */
export async function fleetLoaded(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const grid = document.querySelector(".fleet-grid");
      return grid?.getAttribute("data-loading") === "0" && document.querySelector('.vrow[data-status="loading"]') === null;
    },
    undefined,
    { timeout: 60_000 },
  );
}
