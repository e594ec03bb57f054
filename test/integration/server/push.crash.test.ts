// Crash safety of the event receiver: `fluxgate serve` killed with SIGKILL in the middle of a burst loses no acknowledged event.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { freePort } from "../../../src/devenv/process.ts";
import { repoRoot } from "../../../src/devenv/paths.ts";
import { addClusterKey, signatureOf } from "../../../src/server/status/keys.ts";
import { tempDir, writeFleet } from "../../support/server.ts";

const CLUSTERS = ["edge-berlin", "edge-newyork", "edge-tokyo"];

/** Starts `fluxgate serve` as its own process; resolves with its URL once it listens. */
async function serve(repo: string, keysFile: string, store: string, port: number): Promise<{ url: string; kill: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    [
      join(repoRoot, "src", "cli", "main.ts"),
      "serve",
      "--repo",
      repo,
      "--anonymous-read",
      "--port",
      String(port),
      "--sync-interval",
      "0",
      "--cluster-keys",
      keysFile,
      "--store",
      store,
    ],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (out += d));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const m = /Config Service on (http:\/\/\S+)/.exec(out);
      if (m !== null) resolve(m[1] as string);
    });
    child.once("exit", (code) => reject(new Error(`serve exited (${code}) before listening:\n${out}`)));
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    url,
    kill: async () => {
      child.kill("SIGKILL");
      await exited;
    },
  };
}

test("serve killed with SIGKILL during a burst of pushed events: every acknowledged event is there after the restart, and the database is intact", async (t) => {
  const { dir, cleanup } = await tempDir("push-crash");
  const restarted: { server?: Awaited<ReturnType<typeof serve>> } = {};
  // The restarted server goes first: its store's files are removed with the directory only once it is gone.
  t.after(async () => {
    await restarted.server?.kill();
    await cleanup();
  });
  const repo = join(dir, "fleet");
  await mkdir(repo);
  await writeFleet(repo);
  const keysFile = join(dir, "cluster-keys.yaml");
  const keys = new Map<string, string>();
  for (const c of CLUSTERS) keys.set(c, await addClusterKey(keysFile, { cluster: c, now: Date.now() }));
  const store = join(dir, "status.db");
  const port = await freePort();

  const first = await serve(repo, keysFile, store, port);
  const acknowledged: Array<{ cluster: string; name: string }> = [];
  let refused = 0;
  let sent = 0;
  const at = new Date(Date.now() - 60_000).toISOString();
  const post = async (cluster: string, name: string): Promise<void> => {
    const body = JSON.stringify({
      involvedObject: { kind: "Kustomization", namespace: "flux-system", name },
      severity: "info",
      timestamp: at,
      message: "Suspended",
      reason: "WindowClosed",
      metadata: { state: "closed" },
      reportingController: "fluxgate",
    });
    sent++;
    try {
      const r = await fetch(`${first.url}/api/v1/clusters/${cluster}/events`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-signature": signatureOf(keys.get(cluster) as string, body) },
        body,
      });
      await r.body?.cancel();
      if (r.status === 202) acknowledged.push({ cluster, name });
      else refused++;
    } catch {
      // The connection died with the process: not acknowledged, so the cluster would retry it.
    }
  };
  // 3 clusters × 250 targets, 30 posts in flight; the kill comes once 150 are acknowledged.
  const work = CLUSTERS.flatMap((c) => Array.from({ length: 250 }, (_, i) => [c, `apps-${i}`] as const));
  let killed = false;
  const workers = Array.from({ length: 30 }, async () => {
    for (let next = work.shift(); next !== undefined && !killed; next = work.shift()) {
      await post(next[0], next[1]);
      if (acknowledged.length >= 150 && !killed) {
        killed = true;
        await first.kill();
      }
    }
  });
  await Promise.all(workers);
  assert.ok(killed, "the server was killed mid-burst");
  t.diagnostic(`${sent} posted, ${acknowledged.length} acknowledged before SIGKILL, ${refused} refused`);
  assert.equal(refused, 0, "no post was refused before the kill");

  // The file itself, as SQLite checks it after the crash.
  const db = new DatabaseSync(store);
  assert.deepEqual(
    db
      .prepare("PRAGMA integrity_check")
      .all()
      .map((r) => ({ ...r })),
    [{ integrity_check: "ok" }],
  );
  db.close();

  const second = await serve(repo, keysFile, store, port);
  restarted.server = second;
  const fleet = (await (await fetch(`${second.url}/api/v1/fleet/status`)).json()) as { clusters: Array<{ cluster: string; targets: number }> };
  const stored = new Map(fleet.clusters.map((c) => [c.cluster, c.targets]));
  for (const c of CLUSTERS) {
    const status = (await (await fetch(`${second.url}/api/v1/clusters/${c}/status`)).json()) as { pushed: { targets: Array<{ name: string }> } };
    const names = new Set(status.pushed.targets.map((x) => x.name));
    const lost = acknowledged.filter((a) => a.cluster === c && !names.has(a.name));
    assert.deepEqual(lost, [], `acknowledged events of ${c} lost in the crash`);
    assert.equal(stored.get(c), names.size);
  }
});
