// The window editor edits RFC 5545 recurrence entries in a real browser: the rule in words, a live preview, the API's own messages, and a commit.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
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
let cleanup: () => Promise<void>;

before(async () => {
  const temp = await tempDir("browser-recurrence");
  cleanup = temp.cleanup;
  const seed = join(temp.dir, "seed");
  await mkdir(seed);
  await writeFleet(seed);
  ({ remote } = await bareRemoteWithClone(temp.dir, seed));
  tokens = await writeTokens(temp.dir);
  service = await startService(testServiceOptions(join(temp.dir, "work"), tokens.file, { rateLimit: { burst: 10_000, perSecond: 10_000 } }));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await service?.close();
  await cleanup?.();
});

async function open(hash: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.clock.setFixedTime(new Date(NOW));
  const errors: string[] = [];
  page.on("console", (m) => {
    // The preview's refusals (400) are logged by the browser on purpose.
    if (m.type() === "error" && !/status of 400/.test(m.text())) errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`${service.url}/#token=${tokens.editor}`);
  await page.goto(`${service.url}/${hash}`);
  return { page, errors };
}

const IMPOSSIBLE = "FREQ=MONTHLY;BYMONTHDAY=31;BYMONTH=2";
const NEVER = "never occurs: no day of any year matches all of its parts (e.g. BYMONTH=2 with BYMONTHDAY=30)";

test("a FREQ=MONTHLY;BYDAY=2SU schedule is added through the form, said in words, previewed, and saved as a commit", async () => {
  const { page, errors } = await open("#/c/edge-berlin/new");
  await page.locator('[data-path="metadata.name"]').fill("os-patching");
  // Opened from a link, a new window starts in its cluster's zone.
  assert.equal(await page.locator('[data-path="spec.timeZone"]').inputValue(), "Europe/Berlin");
  const row = page.locator('[data-row="schedule-0"]');
  await row.getByRole("combobox", { name: "Kind" }).selectOption("recurrence");
  const rule = page.locator('[data-path="spec.schedules[0].recurrence"]');
  await rule.fill("FREQ=MONTHLY;BYDAY=2SU");
  await page.locator('[data-path="spec.schedules[0].at"]').fill("02:00");
  await row.getByRole("combobox", { name: "Ends by" }).selectOption("endAt");
  await page.locator('[data-path="spec.schedules[0].endAt"]').fill("06:00");
  await row.getByText("= the second Sunday of each month").waitFor();

  const openings = page.getByTestId("next-openings");
  await page.getByTestId("validation").filter({ hasText: "Valid" }).waitFor();
  await openings.filter({ hasText: "13 Dec" }).waitFor();
  // The second Sundays after Monday 23 November 2026: 13 December, 10 January, 14 February (CET, UTC+1).
  const items = await openings.locator("li").allInnerTexts();
  assert.match(items[0] ?? "", /^Sun 13 Dec, 02:00 CET → Sun 13 Dec, 06:00 CET\n2026-12-13 01:00 UTC → 2026-12-13 05:00 UTC · 4h$/);
  assert.match(items[1] ?? "", /^Sun 10 Jan, 02:00 CET → Sun 10 Jan, 06:00 CET/);
  assert.match(items[2] ?? "", /^Sun 14 Feb, 02:00 CET → Sun 14 Feb, 06:00 CET/);

  // Left-out dates edit live too: without 13 December, 10 January comes first.
  await page.locator('[data-path="spec.schedules[0].exdates"]').fill("2026-12-13");
  await openings.locator("li").first().filter({ hasText: "Sun 10 Jan, 02:00 CET" }).waitFor();

  await page.getByTestId("reason").fill("OS patching on the second Sunday");
  await page.getByRole("button", { name: "Save as a commit" }).click();
  const commit = await page.getByTestId("commit").innerText();
  assert.equal(await git(remote, "rev-parse", "main"), commit, "the commit shown is the one on the remote");
  const file = await git(remote, "show", "main:clusters/edge-berlin/windows/os-patching.yaml");
  assert.match(file, /- recurrence: FREQ=MONTHLY;BYDAY=2SU\n\s+at: "02:00"\n\s+endAt: "06:00"\n\s+exdates:\n\s+- "2026-12-13"\n/);
  assert.match(await git(remote, "show", "main:clusters/edge-berlin/windows/kustomization.yaml"), /os-patching\.yaml/);

  // Opened again, the entry is in the form's fields, not shown as raw text.
  await page.goto(`${service.url}/#/c/edge-berlin/w/os-patching`);
  await page.locator('[data-path="spec.schedules[0].recurrence"]').waitFor();
  assert.equal(await page.locator('[data-path="spec.schedules[0].recurrence"]').inputValue(), "FREQ=MONTHLY;BYDAY=2SU");
  assert.equal(await page.locator('[data-path="spec.schedules[0].exdates"]').inputValue(), "2026-12-13");
  assert.equal(await page.locator("code.raw").count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test("an impossible rule shows the precise message at its field, and nothing is saved", async () => {
  const before = await git(remote, "rev-parse", "main");
  const { page, errors } = await open("#/c/edge-berlin/w/apps-rw");
  await page.getByRole("button", { name: "Add freeze" }).click();
  const row = page.locator('[data-row="freeze-1"]');
  await row.getByRole("combobox", { name: "Kind" }).selectOption("recurrence");
  const rule = page.locator('[data-path="spec.freezes[1].recurrence"]');
  await rule.fill(IMPOSSIBLE);
  await page.locator('[data-path="spec.freezes[1].at"]').fill("02:00");
  await page.locator('[data-path="spec.freezes[1].duration"]').fill("4h");
  await page.getByTestId("validation").filter({ hasText: "problem" }).waitFor();
  assert.equal(await rule.getAttribute("aria-invalid"), "true");
  assert.equal(await page.locator(`#${await rule.getAttribute("aria-describedby")}`).innerText(), `⚠ ${NEVER}`);
  assert.match(await page.getByTestId("validation").innerText(), new RegExp(`spec\\.freezes\\[1\\]\\.recurrence: ${NEVER.replace(/[()]/g, "\\$&")}`));
  // No words for a rule the engine refuses: the hint is the example again.
  assert.equal(await row.getByText(/^= /).count(), 0);
  await page.getByTestId("reason").fill("Try an impossible freeze");
  assert.equal(await page.getByRole("button", { name: "Save as a commit" }).isDisabled(), true);

  // The API refuses the same spec with the same message and path, and writes nothing.
  const spec = {
    timeZone: "Europe/Berlin",
    schedules: [{ recurrence: IMPOSSIBLE, at: "02:00", duration: "4h" }],
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
  };
  const response = await fetch(`${service.url}/api/v1/clusters/edge-berlin/windows/impossible`, {
    method: "PUT",
    headers: { authorization: `Bearer ${tokens.editor}`, "content-type": "application/json", "if-none-match": "*" },
    body: JSON.stringify({ spec, reason: "Try an impossible window" }),
  });
  assert.equal(response.status, 400);
  const body = (await response.json()) as { error: { problems: { path: string; message: string }[] } };
  assert.deepEqual(body.error.problems, [{ path: "spec.schedules[0].recurrence", message: NEVER }]);
  assert.equal(await git(remote, "rev-parse", "main"), before, "nothing was committed");
  assert.deepEqual(errors, []);
  await page.close();
});
