// The Config Service on a repository with the fleet folder (test/fixtures/gitops/fleet-folder), rendered by the real kustomize: each cluster's windows
// are those Flux applies there (a fleet window whose clusterSelector its identity matches), and a fleet window added through the API reaches the
// clusters it selects at the next read.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { openFleetFolder, type Served } from "../../support/fleet-folder.ts";

let served: Served;

before(async () => {
  served = await openFleetFolder();
});

after(async () => {
  await served?.close();
});

async function windowsOf(cluster: string): Promise<Array<[string, string | null]>> {
  const r = await served.call("GET", `/api/v1/clusters/${cluster}/windows`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.fleetError, null);
  for (const w of r.body.windows) assert.equal(w.valid, true, `${cluster}: ${JSON.stringify(w)}`);
  return (r.body.windows as Array<{ name: string; fleet: { selector: string | null } | null }>).map((w) => [w.name, w.fleet?.selector ?? null]);
}

test("each cluster lists the fleet windows its identity selects, with their selector, and no identity file as a window", async () => {
  assert.deepEqual(await windowsOf("edge-berlin"), [["prod-changes", "ring=prod"]]);
  assert.deepEqual(await windowsOf("edge-paris"), [["apps-rw", null]]);
  assert.deepEqual(await windowsOf("edge-tokyo"), [["prod-changes", "ring=prod"]]);
  const fleet = await served.call("GET", "/api/v1/fleet/windows");
  assert.equal(fleet.status, 200);
  assert.deepEqual(
    (fleet.body.windows as Array<{ name: string; selector: string; clusters: Array<{ name: string; labelsMatch: boolean }> }>).map((w) => [
      w.name,
      w.selector,
      w.clusters.map((c) => [c.name, c.labelsMatch]),
    ]),
    [
      [
        "prod-changes",
        "ring=prod",
        [
          ["edge-berlin", true],
          ["edge-tokyo", true],
        ],
      ],
    ],
  );
});

test("a fleet window added through the API is one commit, and the clusters it selects list it at the next read", async () => {
  const added = await served.call("POST", "/api/v1/fleet/windows", {
    body: {
      name: "eu-nightly",
      selector: "region=eu",
      reason: "nightly slot in Europe",
      spec: { timeZone: "Europe/Berlin", schedules: [{ start: "0 22 * * *", duration: "2h" }], targets: [{ kind: "Kustomization", name: "apps-rt" }] },
    },
  });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  assert.deepEqual(await windowsOf("edge-berlin"), [
    ["eu-nightly", "region=eu"],
    ["prod-changes", "ring=prod"],
  ]);
  assert.deepEqual(await windowsOf("edge-paris"), [
    ["apps-rw", null],
    ["eu-nightly", "region=eu"],
  ]);
  assert.deepEqual(await windowsOf("edge-tokyo"), [["prod-changes", "ring=prod"]]);
});
