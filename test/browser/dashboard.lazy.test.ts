// The dashboard's pages load their modules as they are first opened: a load of the fleet page asks for none of the editor's, the cluster page's or the
// fleet windows page's; each page comes when opened, and a page whose modules could not be loaded says so and can be tried again.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { serveGeneratedFleet, type ServedFleet } from "../support/fleet.ts";
import { NOW } from "../support/server.ts";
import { launch } from "./chromium.ts";
import { fleetLoaded } from "./fleet-page.ts";

let browser: Browser;
let fleet: ServedFleet;

before(async () => {
  fleet = await serveGeneratedFleet("browser-lazy", 6);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await fleet?.close();
});

/** A page signed in as the editor, its clock at NOW, recording the modules it asks for (their paths under /assets/) and its errors. */
async function openPage(): Promise<{ page: Page; modules: string[]; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.clock.setFixedTime(new Date(NOW));
  const modules: string[] = [];
  const errors: string[] = [];
  page.on("request", (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith("/assets/") && path.endsWith(".js")) modules.push(path.slice("/assets/".length));
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  return { page, modules, errors };
}

/** Modules only the other pages need: the cluster page's, the editor's (with the recurrence engine) and the fleet windows page's. */
const OTHER_PAGES = ["app/cluster.js", "app/editor.js", "app/fleet-edit.js", "app/fleet-patch.js", "app/draft.js", "src/schedule/rrule.js"];

test("a load of the fleet page asks for none of the other pages' modules; each page brings its own when opened", async () => {
  const { page, modules, errors } = await openPage();
  await page.goto(`${fleet.service.url}/#token=${fleet.tokens.editor}`);
  await fleetLoaded(page);
  assert.ok(modules.includes("app/fleet.js") && modules.includes("app/rows.js"), `the fleet page's own modules: ${modules.join(" ")}`);
  // The worker that loads the browser's locale data off the page's thread (main.ts).
  assert.ok(modules.includes("app/intl-warm.js"), `the locale data's worker: ${modules.join(" ")}`);
  assert.deepEqual(
    OTHER_PAGES.filter((m) => modules.includes(m)),
    [],
    `the fleet page loaded: ${modules.join(" ")}`,
  );

  const cluster = (await page.locator(".fleet-grid .vrow[data-cluster]").first().getAttribute("data-cluster")) as string;
  await page.locator(`.vrow[data-cluster="${cluster}"] a[href="#/c/${cluster}"]`).click();
  await page.getByRole("heading", { name: new RegExp(`^${cluster}`) }).waitFor();
  assert.ok(modules.includes("app/cluster.js"), `opening a cluster loads its page: ${modules.join(" ")}`);
  assert.ok(!modules.includes("app/editor.js"), "the editor waits until a window is opened");

  await page.goto(`${fleet.service.url}/#/c/${cluster}/new`);
  await page.getByRole("heading", { name: "New window" }).waitFor();
  assert.ok(modules.includes("app/editor.js") && modules.includes("src/schedule/rrule.js"), `the editor and its recurrence engine: ${modules.join(" ")}`);

  // Back on the fleet page and again to the cluster: the page is drawn from the module loaded before, asked for once.
  await page.goto(`${fleet.service.url}/#/`);
  await fleetLoaded(page);
  await page.goto(`${fleet.service.url}/#/c/${cluster}`);
  await page.getByRole("heading", { name: new RegExp(`^${cluster}`) }).waitFor();
  assert.equal(modules.filter((m) => m === "app/cluster.js").length, 1, `cluster.js asked for once: ${modules.join(" ")}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a page whose modules cannot be loaded says so, and Try again loads it once they can", async () => {
  const { page, errors } = await openPage();
  let refuse = true;
  await page.route("**/assets/app/fleet-edit.js", (route) => (refuse ? route.fulfill({ status: 503, body: "unavailable" }) : route.continue()));
  await page.goto(`${fleet.service.url}/#token=${fleet.tokens.editor}`);
  await fleetLoaded(page);
  await page.getByRole("link", { name: "Fleet windows and freezes" }).click();
  const alert = page.getByRole("alert").filter({ hasText: "Could not load this part of the dashboard" });
  await alert.waitFor();
  assert.equal(await page.getByRole("heading", { name: "Fleet windows and freezes" }).count(), 0);
  refuse = false;
  await alert.getByRole("button", { name: "Try again" }).click();
  await page.getByRole("heading", { name: "Fleet windows and freezes" }).waitFor();
  assert.equal(await alert.count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});
