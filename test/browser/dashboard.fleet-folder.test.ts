// The dashboard in Chromium on a repository with the fleet folder (test/fixtures/gitops/fleet-folder), rendered by the real kustomize: each cluster's
// effective windows (its own and the fleet windows its labels select), and a freeze of the folder on the clusters its clusterSelector matches and on no other.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { serveFleetFolder } from "../support/fleet-folder.ts";
import { NOW } from "../support/server.ts";
import { launch } from "./chromium.ts";

/** A new page signed in with `token` at `hash`, its clock at the service's (Monday 23 Nov 2026, 10:00 UTC), recording errors. */
async function open(browser: Browser, url: string, token: string, hash: string, errors: string[]): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1200 } });
  await page.clock.setFixedTime(new Date(NOW));
  page.on("console", (m) => void (m.type() === "error" && errors.push(m.text())));
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`${url}/#token=${token}`);
  await page.goto(`${url}/${hash}`);
  return page;
}

/** The cluster page's windows table: each window's name, state, why, and where it comes from. */
async function windowRows(page: Page): Promise<string[][]> {
  await page.locator("table.windows tbody tr").first().waitFor();
  return await page
    .locator("table.windows tbody tr")
    .evaluateAll((rows) => rows.map((r) => Array.from(r.querySelectorAll("th, td")).map((c) => (c as HTMLElement).innerText.replace(/\s+/g, " ").trim())));
}

test("the dashboard shows a cluster's effective windows of the fleet folder, and a folder freeze on the cluster it matches and not on the other", async (t) => {
  const s = await serveFleetFolder(t);
  const freeze = await s.call("POST", "/api/v1/fleet/overrides", {
    body: { selector: "region=eu", duration: "2h", reason: "incident INC-7 in eu", name: "eu-stop" },
  });
  assert.equal(freeze.status, 201, JSON.stringify(freeze.body));
  const browser = await launch();
  t.after(() => browser.close());
  const errors: string[] = [];
  /** A cluster's page, and its windows table. */
  const clusterPage = async (cluster: string): Promise<{ page: Page; rows: string[][] }> => {
    const page = await open(browser, s.url, s.tokens.editor, `#/c/${cluster}`, errors);
    return { page, rows: await windowRows(page) };
  };

  // edge-berlin (ring prod, region eu): the fleet window prod-changes, frozen by the folder's freeze, which is listed with its file and no per-cluster end.
  const { page: berlin, rows: berlinRows } = await clusterPage("edge-berlin");
  assert.deepEqual(
    berlinRows.map((r) => r[0]),
    ["prod-changes"],
  );
  assert.equal(berlinRows[0]?.[1], "❄ frozen");
  assert.match(berlinRows[0]?.[2] ?? "", /incident INC-7 in eu/);
  assert.match(berlinRows[0]?.[5] ?? "", /fleet window prod-changes/i);
  const override = berlin.locator('li[data-override="eu-stop"]');
  await override.waitFor();
  assert.match(await override.innerText(), /Freeze prod-changes until .* — incident INC-7 in eu \(active\)/);
  assert.match(await override.getByTestId("fleet-override").innerText(), /fleet freeze eu-stop of the fleet folder \(fleet\/freezes\/eu-stop\.yaml\)/);
  assert.equal(await override.getByRole("button", { name: "End now" }).count(), 0, "one object for every cluster: not ended for one");

  // edge-tokyo (region apac): its prod-changes (patched to Tokyo's zone) is closed by its schedule, and no override is there.
  const { page: tokyo, rows: tokyoRows } = await clusterPage("edge-tokyo");
  assert.deepEqual(
    tokyoRows.map((r) => [r[0], r[1]]),
    [["prod-changes", "○ closed"]],
  );
  assert.doesNotMatch(tokyoRows[0]?.[2] ?? "", /INC-7/);
  await tokyo.getByText("No overrides in Git.").waitFor();
  assert.equal(await tokyo.locator('li[data-override="eu-stop"]').count(), 0);

  // edge-paris (its own apps-rw, region eu) is frozen too.
  const { rows: parisRows } = await clusterPage("edge-paris");
  assert.deepEqual(
    parisRows.map((r) => [r[0], r[1]]),
    [["apps-rw", "❄ frozen"]],
  );

  // The fleet page: the freeze's band on berlin's prod-changes lane, named with its reason; none on tokyo's.
  const fleet = await open(browser, s.url, s.tokens.viewer, "#/?lanes=all", errors);
  await fleet.locator('.fleet-grid[data-loading="0"]').waitFor();
  const berlinLane = fleet.locator('[data-cluster="edge-berlin"] [data-window="prod-changes"]');
  await berlinLane.locator(".band.override-freeze").first().waitFor();
  assert.equal(await berlinLane.locator(".band.override-freeze").count(), 1, "one band: the freeze");
  assert.match((await berlinLane.locator(".band.override-freeze").first().getAttribute("title")) ?? "", /eu-stop: incident INC-7 in eu/);
  const tokyoLane = fleet.locator('[data-cluster="edge-tokyo"] [data-window="prod-changes"]');
  await tokyoLane.locator(".band").first().waitFor();
  assert.equal(await tokyoLane.locator(".band.override-freeze").count(), 0);
  assert.deepEqual(errors, []);
});
