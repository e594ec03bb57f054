// The Config Service on a repository with the fleet folder (test/fixtures/gitops/fleet-folder), rendered by the real kustomize: a freeze of the fleet folder
// shows on every cluster its clusterSelector matches (its overrides, its windows' state, its timeline) and on no other, GET /fleet/overrides lists it once
// with the clusters it reaches, and it ends in one commit (checked in Git: files and lines); a refused request commits nothing.

import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { lines, serveFleetFolder as serve, statesOf, type Served } from "../../support/fleet-folder.ts";
import { git } from "../../support/server.ts";

interface OverrideItem {
  name: string;
  path: string;
  window: string | null;
  windows: string[] | null;
  action: string | null;
  reason: string | null;
  active: boolean;
  fleetOverride: string | null;
  fleetFolder: boolean;
}

async function overridesOf(s: Served, cluster: string): Promise<OverrideItem[]> {
  const r = await s.call("GET", `/api/v1/clusters/${cluster}/overrides`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.overrides as OverrideItem[];
}

/** The override bands of each window of a cluster's timeline (name, action, reason). */
async function timelineOverridesOf(s: Served, cluster: string): Promise<Record<string, Array<[string, string, string]>>> {
  const r = await s.call("GET", `/api/v1/clusters/${cluster}/timeline?from=2026-11-23T00:00:00Z&to=2026-11-24T00:00:00Z`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const out: Record<string, Array<[string, string, string]>> = {};
  for (const w of r.body.windows as Array<{ name: string; overrides: Array<{ name: string; action: string; reason: string }> }>)
    out[w.name] = w.overrides.map((o) => [o.name, o.action, o.reason]);
  return out;
}

test("a freeze of the fleet folder shows on the clusters its clusterSelector matches, and on no other; it is listed once and ends in one commit", async (t) => {
  const s = await serve(t);
  const before = await s.head();
  // Before: every window open at Monday 10:00 UTC, no overrides.
  assert.deepEqual(await statesOf(s, "edge-berlin"), [["prod-changes", "open", null, null]]);
  assert.deepEqual(await overridesOf(s, "edge-berlin"), []);

  const freeze = await s.call("POST", "/api/v1/fleet/overrides", {
    body: { selector: "region=eu", duration: "2h", reason: "incident INC-7 in eu", name: "eu-stop" },
  });
  assert.equal(freeze.status, 201, JSON.stringify(freeze.body));
  // One file with the one WindowOverride (its header and 18 lines of YAML), and one entry added to the fleet folder's list.
  const freezeLines = await lines(s, freeze.body.commit, "fleet/freezes/eu-stop.yaml");
  assert.equal(freezeLines, 19, await git(s.work, "show", `${freeze.body.commit}:fleet/freezes/eu-stop.yaml`));
  assert.deepEqual(await s.diff(freeze.body.commit, before), [
    ["fleet/freezes/eu-stop.yaml", freezeLines, 0],
    ["fleet/kustomization.yaml", 1, 0],
  ]);

  // edge-berlin (region eu, its fleet window prod-changes) and edge-paris (region eu, its own apps-rw) are frozen by it, named with its reason.
  assert.deepEqual(await statesOf(s, "edge-berlin"), [["prod-changes", "frozen", "eu-stop", "incident INC-7 in eu"]]);
  assert.deepEqual(await statesOf(s, "edge-paris"), [["apps-rw", "frozen", "eu-stop", "incident INC-7 in eu"]]);
  // edge-tokyo (region apac) is not: its prod-changes (in Tokyo's hours, its patch) stays closed by its schedule alone.
  assert.deepEqual(await statesOf(s, "edge-tokyo"), [["prod-changes", "closed", null, null]]);

  const berlin = await overridesOf(s, "edge-berlin");
  assert.deepEqual(
    berlin.map((o) => [o.name, o.path, o.window, o.windows, o.action, o.reason, o.active, o.fleetOverride, o.fleetFolder]),
    [["eu-stop", "fleet/freezes/eu-stop.yaml", "*", ["prod-changes"], "Freeze", "incident INC-7 in eu", true, "eu-stop", true]],
  );
  assert.deepEqual(
    (await overridesOf(s, "edge-paris")).map((o) => [o.name, o.windows]),
    [["eu-stop", ["apps-rw"]]],
  );
  assert.deepEqual(await overridesOf(s, "edge-tokyo"), []);

  assert.deepEqual(await timelineOverridesOf(s, "edge-berlin"), { "prod-changes": [["eu-stop", "Freeze", "incident INC-7 in eu"]] });
  assert.deepEqual(await timelineOverridesOf(s, "edge-tokyo"), { "prod-changes": [] });
  // The fleet timeline's page says the same.
  const fleetTimeline = await s.call("GET", "/api/v1/timeline?from=2026-11-23T00:00:00Z&to=2026-11-24T00:00:00Z");
  assert.equal(fleetTimeline.status, 200, JSON.stringify(fleetTimeline.body));
  const bands = JSON.stringify(fleetTimeline.body);
  assert.equal(bands.split("incident INC-7 in eu").length - 1 >= 2, true, "berlin's and paris's bands name the freeze's reason");

  // Listed once, with the two clusters it reaches and its file; a selector of clusters it does not reach leaves it out.
  const listed = await s.call("GET", "/api/v1/fleet/overrides");
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  assert.deepEqual(
    (listed.body.overrides as Array<{ name: string; action: string; reason: string; stage: string; overrides: unknown[] }>).map((o) => [
      o.name,
      o.action,
      o.reason,
      o.stage,
      o.overrides,
    ]),
    [
      [
        "eu-stop",
        "Freeze",
        "incident INC-7 in eu",
        "active",
        [
          { cluster: "edge-berlin", name: "eu-stop", window: "*", file: "fleet/freezes/eu-stop.yaml" },
          { cluster: "edge-paris", name: "eu-stop", window: "*", file: "fleet/freezes/eu-stop.yaml" },
        ],
      ],
    ],
  );
  assert.deepEqual((await s.call("GET", "/api/v1/fleet/overrides?selector=site%3Dtokyo")).body.overrides, []);

  // A cluster's part cannot be ended alone: the freeze is one object for every cluster. Nothing is committed.
  const frozen = await s.head();
  const alone = await s.call("DELETE", "/api/v1/clusters/edge-berlin/overrides/eu-stop?reason=resolved");
  assert.equal(alone.status, 409, JSON.stringify(alone.body));
  assert.match(
    alone.body.error?.message,
    /fleet freeze eu-stop of the fleet folder \(fleet\/freezes\/eu-stop\.yaml\).*DELETE \/api\/v1\/fleet\/overrides\/eu-stop/,
  );
  const expired = await s.call("DELETE", "/api/v1/clusters/edge-berlin/overrides?expired=true&reason=tidy");
  assert.equal(expired.status, 200, JSON.stringify(expired.body));
  assert.deepEqual(expired.body.deleted, []);
  const unknown = await s.call("DELETE", "/api/v1/fleet/overrides/no-such-freeze?reason=resolved");
  assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
  const noReason = await s.call("DELETE", "/api/v1/fleet/overrides/eu-stop");
  assert.equal(noReason.status, 400, JSON.stringify(noReason.body));
  await s.untouched(frozen);

  // Ended for every cluster in one commit: its file removed, its entry dropped.
  const end = await s.call("DELETE", "/api/v1/fleet/overrides/eu-stop?reason=resolved");
  assert.equal(end.status, 200, JSON.stringify(end.body));
  assert.deepEqual(await s.diff(end.body.commit, frozen), [
    ["fleet/freezes/eu-stop.yaml", 0, freezeLines],
    ["fleet/kustomization.yaml", 0, 1],
  ]);
  assert.deepEqual(await statesOf(s, "edge-berlin"), [["prod-changes", "open", null, null]]);
  assert.deepEqual(await overridesOf(s, "edge-paris"), []);
  assert.deepEqual((await s.call("GET", "/api/v1/fleet/overrides")).body.overrides, []);
});

test("a fleet folder freeze of one window acts on that window of the clusters it matches; a freeze no listed cluster matches shows nowhere", async (t) => {
  const s = await serve(t);
  const one = await s.call("POST", "/api/v1/fleet/overrides", {
    body: { selector: "ring=prod", duration: "1h", reason: "db migration", name: "prod-hold", windows: ["prod-changes"] },
  });
  assert.equal(one.status, 201, JSON.stringify(one.body));
  assert.deepEqual(await statesOf(s, "edge-tokyo"), [["prod-changes", "frozen", "prod-hold-prod-changes", "db migration"]]);
  assert.deepEqual(
    (await overridesOf(s, "edge-tokyo")).map((o) => [o.name, o.window, o.windows]),
    [["prod-hold-prod-changes", "prod-changes", null]],
  );
  assert.deepEqual(await overridesOf(s, "edge-paris"), [], "edge-paris is ring canary");
  assert.deepEqual(await statesOf(s, "edge-paris"), [["apps-rw", "open", null, null]]);

  // A freeze whose selector is edited by hand to match no cluster (site=nowhere) is in the folder and reaches no cluster.
  const head = await s.head();
  const text = await git(s.work, "show", `${head}:fleet/freezes/prod-hold.yaml`);
  await writeFile(join(s.work, "fleet/freezes/prod-hold.yaml"), `${text.replace("ring: prod", "site: nowhere")}\n`);
  await git(s.work, "commit", "--quiet", "-am", "prod-hold: no cluster");
  // The service looks at HEAD again a second after its last look.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  assert.equal((await s.call("GET", "/api/v1/fleet/windows")).body.commit, await s.head());
  for (const cluster of ["edge-berlin", "edge-paris", "edge-tokyo"]) {
    assert.deepEqual(await overridesOf(s, cluster), [], cluster);
    assert.equal((await statesOf(s, cluster))[0]?.[2], null, cluster);
  }
  assert.deepEqual((await s.call("GET", "/api/v1/fleet/overrides")).body.overrides, []);
});
