// The dashboard in a real browser: the fleet timeline, exact times of a band, the editor's validation and preview, a save that shows its commit, in the header
// too.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { KubernetesObject } from "@kubernetes/client-node";
import type { Browser, Page } from "playwright-core";
import type { LiveSource } from "../../src/server/status/live.ts";
import { startService, type RunningService } from "../../src/server/server.ts";
import { bareRemoteWithClone, git, NOW, tempDir, writeFleet, testServiceOptions, writeTokens, type Tokens } from "../support/server.ts";
import { launch } from "./chromium.ts";

/** Live status for edge-berlin, standing in for a cluster (the real one is tested in test/integration/server/live-status.test.ts). */
const pendingInBerlin: LiveSource = {
  contextOf: (cluster) => (cluster === "edge-berlin" ? "berlin" : null),
  read: () =>
    Promise.resolve({
      windows: [
        {
          apiVersion: "fluxgate.io/v1alpha1",
          kind: "ReconciliationWindow",
          metadata: { name: "apps-rw", namespace: "flux-system" },
          spec: {},
          status: {
            state: "Closed",
            pending: [
              {
                kind: "Kustomization",
                namespace: "flux-system",
                name: "apps-rw",
                appliedRevision: "main@sha1:1111111",
                pendingRevision: "main@sha1:2222222",
                waitingSince: "2026-11-23T09:00:00Z",
              },
            ],
          },
        } as KubernetesObject,
      ],
      overrides: [],
    }),
  create: (_cluster, override) => Promise.resolve(override),
  cancel: () => Promise.resolve("absent"),
};

let browser: Browser;
let service: RunningService;
let tokens: Tokens;
let remote: string;
let cleanup: () => Promise<void>;

before(async () => {
  const temp = await tempDir("browser");
  cleanup = temp.cleanup;
  const seed = join(temp.dir, "seed");
  await mkdir(seed);
  await writeFleet(seed);
  ({ remote } = await bareRemoteWithClone(temp.dir, seed));
  tokens = await writeTokens(temp.dir);
  service = await startService(testServiceOptions(join(temp.dir, "work"), tokens.file, { live: pendingInBerlin }));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await service?.close();
  await cleanup?.();
});

/**
 * A page signed in with `token` at `path` (a dashboard route such as "#/c/edge-tokyo"), whose clock is the service's (Monday 23 Nov 2026, 10:00 UTC), recording
 * console errors (CSP violations among them).
 */
async function open(path: string, token: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.clock.setFixedTime(new Date(NOW));
  const errors: string[] = [];
  page.on("console", (m) => {
    // The editor's validation answers 400 for an invalid window on purpose; the browser logs each.
    if (m.type() === "error" && !m.text().includes("status of 400")) errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`${service.url}/#token=${token}`);
  if (path !== "/") await page.goto(`${service.url}/${path}`);
  return { page, errors };
}

test("the fleet timeline shows each cluster with its zone, allow and freeze bands, and now", async () => {
  // Target lanes and window lanes together (the default shows targets, windows by a button per cluster).
  const { page, errors } = await open("#/?lanes=all", tokens.viewer);
  await page.locator('[data-cluster="edge-berlin"] [data-window="apps-rw"]').waitFor();
  await page.locator('.fleet-grid[data-loading="0"]').waitFor();
  const heads = await page.locator(".cluster-head .label").allInnerTexts();
  assert.equal(heads.length, 3);
  assert.match(heads[0] as string, /edge-berlin\s+(1 pending\s+)?Europe\/Berlin\s+· 11:00 CET/);
  assert.match(heads[1] as string, /edge-newyork\s+America\/New_York\s+· 05:00 (EST|GMT-5)/);
  assert.match(heads[2] as string, /edge-tokyo\s+Asia\/Tokyo\s+· 19:00 (JST|GMT\+9)/);
  assert.deepEqual(await page.locator(".axis .day").allInnerTexts(), [
    "Mon 23 Nov",
    "Tue 24 Nov",
    "Wed 25 Nov",
    "Thu 26 Nov",
    "Fri 27 Nov",
    "Sat 28 Nov",
    "Sun 29 Nov",
  ]);
  const berlin = page.locator('[data-cluster="edge-berlin"] [data-window="apps-rw"]');
  assert.equal(await berlin.locator(".band.open").count(), 1);
  assert.equal(await berlin.locator(".band.frozen").count(), 1);
  assert.equal(await berlin.locator(".band.frozen .band-label").innerText(), "frozen", "a word, not only a colour");
  assert.equal(await page.locator(".now-line").count(), 7, "one now line per lane: 4 windows, 3 targets");
  // The Kustomization that apps-rw and nightly both select has one lane with their combined decision:
  // nightly opens at 22:00 every night, but on Friday apps-rw's freeze wins, as the controller decides.
  const target = page.locator('[data-cluster="edge-berlin"] [data-target="Kustomization/flux-system/apps-rw"]');
  assert.match(await target.locator(".label").innerText(), /Kustomization apps-rw\s+· apps-rw \+ nightly\s+● open/);
  assert.deepEqual(await target.locator(".band.frozen").evaluateAll((bands) => bands.map((b) => [b.getAttribute("data-start"), b.getAttribute("data-end")])), [
    ["2026-11-26T23:00:00Z", "2026-11-27T23:00:00Z"],
  ]);
  assert.deepEqual(
    await target.locator(".band.open").evaluateAll((bands) => bands.map((b) => b.getAttribute("data-start"))),
    ["2026-11-23T07:00:00Z", "2026-11-26T21:00:00Z", "2026-11-28T21:00:00Z", "2026-11-29T21:00:00Z"],
    "no opening on Friday night",
  );
  assert.equal(await berlin.locator(".state").innerText(), "● open");
  // The Friday freeze: chosen with the keyboard, its exact local and UTC times are shown.
  await berlin.locator(".band.frozen").focus();
  await page.keyboard.press("Enter");
  assert.equal(await page.getByTestId("detail-local").innerText(), "Fri 27 Nov, 00:00 CET → Sat 28 Nov, 00:00 CET");
  assert.equal(await page.getByTestId("detail-utc").innerText(), "2026-11-26 23:00 UTC → 2026-11-27 23:00 UTC");
  assert.match(await page.locator(".details").innerText(), /No deploys on Fridays/);
  // A click on another band does the same.
  await page.locator('[data-cluster="edge-tokyo"] .band.open').first().click();
  assert.match(await page.getByTestId("detail-local").innerText(), /^Tue 24 Nov, 02:00 (JST|GMT\+9) → Tue 24 Nov, 06:00 (JST|GMT\+9)$/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("the editor validates as you type, previews the next openings, and saves as a commit", async () => {
  const { page, errors } = await open("/", tokens.editor);
  // The fleet shows target lanes; a cluster's window lanes are a button away.
  const toggle = page.locator('[data-cluster="edge-berlin"] .lanes-toggle');
  assert.equal(await toggle.innerText(), "Show 2 window lanes");
  assert.equal(await toggle.getAttribute("aria-expanded"), "false");
  await toggle.click();
  assert.equal(await toggle.getAttribute("aria-expanded"), "true");
  await page.locator('[data-cluster="edge-berlin"] [data-window="apps-rw"] a').click();
  const openings = page.getByTestId("next-openings");
  await openings.locator("li").first().waitFor();
  assert.match(
    await openings.locator("li").first().innerText(),
    /^Mon 23 Nov, 11:00 CET → Thu 26 Nov, 17:00 CET\n2026-11-23 10:00 UTC → 2026-11-26 16:00 UTC · 3d 6h$/,
  );
  const start = page.locator('[data-path="spec.schedules[0].start"]');

  await start.fill("0 25 * * TUE");
  await page.getByTestId("validation").filter({ hasText: "problem" }).waitFor();
  assert.equal(await start.getAttribute("aria-invalid"), "true");
  assert.match(await page.locator(`#${await start.getAttribute("aria-describedby")}`).innerText(), /hour/i);
  await page.getByTestId("reason").fill("Start on Tuesdays at 09:00");
  assert.equal(await page.getByRole("button", { name: "Save as a commit" }).isDisabled(), true);

  await start.fill("0 9 * * TUE");
  await page.getByTestId("validation").filter({ hasText: "Valid" }).waitFor();
  await openings.filter({ hasText: "Tue 24 Nov, 09:00 CET" }).waitFor();
  assert.match(
    await openings.locator("li").first().innerText(),
    /^Tue 24 Nov, 09:00 CET → Thu 26 Nov, 17:00 CET\n2026-11-24 08:00 UTC → 2026-11-26 16:00 UTC · 2d 8h$/,
  );

  await page.getByRole("button", { name: "Save as a commit" }).click();
  const commit = await page.getByTestId("commit").innerText();
  assert.match(commit, /^[0-9a-f]{40}$/);
  assert.equal(await git(remote, "rev-parse", "main"), commit, "the commit shown is the one on the remote");
  assert.equal(await git(remote, "log", "-1", "--format=%an|%s|%b", "main"), "eddie editor|edge-berlin: change window apps-rw: Start on Tuesdays at 09:00|");
  assert.match(await git(remote, "show", "main:clusters/edge-berlin/windows/apps-rw.yaml"), /start: "0 9 \* \* TUE"/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a viewer sees the editor read-only, and a wrong token is asked for again", async () => {
  const { page } = await open("#/c/edge-tokyo/w/apps-rw", tokens.viewer);
  await page.getByTestId("next-openings").waitFor();
  assert.match(await page.locator(".save").innerText(), /may not change windows/);
  await page.close();
  const denied = await open("/", "fgt_wrong");
  await denied.page.getByRole("form", { name: "Sign in" }).waitFor();
  assert.match(await denied.page.locator(".signin .error").innerText(), /the token is not valid/);
  await denied.page.close();
});

test("with live status, the fleet shows pending changes per cluster and the cluster page lists them", async () => {
  const { page, errors } = await open("/", tokens.viewer);
  await page.locator('[data-cluster="edge-berlin"] .badge').waitFor();
  assert.equal(await page.locator('[data-cluster="edge-berlin"] .badge').innerText(), "1 pending");
  assert.equal(await page.locator('[data-cluster="edge-tokyo"] .badge').count(), 0, "no live connection, no count");
  await page.locator('[data-cluster="edge-berlin"] .cluster-head a').click();
  const live = page.getByTestId("live");
  await live.waitFor();
  assert.match(
    await live.innerText(),
    /Pending changes \(1\)[\s\S]*apps-rw\s+Kustomization flux-system\/apps-rw\s+main@sha1:1111111\s+main@sha1:2222222\s+2026-11-23 09:00 UTC/,
  );
  assert.match(await live.innerText(), /nightly.*in Git, not in the cluster yet/);
  await page.goto(`${service.url}/#/c/edge-tokyo`);
  assert.match(await page.getByTestId("no-live").innerText(), /no live connection: start the service with --cluster-context edge-tokyo=CONTEXT/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a write made through the dashboard shows its commit in the header at once: an override, then a window saved", async () => {
  const { page, errors } = await open("#/c/edge-tokyo", tokens.editor);
  const header = page.locator("header .repo");
  await header.waitFor();
  assert.equal(await header.getAttribute("title"), await git(remote, "rev-parse", "main"), "the header starts at the remote's commit");
  /** The header's commit, once it is `commit`: at once, not at a poll 15 s later. */
  const headerShows = async (commit: string): Promise<void> => {
    await page.waitForFunction((c) => document.querySelector("header .repo")?.getAttribute("title") === c, commit, { timeout: 2_000 }).catch(() => undefined);
    assert.equal(await header.getAttribute("title"), commit);
    assert.equal(await header.locator("code").innerText(), commit.slice(0, 12));
  };

  const form = page.getByRole("form", { name: "New override" });
  await form.getByLabel("Reason").fill("Hotfix for the line");
  await form.getByRole("button", { name: "Create override" }).click();
  const committed = (/Committed as ([0-9a-f]{40})/.exec(await form.getByRole("status").innerText()) ?? [])[1] as string;
  assert.equal(await git(remote, "rev-parse", "main"), committed);
  await headerShows(committed);

  await page.goto(`${service.url}/#/c/edge-tokyo/w/apps-rw`);
  await page.getByTestId("next-openings").locator("li").first().waitFor();
  await page.locator('[data-path="spec.schedules[0].duration"]').fill("5h");
  await page.getByTestId("validation").filter({ hasText: "Valid" }).waitFor();
  await page.getByTestId("reason").fill("An hour more on site");
  await page.getByRole("button", { name: "Save as a commit" }).click();
  const saved = await page.getByTestId("commit").innerText();
  assert.notEqual(saved, committed);
  assert.equal(await git(remote, "rev-parse", "main"), saved);
  await headerShows(saved);
  assert.deepEqual(errors, []);
  await page.close();
});
