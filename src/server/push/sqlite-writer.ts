// The writer thread of the SQLite status store: commits each batch of events it is given in one transaction, off the service's event loop.

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

/** What the writer is started with. */
export interface WriterData {
  file: string;
}

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
  const upsertTarget = db.prepare(sqliteSql(UPSERT_TARGET));
  const upsertCluster = db.prepare(sqliteSql(UPSERT_CLUSTER));
  const selectEventAt = db.prepare("SELECT event_at FROM targets WHERE cluster = ?1 AND kind = ?2 AND namespace = ?3 AND name = ?4");
  port.on("message", ({ writes }: WriteBatch) => {
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

if (parentPort !== null && (workerData as Partial<WriterData> | undefined)?.file !== undefined) startWriter(parentPort, workerData as WriterData);
