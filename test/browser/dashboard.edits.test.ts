// The dashboard in a real browser where users said it hurt: overrides, invalid windows, narrow screens, zones, calendar tokens, sign-in links, conflicts, a
// rewritten origin.

import assert from "node:assert/strict";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { startService, type RunningService } from "../../src/server/server.ts";
import { bareRemoteWithClone, git, NOW, tempDir, writeFleet, testServiceOptions, writeTokens, type Tokens } from "../support/server.ts";
import { launch } from "./chromium.ts";

let browser: Browser;
let service: RunningService;
let tokens: Tokens;
let remote: string;
let root: string;
let cleanup: () => Promise<void>;

/** A window file broken by hand: an hour 25 in its cron. */
const BROKEN = `apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata:\n  name: broken\n  namespace: flux-system\nspec:\n  schedules:\n    - start: "0 25 * * MON"\n      duration: 1h\n  targets:\n    - kind: Kustomization\n      name: apps-rw\n`;

before(async () => {
  const temp = await tempDir("browser-edits");
  cleanup = temp.cleanup;
  root = temp.dir;
  const seed = join(root, "seed");
  await mkdir(seed);
  await writeFleet(seed);
  await writeFile(join(seed, "clusters/edge-newyork/windows/broken.yaml"), BROKEN);
  const kustomization = join(seed, "clusters/edge-newyork/windows/kustomization.yaml");
  await writeFile(kustomization, `${(await readFile(kustomization, "utf8")).trimEnd()}\n  - broken.yaml\n`);
  await git(seed, "add", "--all");
  await git(seed, "commit", "--quiet", "-m", "A window broken by hand");
  ({ remote } = await bareRemoteWithClone(root, seed));
  tokens = await writeTokens(root);
  service = await startService(testServiceOptions(join(root, "work"), tokens.file, { rateLimit: { burst: 10_000, perSecond: 10_000 } }));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await service?.close();
  await cleanup?.();
});

async function open(path: string, token: string, width = 1400): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width, height: 1000 } });
  await page.clock.setFixedTime(new Date(NOW));
  const errors: string[] = [];
  page.on("console", (m) => {
    // Validation (400) and the conflict this file provokes (412) are logged by the browser on purpose.
    if (m.type() === "error" && !/status of (400|412)/.test(m.text())) errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`${service.url}/#token=${token}`);
  if (path !== "/") await page.goto(`${service.url}/${path}`);
  return { page, errors };
}

/** Waits until the fleet page drew every cluster on screen (none still loading). */
async function loaded(page: Page): Promise<void> {
  await page.locator('.fleet-grid[data-loading="0"] .vrow').first().waitFor();
}

async function api(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
}

test("zones read as their abbreviations: EST, JST, CET", async () => {
  const { page, errors } = await open("/", tokens.viewer);
  await loaded(page);
  const heads = await page.locator(".cluster-head .zone").allTextContents();
  assert.deepEqual(heads, ["Europe/Berlin · 11:00 CET", "America/New_York · 05:00 EST", "Asia/Tokyo · 19:00 JST"]);
  assert.deepEqual(errors, []);
  await page.close();
});

test("an invalid window is drawn as invalid, with its message, in its lane and its row", async () => {
  const { page, errors } = await open("#/?lanes=windows", tokens.viewer);
  const lane = page.locator('[data-cluster="edge-newyork"] [data-window="broken"]');
  await lane.waitFor();
  const band = lane.locator(".band.invalid");
  assert.equal(await band.count(), 1, "not a blank lane, which the legend calls closed");
  assert.match(await band.innerText(), /Invalid: spec\.schedules\[0\]\.start: cron "0 25 \* \* MON": hour field "25"/);
  assert.match(await lane.locator(".state").innerText(), /^⚠ invalid: spec\.schedules\[0\]\.start/);
  const laneBox = await lane.locator(".track").boundingBox();
  const bandBox = await band.boundingBox();
  assert.ok(laneBox !== null && bandBox !== null && bandBox.width >= laneBox.width - 2, "the whole lane says invalid");
  assert.match(await page.locator(".legend").innerText(), /invalid: the controller leaves its targets as they are/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("an active override says so in its row and is drawn across its whole span and lane", async () => {
  const created = await api("POST", "/api/v1/clusters/edge-tokyo/overrides", tokens.editor, {
    window: "apps-rw",
    action: "Open",
    duration: "4h",
    reason: "Hotfix 4711",
    name: "hotfix-4711",
  });
  assert.equal(created.status, 201);
  const { page, errors } = await open("#/?lanes=windows", tokens.viewer);
  const lane = page.locator('[data-cluster="edge-tokyo"] [data-window="apps-rw"]');
  await lane.waitFor();
  assert.equal(await lane.locator(".state").innerText(), "● overridden (open until 23:00 JST, by eddie editor: Hotfix 4711)");
  const track = await lane.locator(".track").boundingBox();
  const band = await lane.locator(".band.override-open").boundingBox();
  assert.ok(track !== null && band !== null);
  const expected = (4 / (7 * 24)) * track.width;
  assert.ok(Math.abs(band.width - expected) <= 2, `the band spans the 4 hours: ${band.width} px, expected ${expected}`);
  assert.ok(band.height >= track.height - 4, `the band fills the lane's height: ${band.height} of ${track.height}`);
  assert.deepEqual(errors, []);
  await page.close();
});

for (const width of [800, 1024, 1280, 1920]) {
  test(`at ${width} px the timeline is legible: no cut words, one "now" label, day headers over their days, hour ticks`, async () => {
    const { page, errors } = await open("#/?lanes=all", tokens.viewer, width);
    await page.locator('[data-cluster="edge-berlin"] [data-window="apps-rw"]').waitFor();
    await loaded(page);
    const cut = await page.locator(".band").evaluateAll((bands) =>
      bands.flatMap((b) => {
        const label = b.querySelector(".band-label");
        // The label's own box (an inline box is as wide as its text, clipped or not) against the band's.
        const text = label?.getBoundingClientRect().width ?? 0;
        const room = b.getBoundingClientRect().width;
        return label !== null && !b.classList.contains("invalid") && text > room
          ? [`${b.getAttribute("aria-label") ?? ""}: "${label.textContent ?? ""}" (${Math.round(text)}px) in ${Math.round(room)}px`]
          : [];
      }),
    );
    assert.deepEqual(cut, [], "every word shown fits its band; narrower bands carry it in their label and title");
    assert.equal(await page.locator(".now-label").count(), 1, "now is said once, in the axis");
    assert.equal(await page.locator(".lane:not(.target-lane) .now-line").count(), 4, "and drawn in every lane of a valid window");
    // ... and in every target's lane whose windows are all valid (a target of an invalid window is held, drawn as such).
    const targetLanes = await page.locator(".target-lane").count();
    const heldLanes = await page.locator(".target-lane .band.invalid").count();
    assert.ok(targetLanes > 0, "the targets have lanes");
    assert.equal(await page.locator(".target-lane .now-line").count(), targetLanes - heldLanes);
    const days = await page.locator(".axis .day").evaluateAll((nodes) => nodes.map((n) => n.getBoundingClientRect().left));
    assert.equal(days.length, 7);
    // Day lines are the lane's background grid, one per seventh of its track: where the track starts and what a seventh is say where each line is.
    const track = await page.locator('[data-cluster="edge-berlin"] [data-window="apps-rw"] .track').evaluate((n) => ({
      left: n.getBoundingClientRect().left,
      width: n.getBoundingClientRect().width,
      size: getComputedStyle(n).backgroundSize,
      image: getComputedStyle(n).backgroundImage,
    }));
    assert.match(track.image, /linear-gradient/);
    const cell = Number(/^([\d.]+)%/.exec(track.size)?.[1]) / 100;
    assert.ok(Math.abs(cell - 1 / 7) < 1e-3, `one grid cell a day: ${track.size}`);
    days.forEach((x, i) => {
      const line = track.left + i * cell * track.width;
      assert.ok(Math.abs(x - line) <= 1.5, `day ${i + 1} header at ${x} px, its line at ${line} px`);
    });
    const headers = await page
      .locator(".axis .day")
      .evaluateAll((nodes) =>
        nodes.flatMap((n) => (n.scrollWidth <= n.clientWidth + 1 ? [] : [`${n.textContent ?? ""}: ${n.scrollWidth} > ${n.clientWidth}`])),
      );
    assert.deepEqual(headers, [], "day headers are not cut");
    // Ticks as shown (a tick hidden by the narrow layout does not count): every 6 hours, or at noon where that is too dense.
    const ticks = await page
      .locator(".hour-tick:visible")
      .evaluateAll((nodes) => nodes.map((n) => ({ text: n.textContent ?? "", box: n.getBoundingClientRect().toJSON() as DOMRect })));
    assert.deepEqual([...new Set(ticks.map((tick) => tick.text))].sort(), width > 1100 ? ["06", "12", "18"] : ["12"]);
    assert.equal(ticks.length, width > 1100 ? 21 : 7, "a tick per 6 hours, or per noon, of the 7 days");
    const words = await page
      .locator(".axis .day > span:visible")
      .evaluateAll((nodes) => nodes.map((n) => ({ text: n.textContent ?? "", box: n.getBoundingClientRect().toJSON() as DOMRect })));
    assert.equal(words.length, 7);
    const overlaps = (a: DOMRect, b: DOMRect): boolean => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    const clashes = [...ticks, ...words].flatMap((a, i, all) =>
      all
        .slice(i + 1)
        .filter((b) => overlaps(a.box, b.box))
        .map((b) => `"${a.text}" and "${b.text}"`),
    );
    assert.deepEqual(clashes, [], "no tick label overlaps another or a day's header");
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test("the calendar field carries a read-only calendar token, never the signed-in token", async () => {
  const { page, errors } = await open("#/c/edge-berlin", tokens.editor);
  const field = page.getByLabel("Calendar feed address");
  await page.waitForFunction(
    () => document.querySelector<HTMLInputElement>('[aria-label="Calendar feed address"]')?.value.includes("access_token=fgc_") === true,
  );
  const address = await field.inputValue();
  assert.ok(!address.includes(tokens.editor), "the editor's token is not in the address");
  const feed = await fetch(address.replace(/^http:\/\/[^/]+/, service.url));
  assert.equal(feed.status, 200);
  assert.match(await feed.text(), /^BEGIN:VCALENDAR/);
  const write = await fetch(`${service.url}/api/v1/clusters`, {
    headers: { authorization: `Bearer ${new URL(address).searchParams.get("access_token") as string}` },
  });
  assert.equal(write.status, 401);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a sign-in link pasted into a tab showing the sign-in page signs it in", async () => {
  const { page } = await open("/", "fgt_wrong");
  await page.getByRole("form", { name: "Sign in" }).waitFor();
  await page.goto(`${service.url}/#token=${tokens.editor}`);
  await page.locator(".who").filter({ hasText: "eddie editor" }).waitFor();
  assert.equal(await page.evaluate(() => location.hash), "#/", "the token is taken out of the address");
  await page.close();
});

test("an override is ended early from the cluster page, as one commit with the reason", async () => {
  const created = await api("POST", "/api/v1/clusters/edge-berlin/overrides", tokens.editor, {
    window: "apps-rw",
    action: "Freeze",
    duration: "2h",
    reason: "Audit",
    name: "audit-freeze",
  });
  assert.equal(created.status, 201);
  const { page, errors } = await open("#/c/edge-berlin", tokens.breakglass);
  const row = page.locator('[data-override="audit-freeze"]');
  await row.waitFor();
  assert.match(await row.innerText(), /by eddie editor — Audit \(active\)/);
  await row.getByRole("button", { name: "End now" }).click();
  await row.getByLabel("Why end it now?").fill("Audit finished early");
  await row.getByRole("button", { name: "End override" }).click();
  await row.waitFor({ state: "detached" });
  assert.equal(
    await git(remote, "log", "-1", "--format=%an|%s", "main"),
    "bree oncall|edge-berlin: end override audit-freeze of window apps-rw: Audit finished early",
  );
  assert.deepEqual(errors, []);
  await page.close();
});

test("before saving the editor shows what the commit changes; a conflict shows what changed upstream and reapplies the edits on it", async () => {
  const { page, errors } = await open("#/c/edge-berlin/w/apps-rw", tokens.editor);
  await page.getByTestId("next-openings").locator("li").first().waitFor();
  await page.locator('[data-path="spec.schedules[0].start"]').fill("0 9 * * MON");
  await page.getByTestId("pending-diff").filter({ hasText: "0 9 * * MON" }).waitFor();
  assert.equal(await page.getByTestId("pending-diff").innerText(), 'spec.schedules[0].start: "0 8 * * MON" → "0 9 * * MON"');

  // Meanwhile someone else changes the same window: the Friday freeze becomes 12 hours.
  const current = await api("GET", "/api/v1/clusters/edge-berlin/windows/apps-rw", tokens.editor);
  const spec = structuredClone(current.body.spec);
  spec.freezes[0].duration = "12h";
  assert.equal((await api("PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", tokens.editor, { spec, reason: "Shorter Friday freeze" })).status, 200);

  await page.getByTestId("validation").filter({ hasText: "Valid" }).waitFor();
  await page.getByTestId("reason").fill("Start at 09:00");
  await page.getByRole("button", { name: "Save as a commit" }).click();
  await page.getByTestId("conflict").waitFor();
  // The refused save (412) left nothing: origin and the working copy hold the other change alone.
  assert.equal(await git(remote, "log", "-1", "--format=%s", "main"), "edge-berlin: change window apps-rw: Shorter Friday freeze");
  assert.equal(await git(join(root, "work"), "rev-parse", "HEAD"), await git(remote, "rev-parse", "main"));
  assert.equal(await git(join(root, "work"), "status", "--porcelain", "--untracked-files=all"), "");
  assert.equal(await page.getByTestId("upstream-diff").innerText(), 'spec.freezes[0].duration: "24h" → "12h"');
  assert.equal(await page.getByTestId("mine-diff").innerText(), 'spec.schedules[0].start: "0 8 * * MON" → "0 9 * * MON"');
  await page.getByRole("button", { name: "Reload and reapply my changes" }).click();
  await page.getByTestId("pending-diff").filter({ hasText: "0 9 * * MON" }).waitFor();
  await page.getByTestId("validation").filter({ hasText: "Valid" }).waitFor();
  await page.getByRole("button", { name: "Save as a commit" }).click();
  await page.getByTestId("commit").waitFor();
  const file = await git(remote, "show", "main:clusters/edge-berlin/windows/apps-rw.yaml");
  assert.match(file, /start: "0 9 \* \* MON"/, "my change");
  assert.match(file, /duration: 12h/, "and theirs, both kept");
  assert.deepEqual(errors, []);
  await page.close();
});

test("after origin was force-pushed, the dashboard's banner says what was dropped and where it is kept", async () => {
  const base = await git(remote, "rev-parse", "main");
  const other = join(root, "rewriter");
  await git(root, "clone", "--quiet", remote, other);
  await git(other, "reset", "--quiet", "--hard", `${base}~1`);
  await git(other, "push", "--quiet", "--force", "origin", "main");
  await service.repository.sync();
  const { page, errors } = await open("/", tokens.viewer);
  const banner = page.getByTestId("reset-banner");
  await banner.waitFor();
  assert.match(
    await banner.innerText(),
    /Origin's history was rewritten \(a force-push\).*dropping 1 commit .*kept in the service's working copy under refs\/fluxgate\/dropped\//s,
  );
  assert.deepEqual(errors, []);
  await page.close();
});

test("while origin cannot be reached, the dashboard's banner says so and why; once it can, the banner is gone", async () => {
  await rename(remote, `${remote}.away`);
  try {
    await service.repository.sync().catch(() => undefined);
    assert.equal((await fetch(`${service.url}/readyz`)).status, 503);
    const { page, errors } = await open("/", tokens.viewer);
    const banner = page.getByTestId("sync-banner");
    await banner.waitFor();
    assert.match(await banner.innerText(), /^Could not sync with origin \(the service is not ready: reads may be stale and writes fail\): .*fleet\.git/s);
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    await rename(`${remote}.away`, remote);
  }
  await service.repository.sync();
  const { page } = await open("/", tokens.viewer);
  await loaded(page);
  assert.equal(await page.getByTestId("sync-banner").count(), 0);
  await page.close();
});
