// The example fleet follows the repository contract: `fluxgate check` renders it with the real kustomize and finds nothing.

import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { check } from "../../../src/cli/check.ts";
import { ensureExampleFleet } from "../../../src/server/model/example-fleet.ts";
import { ensureTool } from "../../harness/index.ts";
import { NOW, tempDir } from "../../support/server.ts";

test("fluxgate check finds no error and no warning in the example fleet", async (t) => {
  const { dir, cleanup } = await tempDir("example-check");
  t.after(cleanup);
  const repo = join(dir, "example-fleet");
  await ensureExampleFleet(repo, NOW);
  const kustomize = await ensureTool("kustomize");
  const result = await check({
    repo,
    clusters: [],
    kustomizations: [],
    output: "json",
    strict: true,
    kustomize: kustomize.path,
    env: {},
    now: NOW,
    concurrency: 1,
  });
  assert.deepEqual(result.findings, [], result.output);
  assert.equal(result.exitCode, 0);
  assert.equal(result.stats.clusters, 3);
});
