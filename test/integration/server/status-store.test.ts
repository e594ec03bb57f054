// The status store's contract on both implementations: SQLite (node:sqlite, a file) and a real PostgreSQL server.

import { after, before } from "node:test";
import { join } from "node:path";
import { PostgresStore } from "../../../src/server/push/postgres.ts";
import { SqliteStore } from "../../../src/server/push/sqlite.ts";
import { startPostgres, type Postgres } from "../../harness/postgres.ts";
import { tempDir } from "../../support/server.ts";
import { statusStoreContract } from "../../support/status-store.ts";

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
