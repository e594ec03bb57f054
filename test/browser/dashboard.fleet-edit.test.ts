// Fleet windows and fleet freezes edited from the dashboard in a real browser, over a generated fleet with fleet windows served from a real bare remote and
// rendered by the real kustomize.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { serveGeneratedFleet, type ServedFleet } from "../support/fleet.ts";
import { git, NOW } from "../support/server.ts";
import { launch } from "./chromium.ts";

// edge-0 ... edge-11: canary when i % 4 = 0, prod otherwise; region eu, us, ap in turn; edge-1, -5 and -9 patch their fleet window's zone.
const CLUSTERS = 12;

let browser: Browser;
let fleet: ServedFleet;

before(async () => {
  fleet = await serveGeneratedFleet("browser-fleet-edit", CLUSTERS);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await fleet?.close();
});

/** A page signed in as an editor at `hash`, its clock at the service's; errors the page did not expect are recorded. */
async function open(hash: string, height = 1000): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height } });
  await page.clock.setFixedTime(new Date(NOW));
  const errors: string[] = [];
  page.on("console", (m) => {
    // The refusals this file provokes on purpose (400, 409) are logged by the browser as failed resources.
    if (m.type() === "error" && !/status of (400|409)/.test(m.text())) errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`${fleet.service.url}/#token=${fleet.tokens.editor}`);
  await page.locator(".fleet-grid").waitFor();
  await page.goto(`${fleet.service.url}/${hash}`);
  return { page, errors };
}

/** The bare remote's main: its commit, the last commit's subject and the files it changed. */
async function remote(): Promise<{ head: string; subject: string; files: string[] }> {
  return {
    head: await git(fleet.remote, "rev-parse", "main"),
    subject: await git(fleet.remote, "log", "-1", "--format=%s", "main"),
    files: (await git(fleet.remote, "show", "--name-only", "--format=", "main")).split("\n").filter((l) => l !== ""),
  };
}

/** The window lanes the fleet page draws for each cluster (every cluster on one tall screen). */
async function windowLanes(page: Page): Promise<Record<string, string[]>> {
  await page.locator('.fleet-grid[data-loading="0"]').waitFor();
  await page.waitForFunction(
    () => document.querySelector('.vrow[data-status="loading"]') === null && document.querySelectorAll(".row.lane[data-window]").length > 0,
  );
  const pairs = await page
    .locator(".row.lane[data-window]")
    .evaluateAll((rows) => rows.map((r) => [r.closest(".vrow")?.getAttribute("data-cluster") ?? "", r.getAttribute("data-window") ?? ""]));
  const out: Record<string, string[]> = {};
  for (const [cluster, window] of pairs) (out[cluster as string] ??= []).push(window as string);
  return out;
}

test("a fleet window added from the page is one commit in the remote, and the selected clusters' lanes show it", async () => {
  const before = await remote();
  const { page, errors } = await open("#/f");
  await page.locator('tr[data-fleet-window="prod-changes"]').waitFor();
  assert.match(
    await page.locator('tr[data-fleet-window="prod-changes"]').innerText(),
    /ring=prod\s+9: edge-1, edge-2, edge-3, .*\s+edge-1, edge-5, edge-9\s+none/,
  );
  await page.getByRole("link", { name: "New fleet window" }).click();
  await page.getByRole("heading", { name: /New fleet window/ }).waitFor();
  await page.locator('[data-path="metadata.name"]').fill("eu-nightly");
  await page.getByLabel("Clusters (label selector)").fill("region=eu");
  assert.equal(await page.getByTestId("selector-matches").innerText(), "Matches 4 clusters: edge-0, edge-3, edge-6, edge-9.");
  await page.locator('[data-path="spec.schedules[0].start"]').fill("0 22 * * *");
  await page.getByRole("combobox", { name: "Ends by" }).first().selectOption("duration");
  await page.locator('[data-path="spec.schedules[0].duration"]').fill("4h");
  await page.locator('[data-path="spec.targets[0].name"]').fill("apps");
  await page.getByTestId("reason").fill("nightly changes for the eu sites");
  await page.getByText("✓ Valid").waitFor();
  await page.getByRole("button", { name: "Save as a commit" }).click();
  const status = page.getByRole("status").filter({ hasText: "Saved as commit" });
  await status.waitFor();
  assert.match(await status.innerText(), /for 4 clusters: edge-0, edge-3, edge-6, edge-9\.$/);

  const after = await remote();
  assert.equal(await git(fleet.remote, "rev-parse", "main~1"), before.head, "one commit, pushed to the bare remote");
  assert.equal(after.subject, "fleet: add window eu-nightly for 4 clusters (region=eu): nightly changes for the eu sites");
  assert.deepEqual(after.files.sort(), [
    "clusters/edge-0/windows/kustomization.yaml",
    "clusters/edge-3/windows/kustomization.yaml",
    "clusters/edge-6/windows/kustomization.yaml",
    "clusters/edge-9/windows/kustomization.yaml",
    "fleet/windows/eu-nightly/eu-nightly.yaml",
    "fleet/windows/eu-nightly/kustomization.yaml",
  ]);
  assert.equal(page.url().endsWith("#/f/w/eu-nightly"), true, "the address is the fleet window's");

  // The fleet page, every cluster's window lanes: the eu clusters have the new window (as kustomize renders it), the others do not.
  const lanes = await open("#/?lanes=windows", 3600);
  const drawn = await windowLanes(lanes.page);
  for (let i = 0; i < CLUSTERS; i++) {
    assert.equal(drawn[`edge-${i}`]?.includes("eu-nightly"), i % 3 === 0, `edge-${i}: ${JSON.stringify(drawn[`edge-${i}`])}`);
  }
  assert.deepEqual([...errors, ...lanes.errors], []);
  await page.close();
  await lanes.page.close();
});

test("a fleet window on a cluster offers its base and the cluster's patch, never a save of the cluster's own; a patch changes that cluster alone, and goes again", async () => {
  const { page, errors } = await open("#/c/edge-3/w/prod-changes");
  const origin = page.getByTestId("origin");
  await origin.waitFor();
  assert.match(
    await origin.innerText(),
    /^fleet window prod-changes \(selector ring=prod\), not patched · Edit the base \(whole fleet\) · Patch for this cluster$/,
  );
  assert.equal(await page.getByRole("button", { name: "Save as a commit" }).count(), 0, "no PUT of the cluster's own file, which the service refuses");
  assert.equal(await page.getByRole("link", { name: "Edit the base (whole fleet)" }).getAttribute("href"), "#/f/w/prod-changes");

  // A zone that does not exist: said at the field, nothing to save.
  const before = await remote();
  await page.getByLabel("Its own time zone").check();
  await page.locator('[data-path="spec.timeZone"]').fill("Mars/Olympus");
  await page.getByLabel("Reason (goes into the commit message)").fill("the site runs on Tokyo time");
  await page.locator(".field-error").filter({ hasText: "Mars/Olympus" }).waitFor();
  assert.equal(await page.getByRole("button", { name: "Save the patch (one commit)" }).isDisabled(), true);
  assert.equal((await remote()).head, before.head);

  await page.locator('[data-path="spec.timeZone"]').fill("Asia/Tokyo");
  await page.getByRole("button", { name: "Save the patch (one commit)" }).and(page.locator(":enabled")).waitFor();
  // The keyboard saves it: the button is a native one, reached and pressed without a mouse.
  await page.getByRole("button", { name: "Save the patch (one commit)" }).focus();
  await page.keyboard.press("Enter");
  await page.getByTestId("patch-result").waitFor();
  const patched = await remote();
  assert.equal(await git(fleet.remote, "rev-parse", "main~1"), before.head, "one commit");
  assert.equal(patched.subject, "edge-3: patch fleet window prod-changes: the site runs on Tokyo time");
  assert.deepEqual(patched.files, ["clusters/edge-3/windows/kustomization.yaml"], "that cluster alone");
  assert.match(await page.getByTestId("origin").first().innerText(), /patched for this cluster/);
  assert.equal((await fleet.call("GET", "/api/v1/clusters/edge-3/windows/prod-changes")).body.timeZone, "Asia/Tokyo");
  for (const other of ["edge-2", "edge-6", "edge-7"])
    assert.equal((await fleet.call("GET", `/api/v1/clusters/${other}/windows/prod-changes`)).body.timeZone, "UTC", other);

  // Removed: the cluster takes the base as it is again, in one commit of its kustomization.yaml.
  await page.getByLabel("Reason (goes into the commit message)").fill("back to the fleet's zone");
  await page.getByRole("button", { name: "Remove the patch (take the base as it is)" }).click();
  await page.getByTestId("patch-result").filter({ hasText: "Patch removed" }).waitFor();
  const removed = await remote();
  assert.equal(removed.subject, "edge-3: remove its patch of fleet window prod-changes: back to the fleet's zone");
  assert.deepEqual(removed.files, ["clusters/edge-3/windows/kustomization.yaml"]);
  assert.equal((await fleet.call("GET", "/api/v1/clusters/edge-3/windows/prod-changes")).body.timeZone, "UTC");
  assert.deepEqual(errors, []);
  await page.close();
});

test("a cluster's patch gives it its own schedule by a recurrence rule, said in words; the rule reaches that cluster alone", async () => {
  const { page, errors } = await open("#/c/edge-6/w/prod-changes");
  await page.getByTestId("origin").waitFor();
  const before = await remote();
  await page.getByTestId("patch-schedules-on").check();
  const form = page.getByRole("form", { name: "Patch prod-changes for edge-6" });
  await form.locator('[data-row="schedule-0"]').getByRole("combobox", { name: "Kind" }).selectOption("recurrence");
  await form.locator('[data-path="spec.schedules[0].recurrence"]').fill("FREQ=MONTHLY;BYDAY=-1FR");
  await form.locator('[data-path="spec.schedules[0].at"]').fill("22:00");
  await form.locator('[data-path="spec.schedules[0].duration"]').fill("4h");
  await form.getByText("= the last Friday of each month").waitFor();
  await page.getByLabel("Reason (goes into the commit message)").fill("edge-6 changes on the last Friday");
  await page.getByRole("button", { name: "Save the patch (one commit)" }).and(page.locator(":enabled")).waitFor();
  await page.getByRole("button", { name: "Save the patch (one commit)" }).click();
  await page.getByTestId("patch-result").waitFor();
  const patched = await remote();
  assert.equal(await git(fleet.remote, "rev-parse", "main~1"), before.head, "one commit");
  assert.deepEqual(patched.files, ["clusters/edge-6/windows/kustomization.yaml"], "that cluster alone");
  assert.deepEqual((await fleet.call("GET", "/api/v1/clusters/edge-6/windows/prod-changes")).body.spec.schedules, [
    { recurrence: "FREQ=MONTHLY;BYDAY=-1FR", at: "22:00", duration: "4h" },
  ]);
  assert.equal(
    (await fleet.call("GET", "/api/v1/clusters/edge-7/windows/prod-changes")).body.spec.schedules[0]?.recurrence,
    undefined,
    "edge-7 keeps the base",
  );

  // Removed again: the cluster takes the base as it is.
  await page.getByLabel("Reason (goes into the commit message)").fill("back to the fleet's schedules");
  await page.getByRole("button", { name: "Remove the patch (take the base as it is)" }).click();
  await page.getByTestId("patch-result").filter({ hasText: "Patch removed" }).waitFor();
  assert.equal((await fleet.call("GET", "/api/v1/clusters/edge-6/windows/prod-changes")).body.spec.schedules[0]?.recurrence, undefined);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a fleet window's base edited from the page is one commit of the base file: every cluster that includes it follows, patches kept", async () => {
  const before = await remote();
  // Reached from a cluster's window, as a user would: "Edit the base (whole fleet)".
  const { page, errors } = await open("#/c/edge-2/w/prod-changes");
  await page.getByRole("link", { name: "Edit the base (whole fleet)" }).click();
  await page.getByRole("heading", { name: /Fleet window prod-changes/ }).waitFor();
  assert.match(
    await page.getByTestId("fleet-base").innerText(),
    /^Saving changes fleet\/windows\/prod-changes\/prod-changes\.yaml, one commit for the 9 clusters that include it \(selector ring=prod\); 3 patch it \(edge-1, edge-5, edge-9\) and keep their patches\.$/,
  );
  assert.equal(await page.locator('[data-path="spec.timeZone"]').inputValue(), "UTC", "the base's zone, not a cluster's patched one");
  await page.locator('[data-path="spec.schedules[0].start"]').fill("0 9 * * MON-THU");
  await page.getByTestId("reason").fill("a later start for the whole fleet");
  await page.getByText("✓ Valid").waitFor();
  assert.match(await page.getByTestId("pending-diff").innerText(), /spec\.schedules\[0\]\.start: "0 8 \* \* MON-THU" → "0 9 \* \* MON-THU"/);
  await page.getByRole("button", { name: "Save as a commit" }).click();
  const status = page.getByRole("status").filter({ hasText: "Saved as commit" });
  await status.waitFor();
  assert.match(await status.innerText(), /for the 9 clusters that include it\.$/);
  const after = await remote();
  assert.equal(await git(fleet.remote, "rev-parse", "main~1"), before.head, "one commit");
  assert.equal(after.subject, "fleet: change window prod-changes (9 clusters): a later start for the whole fleet");
  assert.deepEqual(after.files, ["fleet/windows/prod-changes/prod-changes.yaml"]);
  for (const cluster of ["edge-2", "edge-7"])
    assert.equal((await fleet.call("GET", `/api/v1/clusters/${cluster}/windows/prod-changes`)).body.spec.schedules[0].start, "0 9 * * MON-THU", cluster);
  const patched = (await fleet.call("GET", "/api/v1/clusters/edge-1/windows/prod-changes")).body;
  assert.equal(patched.spec.schedules[0].start, "0 9 * * MON-THU");
  assert.notEqual(patched.timeZone, "UTC", "edge-1 keeps its patch");

  // Someone else changed the base meanwhile: the page's version is stale, the service refuses (412), the page says so and commits nothing.
  const base = (await fleet.call("GET", "/api/v1/fleet/windows/prod-changes")).body;
  const other = await fleet.call("PUT", "/api/v1/fleet/windows/prod-changes", {
    body: { spec: { ...base.spec, closeGracePeriod: "10m" }, reason: "elsewhere" },
  });
  assert.equal(other.status, 200);
  const head = (await remote()).head;
  await page.locator('[data-path="spec.schedules[0].start"]').fill("0 10 * * MON-THU");
  await page.getByTestId("reason").fill("later still");
  await page.getByText("✓ Valid").waitFor();
  await page.getByRole("button", { name: "Save as a commit" }).click();
  await page.getByTestId("conflict").waitFor();
  assert.match(await page.getByRole("alert").first().innerText(), /Someone changed this window since you loaded it; nothing was saved/);
  assert.equal((await remote()).head, head);
  assert.deepEqual(
    errors.filter((e) => !/status of 412/.test(e)),
    [],
  );
  await page.close();
});

test("the cluster page and a window lane's details say where each window comes from", async () => {
  const { page, errors } = await open("#/c/edge-1");
  // Read without colour: what a window's origin is, is said in words.
  await page.emulateMedia({ forcedColors: "active" });
  await page.locator('tr[data-window="prod-changes"]').waitFor();
  assert.match(
    await page.locator('tr[data-window="prod-changes"] [data-testid="origin"]').innerText(),
    /^fleet window prod-changes \(selector ring=prod\), patched for this cluster/,
  );
  assert.match(await page.locator('tr[data-window="nightly"] [data-testid="origin"]').innerText(), /^own file clusters\/edge-1\/windows\/nightly\.yaml$/);

  const lanes = await open("#/?lanes=windows&search=edge-5");
  await windowLanes(lanes.page);
  await lanes.page.locator('.row.lane[data-window="prod-changes"] button.band').first().click();
  const where = lanes.page.locator(".lane-origin");
  await where.waitFor();
  assert.match(
    await where.innerText(),
    /^prod-changes is the fleet window prod-changes \(selector ring=prod\), patched for this cluster · Edit the base \(whole fleet\) · Change this cluster's patch$/,
  );
  assert.deepEqual([...errors, ...lanes.errors], []);
  await page.close();
  await lanes.page.close();
});

test("a fleet freeze started from the page is one commit on the matching clusters, shown on each, and ended everywhere in one commit", async () => {
  const before = await remote();
  const { page, errors } = await open("#/f");
  const form = page.getByRole("form", { name: "Start a fleet freeze" });
  await form.waitFor();
  await form.getByLabel("Clusters (label selector)").fill("region=ap");
  assert.equal(await page.getByTestId("selector-matches").innerText(), "Matches 4 clusters: edge-2, edge-5, edge-8, edge-11.");
  await form.getByLabel("Until (UTC)").fill("2026-11-23T18:00");
  await form.getByLabel("Reason").fill("incident in ap");
  await form.getByLabel("Name (optional)").fill("ap-stop");
  await form.getByRole("button", { name: "Start on every matching cluster (one commit)" }).click();
  const result = page.getByTestId("fleet-edit-result");
  await result.waitFor();
  assert.match(await result.innerText(), /^✓ Started ap-stop: frozen until .* on 4 clusters \(edge-2, edge-5, edge-8, edge-11\) as commit [0-9a-f]{40}\.$/);
  const started = await remote();
  assert.equal(await git(fleet.remote, "rev-parse", "main~1"), before.head, "one commit");
  assert.match(started.subject, /^fleet: freeze 4 clusters \(region=ap\) until 2026-11-23T18:00:00Z \(override ap-stop\): incident in ap$/);
  const row = page.locator('li[data-fleet-override="ap-stop"]');
  await row.waitFor();
  assert.match(await row.innerText(), /ap-stop: Freeze until .* — incident in ap \(active\)\n.*on 4 clusters: edge-2, edge-5, edge-8, edge-11/);

  // The same name again: the service's 409 is shown, nothing is committed.
  await form.getByLabel("Reason").fill("again");
  await form.getByLabel("Name (optional)").fill("ap-stop");
  await form.getByRole("button", { name: "Start on every matching cluster (one commit)" }).click();
  await page.getByTestId("freeze-error").waitFor();
  assert.match(await page.getByTestId("freeze-error").innerText(), /^✗ 409: a fleet override named ap-stop exists/);
  assert.equal((await remote()).head, started.head);

  // On a matching cluster: frozen, and its overrides say they belong to the fleet freeze; a cluster outside it has none.
  const cluster = await open("#/c/edge-5");
  await cluster.page.locator('li[data-override="ap-stop-prod-changes"]').waitFor();
  assert.match(
    await cluster.page.locator('li[data-override="ap-stop-prod-changes"] [data-testid="fleet-override"]').innerText(),
    /^part of fleet freeze ap-stop/,
  );
  assert.match(await cluster.page.locator('tr[data-window="prod-changes"]').innerText(), /frozen/);
  const outside = await open("#/c/edge-3");
  await outside.page.locator('tr[data-window="prod-changes"]').waitFor();
  assert.equal(await outside.page.getByTestId("fleet-override").count(), 0);

  // Ended everywhere, with the keyboard.
  await row.getByRole("button", { name: "End everywhere" }).focus();
  await page.keyboard.press("Enter");
  await page.getByLabel("Why end it now?").fill("resolved");
  await page.getByLabel("Why end it now?").press("Enter");
  await page.getByTestId("no-fleet-overrides").waitFor();
  const ended = await remote();
  assert.equal(await git(fleet.remote, "rev-parse", "main~1"), started.head, "one commit");
  assert.equal(ended.subject, "fleet: end override ap-stop on 4 clusters: resolved");
  assert.equal(ended.files.length, 16, "twelve override files and four kustomization.yaml");
  assert.equal((await fleet.call("GET", "/api/v1/clusters/edge-5/windows/prod-changes")).body.overridden, false);
  assert.deepEqual([...errors, ...cluster.errors, ...outside.errors], []);
  for (const p of [page, cluster.page, outside.page]) await p.close();
});

test("bad input (a bad name, a bad selector, an end in the past, a name taken) gets a clear message and commits nothing", async () => {
  const before = await remote();
  const { page, errors } = await open("#/f/new");
  await page.getByRole("heading", { name: /New fleet window/ }).waitFor();
  await page.locator('[data-path="metadata.name"]').fill("Bad_Name");
  await page.getByLabel("Clusters (label selector)").fill("ring in (prod");
  await page.getByTestId("reason").fill("try");
  assert.match(
    await page.locator(".field-error").filter({ hasText: "window name" }).innerText(),
    /"Bad_Name" is not a window name: lower-case letters, digits, '-' and '\.'/,
  );
  assert.match(await page.locator("#fleet-selector-error").innerText(), /selector "ring in \(prod": parentheses do not match/);
  assert.equal(await page.getByRole("button", { name: "Save as a commit" }).isDisabled(), true);
  await page.getByLabel("Clusters (label selector)").fill("region=nowhere");
  assert.match(await page.locator("#fleet-selector-error").innerText(), /selector "region=nowhere" matches no cluster/);
  assert.equal(await page.getByRole("button", { name: "Save as a commit" }).isDisabled(), true);

  // A name that is taken: the form is valid, the service refuses, and says why.
  await page.locator('[data-path="metadata.name"]').fill("prod-changes");
  await page.getByLabel("Clusters (label selector)").fill("ring=prod");
  await page.getByText("✓ Valid").waitFor();
  await page.getByRole("button", { name: "Save as a commit" }).click();
  const refused = page.getByRole("alert").filter({ hasText: "prod-changes" });
  await refused.waitFor();
  assert.match(await refused.innerText(), /fleet window prod-changes exists/);

  const freeze = await open("#/f");
  const form = freeze.page.getByRole("form", { name: "Start a fleet freeze" });
  await form.waitFor();
  await form.getByLabel("Clusters (label selector)").fill("region in (eu");
  await form.getByLabel("Until (UTC)").fill("2026-11-22T00:00");
  await form.getByLabel("Reason").fill("x");
  assert.match(await form.locator(".field-error").first().innerText(), /selector "region in \(eu": parentheses do not match/);
  assert.match(await form.locator(".field-error").nth(1).innerText(), /Sun 22 Nov 2026 00:00 UTC is in the past|2026.*is in the past/);
  assert.equal(await form.getByRole("button", { name: "Start on every matching cluster (one commit)" }).isDisabled(), true);
  await form.getByLabel("Clusters (label selector)").fill("region=nowhere");
  assert.match(await form.locator(".field-error").first().innerText(), /matches no cluster/);
  assert.equal(await form.getByRole("button", { name: "Start on every matching cluster (one commit)" }).isDisabled(), true);

  assert.equal((await remote()).head, before.head, "nothing committed");
  assert.deepEqual([...errors, ...freeze.errors], []);
  await page.close();
  await freeze.page.close();
});
