// The fleet demo's parts: each cluster's opening as a local time of its zone, the fleet view's sentences, and the repository it lays out.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { FLEET, addFleetWindow, layOut, localOpening, patchFleetWindow } from "../../../src/demo/fleet/layout.ts";
import { findKustomize } from "../../../src/gitops/kustomize.ts";
import { waitingLines } from "../../../src/demo/fleet/waiting.ts";
import { noteIdentity, type IdentityNotes } from "../../../src/demo/fleet/story.ts";
import { jsonLogger } from "../../../src/kube/log.ts";

const [BERLIN, NEW_YORK, TOKYO] = FLEET as [(typeof FLEET)[number], (typeof FLEET)[number], (typeof FLEET)[number]];

test("one instant is a different local time in each zone, written as a daily cron of that zone (winter and summer)", () => {
  const winter = Date.parse("2026-11-28T08:15:00Z");
  assert.deepEqual(
    [BERLIN, NEW_YORK, TOKYO].map((c) => [localOpening(c, winter, 60).local, localOpening(c, winter, 60).cron]),
    [
      ["09:15", "15 9 * * *"],
      ["03:15", "15 3 * * *"],
      ["17:15", "15 17 * * *"],
    ],
  );
  const summer = Date.parse("2027-07-01T23:59:00Z");
  assert.deepEqual(
    [BERLIN, NEW_YORK, TOKYO].map((c) => localOpening(c, summer, 60).cron),
    ["59 1 * * *", "59 19 * * *", "59 8 * * *"],
  );
});

test("the fleet window's base is the Berlin opening for every cluster; a cluster's patch sets its zone and local time", () => {
  const at = Date.parse("2026-11-28T08:15:00Z");
  const base = addFleetWindow(localOpening(BERLIN, at, 150));
  assert.equal(base.path, "/api/v1/fleet/windows");
  assert.deepEqual((base.body as { spec: unknown }).spec, {
    timeZone: "Europe/Berlin",
    schedules: [{ start: "15 9 * * *", duration: "150s" }],
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
  });
  const patch = patchFleetWindow(localOpening(TOKYO, at + 60_000, 90));
  assert.equal(patch.path, "/api/v1/clusters/edge-tokyo/windows/fleet-changes/patch");
  assert.deepEqual(patch.body, {
    timeZone: "Asia/Tokyo",
    schedules: [{ start: "16 17 * * *", duration: "90s" }],
    reason: "Tokyo takes changes at 17:16 local time",
  });
});

test("the fleet view says each revision on how many clusters, and when each group takes it", () => {
  const group = (at: string | null, state: string, names: string[], timeZones: string[]) => ({
    at,
    state,
    windows: "fleet-changes",
    clusters: names.length,
    names,
    timeZones,
    stale: 0,
  });
  assert.deepEqual(
    waitingLines({
      revisions: [
        {
          revision: "main@sha1:1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
          clusters: 3,
          targets: 3,
          oldestSince: null,
          releases: [
            group("2026-11-28T08:15:00Z", "closed", ["edge-berlin", "edge-newyork"], ["America/New_York", "Europe/Berlin"]),
            group("2026-11-28T08:16:00Z", "closed", ["edge-tokyo"], ["Asia/Tokyo"]),
            group("2026-11-28T08:25:00Z", "frozen", ["edge-paris"], ["Europe/Paris"]),
          ],
        },
      ],
      totals: { revisions: 1, clusters: 3, targets: 3 },
    }),
    [
      "main@1a2b3c4 waits on 3 clusters; 2 take it at 08:15 UTC (03:15 America/New_York, 09:15 Europe/Berlin): edge-berlin, edge-newyork; 1 at 08:16 UTC (17:16 Asia/Tokyo): edge-tokyo; 1 when the freeze ends: edge-paris",
    ],
  );
});

test("the fleet's layout is the fleet folder: each cluster includes ../../../fleet once and its identity, and its windows folder builds with the real kustomize to its identity alone", async () => {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-fleet-layout-"));
  try {
    await layOut(dir, "http://127.0.0.1:1/", "v1");
    assert.match(await readFile(join(dir, "fleet", "kustomization.yaml"), "utf8"), /^resources: \[\]$/m);
    const kustomize = await findKustomize(undefined, process.env);
    for (const cluster of FLEET) {
      const windows = await readFile(join(dir, "clusters", cluster.name, "windows", "kustomization.yaml"), "utf8");
      assert.match(windows, /^resources:\n {2}- \.\.\/\.\.\/\.\.\/fleet\n {2}- fluxgate-cluster\.yaml\n/m, `${cluster.name}: ${windows}`);
      const { stdout } = await promisify(execFile)(kustomize.file, [...kustomize.args, join(dir, "clusters", cluster.name, "windows")]);
      const kinds = [...stdout.matchAll(/^kind: (\S+)$/gm)].map((m) => m[1]);
      assert.deepEqual(kinds, ["ConfigMap"], `${cluster.name}: ${stdout}`);
      assert.match(stdout, new RegExp(`cluster: ${cluster.name}`));
      for (const [k, v] of Object.entries(cluster.labels)) assert.match(stdout, new RegExp(`${k}: ${v}`), `${cluster.name}: ${stdout}`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("what a controller's log says of its identity: the identity it read, and each time it could not confirm one", () => {
  const notes: IdentityNotes = { confirmed: undefined, unconfirmed: [] };
  const log = jsonLogger("info", (line) => noteIdentity(notes, line));
  log.info("Started leading", { lease: "flux-system/fluxgate" });
  log.info("Read the cluster's identity", { cluster: "edge-tokyo", labels: JSON.stringify({ region: "apac", ring: "prod" }) });
  assert.deepEqual(notes, { confirmed: { cluster: "edge-tokyo", labels: { region: "apac", ring: "prod" } }, unconfirmed: [] });
  log.error("Cannot confirm the cluster's identity: fleet windows open by none of their schedules, fleet freezes hold", { problem: "labels: not a map" });
  log.info("The cluster has no identity object: fleet windows open by none of their schedules, fleet freezes hold", { problem: "missing" });
  assert.equal(notes.unconfirmed.length, 2);
  assert.match(notes.unconfirmed[0] ?? "", /^Cannot confirm the cluster's identity: .* \(labels: not a map\)$/);
  assert.match(notes.unconfirmed[1] ?? "", /^The cluster has no identity object: .* \(missing\)$/);
});
