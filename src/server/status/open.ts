// Opens the status store `--store` names: a PostgreSQL URL, or a SQLite file (the default, in the data directory).

import { join, resolve } from "node:path";
import { PostgresStore, redacted } from "./postgres.ts";
import { SqliteStore } from "./sqlite.ts";
import type { StatusStore } from "./store.ts";

/** The default store: `status.db` in fluxgate's data directory. */
export function defaultStore(dataDir: string): string {
  return join(dataDir, "status.db");
}

/**
 * `postgres://` or `postgresql://` URLs open PostgreSQL; anything else is a SQLite file (an optional
 * `sqlite:` prefix is dropped).
 *
 * @example await openStore("postgres://fluxgate@db.example.com/fluxgate"); await openStore("/var/lib/fluxgate/status.db");
 */
export async function openStore(spec: string): Promise<StatusStore> {
  if (/^postgres(ql)?:\/\//i.test(spec)) return PostgresStore.open(spec);
  return SqliteStore.open(spec.replace(/^sqlite:/i, ""));
}

/**
 * Where a store keeps the status, for messages: the PostgreSQL URL without its password, or the
 * SQLite file's path.
 *
 * @example storeDescription("/var/lib/fluxgate/status.db") // "the SQLite file /var/lib/fluxgate/status.db"
 */
export function storeDescription(spec: string): string {
  if (/^postgres(ql)?:\/\//i.test(spec)) return redacted(spec);
  return `the SQLite file ${resolve(spec.replace(/^sqlite:/i, ""))}`;
}
