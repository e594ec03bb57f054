// The status store's contract on both implementations: SQLite (node:sqlite, a file) and a real PostgreSQL server.

import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { after, before, test } from "node:test";
import pg from "pg";
import { join } from "node:path";
import { PostgresStore } from "../../../src/server/status/postgres.ts";
import { SqliteStore } from "../../../src/server/status/sqlite.ts";
import { MIGRATIONS, type PushedTarget } from "../../../src/server/status/store.ts";
import { startPostgres, type Postgres } from "../../harness/postgres.ts";
import { tempDir } from "../../support/server.ts";
import { pushedEvent, statusStoreContract } from "../../support/status-store.ts";

let postgres: Postgres;
const cleanups: Array<() => Promise<void>> = [];
before(async () => {
  postgres = await startPostgres();
});
after(async () => {
  for (const c of cleanups) await c();
  await postgres.stop();
});

let n = 0;
statusStoreContract("SQLite", async () => {
  const { dir, cleanup } = await tempDir("status-sqlite");
  cleanups.push(cleanup);
  const file = join(dir, "status.db");
  return { store: SqliteStore.open(file), reopen: () => Promise.resolve(SqliteStore.open(file)) };
});

statusStoreContract("PostgreSQL", async () => {
  const url = await postgres.database(`contract_${n++}`);
  return { store: await PostgresStore.open(url), reopen: () => PostgresStore.open(url) };
});

/** A row of the first schema: what a store written by an earlier fluxgate holds. */
const V1_ROW = `INSERT INTO clusters (name, last_heard) VALUES ('edge-berlin', 1795939200000);
INSERT INTO targets (cluster, kind, namespace, name, event_at, received_at, reason, severity, message, state, windows, next_change, pending_revision, pending_since, applied_revision)
VALUES ('edge-berlin', 'Kustomization', 'flux-system', 'apps', 1795939200000, 1795939200000, 'WindowClosed', 'info', 'Suspended', 'closed', 'nightly', '', NULL, NULL, NULL);
INSERT INTO schema_migrations (version, applied_at) VALUES (1, 0);`;

/** The target the V1 row stands for, after the migration: what it did not say is unknown (null). */
function assertMigrated(targets: PushedTarget[] | undefined): void {
  assert.deepEqual(
    targets?.map((t) => [t.name, t.state, t.lastTransition, t.suspended, t.gated, t.violation]),
    [["apps", "closed", null, null, null, null]],
  );
}

test("SQLite: a store of the first schema is migrated at open and keeps its rows", async () => {
  const { dir, cleanup } = await tempDir("status-sqlite-v1");
  cleanups.push(cleanup);
  const file = join(dir, "status.db");
  const db = new DatabaseSync(file);
  db.exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL); ${MIGRATIONS[0] ?? ""} ${V1_ROW}`);
  db.close();
  const store = SqliteStore.open(file);
  try {
    assertMigrated((await store.cluster("edge-berlin"))?.targets);
    assert.equal(await store.record(pushedEvent("edge-berlin", Date.parse("2026-12-01T09:00:00Z"), { suspended: "false" })), "stored");
    assert.equal((await store.cluster("edge-berlin"))?.targets[0]?.suspended, false);
  } finally {
    await store.close();
  }
});

test("PostgreSQL: a store of the first schema is migrated at open and keeps its rows", async () => {
  const url = await postgres.database("contract_v1");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL); ${MIGRATIONS[0] ?? ""} ${V1_ROW}`);
  } finally {
    await client.end();
  }
  const store = await PostgresStore.open(url);
  try {
    assertMigrated((await store.cluster("edge-berlin"))?.targets);
  } finally {
    await store.close();
  }
});
