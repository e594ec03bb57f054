// The Config Service on a repository with the fleet folder (test/fixtures/gitops/fleet-folder), rendered by the real kustomize: each cluster's windows
// are those Flux applies there (a fleet window whose clusterSelector its identity matches), and a fleet window added through the API reaches the
// clusters it selects at the next read.

import assert from "node:assert/strict";
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startService, type RunningService } from "../../../src/server/server.ts";
import { kustomizeRunner } from "../../support/fleet.ts";
import { bareRemoteWithClone, git, tempDir, testServiceOptions, writeTokens, type Tokens } from "../../support/server.ts";

let service: RunningService;
let tokens: Tokens;
let cleanup: () => Promise<void>;

before(async () => {
  const temp = await tempDir("fleet-folder");
  cleanup = temp.cleanup;
  const seed = join(temp.dir, "seed");
  await cp(new URL("../../fixtures/gitops/fleet-folder", import.meta.url).pathname, seed, { recursive: true });
  await git(seed, "init", "--quiet", "--initial-branch=main");
  await git(seed, "add", "--all");
  await git(seed, "commit", "--quiet", "-m", "The fleet folder");
  const { work } = await bareRemoteWithClone(temp.dir, seed);
  tokens = await writeTokens(temp.dir);
  service = await startService(testServiceOptions(work, tokens.file, { kustomize: (await kustomizeRunner()).runner }));
});

after(async () => {
  await service?.close();
  await cleanup?.();
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${body === undefined ? tokens.viewer : tokens.editor}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
}

async function windowsOf(cluster: string): Promise<Array<[string, string | null]>> {
  const r = await call("GET", `/api/v1/clusters/${cluster}/windows`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.fleetError, null);
  for (const w of r.body.windows) assert.equal(w.valid, true, `${cluster}: ${JSON.stringify(w)}`);
  return (r.body.windows as Array<{ name: string; fleet: { selector: string | null } | null }>).map((w) => [w.name, w.fleet?.selector ?? null]);
}

test("each cluster lists the fleet windows its identity selects, with their selector, and no identity file as a window", async () => {
  assert.deepEqual(await windowsOf("edge-berlin"), [["prod-changes", "ring=prod"]]);
  assert.deepEqual(await windowsOf("edge-paris"), [["apps-rw", null]]);
  assert.deepEqual(await windowsOf("edge-tokyo"), [["prod-changes", "ring=prod"]]);
  const fleet = await call("GET", "/api/v1/fleet/windows");
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
  const added = await call("POST", "/api/v1/fleet/windows", {
    name: "eu-nightly",
    selector: "region=eu",
    reason: "nightly slot in Europe",
    spec: { timeZone: "Europe/Berlin", schedules: [{ start: "0 22 * * *", duration: "2h" }], targets: [{ kind: "Kustomization", name: "apps-rt" }] },
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
