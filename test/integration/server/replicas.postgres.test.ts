// Two `fluxgate serve` replicas behind one address: pushed status shared through one PostgreSQL, windows through one Git origin.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { addClusterKey, signatureOf } from "../../../src/server/status/keys.ts";
import { startService, type RunningService } from "../../../src/server/server.ts";
import { startPostgres, type Postgres } from "../../harness/postgres.ts";
import { git, NOW, tempDir, writeFleet, testServiceOptions, writeTokens } from "../../support/server.ts";
import { spec } from "./remote.ts";

let postgres: Postgres;
before(async () => {
  postgres = await startPostgres();
});
after(async () => {
  await postgres.stop();
});

test("two replicas on one PostgreSQL and one origin: an event posted to either is seen by both; 20 concurrent window writes across both lose nothing", async (t) => {
  const { dir: root, cleanup } = await tempDir("replicas");
  t.after(cleanup);
  const remote = join(root, "fleet.git");
  const seed = join(root, "seed");
  await mkdir(seed);
  await writeFleet(seed);
  await git(root, "init", "--quiet", "--bare", "--initial-branch=main", remote);
  await git(seed, "push", "--quiet", remote, "main");
  const tokens = await writeTokens(root);
  const keysFile = join(root, "cluster-keys.yaml");
  const key = await addClusterKey(keysFile, { cluster: "edge-berlin", now: NOW });
  const store = await postgres.database("replicas");
  const replicas: RunningService[] = [];
  for (const name of ["a", "b"]) {
    const work = join(root, `work-${name}`);
    await git(root, "clone", "--quiet", remote, work);
    const service = await startService(
      testServiceOptions(work, tokens.file, { rateLimit: { burst: 1000, perSecond: 1000 }, push: { keysFile, store, staleAfterMs: 15 * 60_000 } }),
    );
    t.after(() => service.close());
    replicas.push(service);
  }
  const [a, b] = replicas as [RunningService, RunningService];
  const post = async (service: RunningService, target: string, at: string, state: string): Promise<number> => {
    const body = JSON.stringify({
      involvedObject: { kind: "Kustomization", namespace: "flux-system", name: target },
      severity: "info",
      timestamp: at,
      message: `${state} by window nightly`,
      reason: state === "closed" ? "WindowClosed" : "WindowOpened",
      metadata: { window: "nightly", state },
      reportingController: "fluxgate",
    });
    const r = await fetch(`${service.url}/api/v1/clusters/edge-berlin/events`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-signature": signatureOf(key, body) },
      body,
    });
    await r.body?.cancel();
    return r.status;
  };
  const pushed = async (service: RunningService): Promise<Array<{ name: string; state: string }>> => {
    const r = await fetch(`${service.url}/api/v1/clusters/edge-berlin/status`, { headers: { authorization: `Bearer ${tokens.viewer}` } });
    return ((await r.json()) as { pushed: { targets: Array<{ name: string; state: string }> } }).pushed.targets;
  };

  assert.equal(await post(a, "apps", "2026-11-23T09:00:00Z", "closed"), 202);
  assert.deepEqual(
    (await pushed(b)).map((x) => [x.name, x.state]),
    [["apps", "closed"]],
    "posted to a, read from b",
  );
  assert.equal(await post(b, "apps", "2026-11-23T09:30:00Z", "open"), 202);
  assert.equal(await post(a, "apps", "2026-11-23T09:10:00Z", "closed"), 202, "a late, older event");
  assert.deepEqual(
    (await pushed(a)).map((x) => [x.name, x.state]),
    [["apps", "open"]],
    "the newest wins across replicas",
  );

  // Windows: Git is the point of truth. 20 writers, half on each replica, each its own window.
  const writes = await Promise.all(
    Array.from({ length: 20 }, async (_, i) => {
      const service = i % 2 === 0 ? a : b;
      const r = await fetch(`${service.url}/api/v1/clusters/edge-berlin/windows/replica-${i}`, {
        method: "PUT",
        headers: { authorization: `Bearer ${tokens.editor}`, "content-type": "application/json" },
        body: JSON.stringify({ spec: spec(i % 24), reason: `writer ${i}` }),
      });
      return { i, status: r.status, body: (await r.json()) as { commit?: string; error?: { message: string } } };
    }),
  );
  const failed = writes.filter((w) => w.status !== 201);
  assert.deepEqual(failed, [], "every write is committed and pushed");
  const files = (await git(remote, "ls-tree", "--name-only", "main", "clusters/edge-berlin/windows/")).split("\n");
  for (let i = 0; i < 20; i++) assert.ok(files.includes(`clusters/edge-berlin/windows/replica-${i}.yaml`), `origin has replica-${i}`);
  const subjects = (await git(remote, "log", "--format=%s", "main")).split("\n");
  assert.equal(subjects.filter((s) => /^edge-berlin: add window replica-\d+/.test(s)).length, 20, subjects.slice(0, 25).join("\n"));
});
