// `fluxgate demo --fleet` end to end: three real clusters, one Git server, one Config Service; the fleet's story holds, and the dashboard shows it in Chromium.

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { launch } from "../../src/devenv/chromium.ts";
import { runFleetDemo, type RunningFleet } from "../../src/demo/fleet/run.ts";

const EXPECTED = [
  /^ok {3}\[fleet\] every cluster applied the fleet's first commit and reports to the Config Service: applied \d+\.\ds after the commit/,
  /^ok {3}\[fleet\] each cluster's controller confirmed its identity \(ConfigMap flux-system\/fluxgate-cluster from init\): its name and its labels in fluxgate.yaml: edge-berlin region=eu,ring=prod,site=berlin; edge-newyork region=us,ring=canary,site=newyork; edge-tokyo region=apac,ring=prod,site=tokyo$/,
  /^ok {3}\[fleet\] a fleet window added through the API in one commit to fleet\/ alone: every cluster enforces it \(apps-rw suspended\) and the fleet status says so: API write → every cluster enforcing \d+\.\ds; → fleet status \d+\.\ds; the commit: \d+ files, \d+ lines$/,
  /^ok {3}\[fleet\] each cluster runs the window at its own local time: .*: Berlin \d\d:\d\d, New York \d\d:\d\d, Tokyo \d\d:\d\d$/,
  /^ok {3}\[fleet\] a commit of the application: the real-time part reached every cluster at once; apps-rw waits on every cluster, and the fleet knows it/,
  /^ok {3}\[fleet\] a fleet freeze of ring=canary \(one commit to fleet\/ alone\) holds edge-newyork; Flux applies it on every cluster, the others' controllers leave it be: edge-newyork frozen .*; edge-berlin, edge-tokyo not held; the commit: \d+ files, \d+ lines$/,
  /^ok {3}\[fleet\] edge-berlin opened at its local time and took the change: Open \d+\.\ds after \d\d:\d\d local/,
  /^ok {3}\[fleet\] edge-newyork's opening is held by the freeze: it keeps the old release/,
  /^ok {3}\[fleet\] edge-tokyo opened at its local time and took the change: Open \d+\.\ds after \d\d:\d\d local/,
  /^ok {3}\[fleet\] the freeze ends \(one commit to fleet\/ alone\): edge-newyork, inside its window, takes the change: .*; the commit: \d+ files, \d+ lines$/,
  /^ok {3}\[fleet\] the fleet status shows every cluster's observed state from its pushes: reporting, nothing waiting, nothing diverged: 3 of 3 clusters reporting, 0 targets waiting, 0 diverged/,
  /^ok {3}\[fleet\] no controller said "Cannot confirm the cluster's identity" from its start to the end of the story: none of the 3 controllers said it$/,
];

/** The fleet page, signed in as a viewer, with its pushed summary and waiting panel loaded. */
async function fleetPage(browser: Browser, fleet: RunningFleet, errors: string[]): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => void (m.type() === "error" && errors.push(m.text())));
  await page.goto(`${fleet.serviceUrl}/#token=${fleet.viewerToken}`);
  await page.getByTestId("fleet-pushed").waitFor();
  await page.getByTestId("fleet-waiting").waitFor();
  return page;
}

test(
  "fluxgate demo --fleet: the fleet's story holds on three clusters, and the dashboard shows what waits and, at the end, each cluster as it pushed it",
  { timeout: 8 * 60_000 },
  async (t) => {
    const browser = await launch();
    const lines: string[] = [];
    const timeline: string[] = [];
    const errors: string[] = [];
    const seen: string[] = [];
    let dir = "";
    try {
      const outcome = await runFleetDemo({
        keep: false,
        out: (l) => timeline.push(l),
        results: (l) => lines.push(l),
        progress: () => undefined,
        stopRequested: new Promise(() => undefined),
        inspect: async (fleet, stage) => {
          dir = fleet.plane.dir;
          seen.push(stage);
          const page = await fleetPage(browser, fleet, errors);
          const panel = page.getByTestId("fleet-waiting");
          if (stage === "waiting") {
            // One revision waits on every cluster; Berlin and New York take it at the same instant (09:xx and 03:xx local), Tokyo a minute later.
            assert.equal(await panel.locator("h3").innerText(), "Waiting for a window: 3 clusters");
            assert.match(await panel.locator("[data-revision] p").innerText(), /^main@[0-9a-f]{7} waits on 3 clusters, the oldest since /);
            const releases = await panel.getByTestId("waiting-release").allInnerTexts();
            assert.equal(releases.length, 2, releases.join("\n"));
            assert.match(
              releases[0] ?? "",
              /^2 at \S+ \d\d:\d\d UTC \(\d\d:\d\d \S+ America\/New_York, \d\d:\d\d \S+ Europe\/Berlin\) by fleet-changes: edge-berlin, edge-newyork$/,
            );
            assert.match(releases[1] ?? "", /^1 at \S+ \d\d:\d\d UTC \(\d\d:\d\d \S+ Asia\/Tokyo\) by fleet-changes: edge-tokyo$/);
            assert.match(
              await page.getByTestId("fleet-pushed").innerText(),
              /^Reported by the clusters: 3 reporting, 0 stale, 0 not yet; 3 of 3 targets waiting, the oldest since /,
            );
          } else {
            assert.equal(
              await page.getByTestId("fleet-pushed").innerText(),
              "Reported by the clusters: 3 reporting, 0 stale, 0 not yet; 0 of 3 targets waiting.",
            );
            assert.equal(await panel.innerText(), "No change waits for a window on any cluster.");
            // Each cluster's page: apps-rw as the cluster pushed it, open, nothing waiting, held as decided.
            for (const cluster of ["edge-berlin", "edge-newyork", "edge-tokyo"]) {
              await page.goto(`${fleet.serviceUrl}/#/c/${cluster}`);
              const row = page.getByTestId("pushed").locator('[data-target="Kustomization/flux-system/apps-rw"]');
              await row.waitFor();
              assert.match(await page.getByTestId("reporting").innerText(), /^reporting; last heard /, cluster);
              const cells = (await row.locator("th, td").allInnerTexts()).map((x) => x.replace(/\s+/g, " ").trim());
              assert.equal(cells[1], "● open", `${cluster}: ${cells.join(" | ")}`);
              assert.equal(cells[2], "fleet-changes", cluster);
              assert.equal(cells[4], "nothing", cluster);
              assert.equal(await row.getByTestId("diverged").count(), 0, `${cluster} does what was decided`);
            }
          }
          await page.close();
        },
      });
      const text = `${lines.join("\n")}\n${timeline.join("\n")}`;
      for (const l of timeline.filter((x) => /^(Everything started|figures:|demo --fleet:)/.test(x))) t.diagnostic(l);
      assert.equal(
        outcome.results.every((r) => r.ok),
        true,
        text,
      );
      assert.deepEqual(seen, ["waiting", "end"], "the dashboard was looked at twice");
      assert.equal(lines.length, EXPECTED.length, text);
      EXPECTED.forEach((re, i) => assert.match(lines[i] as string, re));
      // Up front: what it starts and its memory; at the end, the figures.
      assert.match(timeline[1] ?? "", /^It starts one etcd .* about \d+\.\d GiB of memory\.$/);
      assert.match(timeline.join("\n"), /^Everything started in \d+\.\ds; resident memory \d+ MiB: /m);
      assert.match(
        timeline.join("\n"),
        /^figures: API write → every cluster enforcing \d+\.\ds, → fleet status \d+\.\ds; transition → fleet status edge-berlin \d+\.\ds, edge-tokyo \d+\.\ds, edge-newyork \d+\.\ds; peak resident memory \d+ MiB; commits \(git diff --numstat\): fleet window add \d+ files \d+ lines, fleet freeze \d+ files \d+ lines, freeze end \d+ files \d+ lines$/m,
      );
      // The fleet folder: each fleet operation is a commit of a few files and lines, whatever the fleet's size.
      const commits = outcome.figures?.commits ?? {};
      assert.deepEqual(Object.keys(commits), ["fleet window add", "fleet freeze", "freeze end"]);
      for (const [operation, size] of Object.entries(commits)) {
        assert.ok(size.files >= 1 && size.files <= 3, `${operation}: ${size.files} files`);
        assert.ok(size.lines >= 1 && size.lines <= 60, `${operation}: ${size.lines} lines`);
      }
      const told = timeline.filter((l) => / {10}commit [0-9a-f]{7} \(git diff --numstat\): \d+ files, \d+ lines: fleet\//.test(l));
      assert.equal(told.length, 3, told.join("\n"));
      assert.match(
        timeline.join("\n"),
        /fleet view: main@[0-9a-f]{7} waits on 3 clusters; 1 takes it at \d\d:\d\d UTC .*: edge-berlin; 1 at .*: edge-tokyo; 1 when the freeze ends: edge-newyork/,
      );
      assert.deepEqual(errors, []);
      assert.ok(dir !== "" && !existsSync(dir), `${dir} was removed`);
    } finally {
      await browser.close();
    }
  },
);
