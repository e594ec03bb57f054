// The status store in an embedded SQLite database (Node's node:sqlite): one file, write-ahead log, writes committed in groups.

import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { byTarget, MIGRATIONS, SELECT_FLEET_TARGETS, SELECT_TARGETS, targetOf, targetParams, UPSERT_CLUSTER, UPSERT_TARGET, type PushedCluster, type PushedEvent, type RecordOutcome, type StatusStore } from "./store.ts";

/** SQLite numbers parameters `?1`, `?2`: the shared SQL's `$1` becomes `?1`. */
function sqliteSql(sql: string): string {
  return sql.replace(/\$(\d+)/g, "?$1");
}

interface Pending {
  /** An event to record, or a cluster that was only heard. */
  event: PushedEvent | { cluster: string; receivedAt: number };
  resolve: (outcome: RecordOutcome) => void;
  reject: (error: Error) => void;
}

/**
 * Events that arrive together (a fleet-wide transition) are written in one transaction, so a burst
 * costs one sync of the log, not one per event; each `record` resolves after its transaction commits.
 *
 * @example const store = SqliteStore.open("/var/lib/fluxgate/status.db"); await store.record(event);
 */
export class SqliteStore implements StatusStore {
  private readonly db: DatabaseSync;
  private readonly upsertTarget;
  private readonly upsertCluster;
  private readonly selectEventAt;
  private pending: Pending[] = [];
  private scheduled = false;
  private closed = false;

  private constructor(db: DatabaseSync) {
    this.db = db;
    this.upsertTarget = db.prepare(sqliteSql(UPSERT_TARGET));
    this.upsertCluster = db.prepare(sqliteSql(UPSERT_CLUSTER));
    this.selectEventAt = db.prepare("SELECT event_at FROM targets WHERE cluster = ?1 AND kind = ?2 AND namespace = ?3 AND name = ?4");
  }

  /** Opens (creating when missing) the database file and brings its schema up to date. */
  static open(file: string): SqliteStore {
    if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
    const db = new DatabaseSync(file);
    // The log is synced at each commit: an acknowledged event survives a crash of the process or the machine.
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;");
    migrate(db);
    return new SqliteStore(db);
  }

  record(event: PushedEvent): Promise<RecordOutcome> {
    return this.enqueue(event);
  }

  async heard(cluster: string, receivedAt: number): Promise<void> {
    await this.enqueue({ cluster, receivedAt });
  }

  private enqueue(event: Pending["event"]): Promise<RecordOutcome> {
    if (this.closed) return Promise.reject(new Error("the status store is closed"));
    return new Promise((resolve, reject) => {
      this.pending.push({ event, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const outcomes: RecordOutcome[] = [];
    try {
      this.db.exec("BEGIN IMMEDIATE");
      for (const { event: e } of batch) {
        if (!("kind" in e)) {
          this.upsertCluster.run(e.cluster, e.receivedAt);
          outcomes.push("stored");
          continue;
        }
        const before = this.selectEventAt.get(e.cluster, e.kind, e.namespace, e.name) as { event_at: number } | undefined;
        this.upsertTarget.run(...targetParams(e));
        this.upsertCluster.run(e.cluster, e.receivedAt);
        outcomes.push(before !== undefined && before.event_at > e.eventAt ? "older" : "stored");
      }
      this.db.exec("COMMIT");
    } catch (e) {
      if (this.db.isTransaction) this.db.exec("ROLLBACK");
      for (const p of batch) p.reject(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    batch.forEach((p, i) => p.resolve(outcomes[i] as RecordOutcome));
  }

  cluster(cluster: string): Promise<PushedCluster | null> {
    const heard = this.db.prepare("SELECT last_heard FROM clusters WHERE name = ?1").get(cluster) as { last_heard: number } | undefined;
    if (heard === undefined) return Promise.resolve(null);
    const rows = this.db.prepare(`${SELECT_TARGETS} WHERE cluster = ?1`).all(cluster) as Record<string, unknown>[];
    return Promise.resolve({ cluster, lastHeard: new Date(heard.last_heard).toISOString(), targets: rows.map(targetOf).sort(byTarget) });
  }

  fleet(): Promise<PushedCluster[]> {
    const clusters = this.db.prepare("SELECT name, last_heard FROM clusters ORDER BY name").all() as Array<{ name: string; last_heard: number }>;
    const byCluster = new Map<string, PushedCluster>(clusters.map((c) => [c.name, { cluster: c.name, lastHeard: new Date(c.last_heard).toISOString(), targets: [] }]));
    for (const row of this.db.prepare(SELECT_FLEET_TARGETS).all() as Record<string, unknown>[]) {
      byCluster.get(String(row["cluster"]))?.targets.push(targetOf(row));
    }
    for (const c of byCluster.values()) c.targets.sort(byTarget);
    return Promise.resolve([...byCluster.values()]);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.flush();
    this.closed = true;
    this.db.close();
    return Promise.resolve();
  }
}

/** Applies the migrations the database has not seen, each in its own transaction. */
function migrate(db: DatabaseSync): void {
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)");
  const row = db.prepare("SELECT MAX(version) AS version FROM schema_migrations").get() as { version: number | null };
  const have = row.version ?? 0;
  if (have > MIGRATIONS.length) throw new Error(`the status database has schema version ${have}, newer than this fluxgate knows (${MIGRATIONS.length}): use a newer fluxgate`);
  for (let v = have + 1; v <= MIGRATIONS.length; v++) {
    db.exec("BEGIN IMMEDIATE");
    try {
      db.exec(MIGRATIONS[v - 1] as string);
      db.prepare("INSERT INTO schema_migrations (version, applied_at) VALUES (?1, ?2)").run(v, Date.now());
      db.exec("COMMIT");
    } catch (e) {
      db.exec("ROLLBACK");
      throw e;
    }
  }
}
