// The threads of the SQLite status store, off the service's event loop: the writer commits each batch of events it is given in one transaction; the
// checkpointer copies committed pages from the log into the database file.

import { DatabaseSync } from "node:sqlite";
import { parentPort, workerData } from "node:worker_threads";
import { targetParams, UPSERT_CLUSTER, UPSERT_TARGET, type PushedEvent, type RecordOutcome } from "./store.ts";

/** An event to record, or a cluster that was only heard. */
export type Write = PushedEvent | { cluster: string; receivedAt: number };

/** What the store sends: the writes of one transaction. */
export interface WriteBatch {
  writes: Write[];
}

/** What the writer answers once the transaction is committed (or rolled back). */
export type WriteReply = { outcomes: RecordOutcome[] } | { failed: string };

/** What a thread of the store is started with: the file, and which thread it is (the writer when absent). */
export interface WriterData {
  file: string;
  role?: "write" | "checkpoint";
}

/** A message to the writer: a batch, or, when the checkpointer stopped, that it is to checkpoint itself. */
export type WriterMessage = WriteBatch | { checkpointItself: true };

/** How often the checkpointer copies what was committed from the write-ahead log into the database file. */
export const CHECKPOINT_EVERY_MS = 1_000;

/** SQLite numbers parameters `?1`, `?2`: the shared SQL's `$1` becomes `?1`. */
export function sqliteSql(sql: string): string {
  return sql.replace(/\$(\d+)/g, "?$1");
}

/** The settings every connection to the status file uses. */
export function configure(db: DatabaseSync): void {
  // The log is synced at each commit: an acknowledged event survives a crash of the process or the machine.
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;");
}

function startWriter(port: NonNullable<typeof parentPort>, data: WriterData): void {
  const db = new DatabaseSync(data.file);
  configure(db);
  // The commit that crosses SQLite's log threshold would copy the log into the database and sync
  // it (tens of milliseconds) while every event behind it waits: the checkpointer does it instead.
  db.exec("PRAGMA wal_autocheckpoint = 0");
  const upsertTarget = db.prepare(sqliteSql(UPSERT_TARGET));
  const upsertCluster = db.prepare(sqliteSql(UPSERT_CLUSTER));
  const selectEventAt = db.prepare("SELECT event_at FROM targets WHERE cluster = ?1 AND kind = ?2 AND namespace = ?3 AND name = ?4");
  port.on("message", (message: WriterMessage) => {
    if ("checkpointItself" in message) return void db.exec("PRAGMA wal_autocheckpoint = 1000");
    const { writes } = message;
    const outcomes: RecordOutcome[] = [];
    try {
      db.exec("BEGIN IMMEDIATE");
      for (const e of writes) {
        if (!("kind" in e)) {
          upsertCluster.run(e.cluster, e.receivedAt);
          outcomes.push("stored");
          continue;
        }
        const before = selectEventAt.get(e.cluster, e.kind, e.namespace, e.name) as { event_at: number } | undefined;
        upsertTarget.run(...targetParams(e));
        upsertCluster.run(e.cluster, e.receivedAt);
        outcomes.push(before !== undefined && before.event_at > e.eventAt ? "older" : "stored");
      }
      // COMMIT returns once the write-ahead log is synced (synchronous = FULL): then, and only then, the events are acknowledged.
      db.exec("COMMIT");
    } catch (e) {
      if (db.isTransaction) db.exec("ROLLBACK");
      port.postMessage({ failed: e instanceof Error ? e.message : String(e) } satisfies WriteReply);
      return;
    }
    port.postMessage({ outcomes } satisfies WriteReply);
  });
}

/**
 * A PASSIVE checkpoint copies what it can without waiting for the writer or readers, and makes
 * neither wait: commits go on while it syncs the database file. The log was synced at each commit
 * already; a checkpoint only keeps it from growing.
 */
function startCheckpointer(data: WriterData): void {
  const db = new DatabaseSync(data.file);
  configure(db);
  db.exec("PRAGMA wal_autocheckpoint = 0");
  setInterval(() => db.exec("PRAGMA wal_checkpoint(PASSIVE)"), CHECKPOINT_EVERY_MS);
}

const data = workerData as Partial<WriterData> | undefined;
if (parentPort !== null && data?.file !== undefined) {
  if (data.role === "checkpoint") startCheckpointer(data as WriterData);
  else startWriter(parentPort, data as WriterData);
}
