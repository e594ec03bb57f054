// The status store in an embedded SQLite database (Node's node:sqlite): one file, write-ahead log, writes committed in groups by a writer thread.

import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { setImmediate as nextTurn } from "node:timers/promises";
import { Worker } from "node:worker_threads";
import {
  byTarget,
  MIGRATIONS,
  SELECT_FLEET_TARGETS,
  SELECT_TARGETS,
  targetOf,
  type PushedCluster,
  type PushedEvent,
  type RecordOutcome,
  type StatusStore,
} from "./store.ts";
import { configure, type Write, type WriteReply, type WriterData, type WriterMessage } from "./sqlite-writer.ts";

/** Rows of the fleet's targets read in one turn of the event loop (about a millisecond of work). */
export const FLEET_ROWS_PER_TURN = 250;

interface Pending {
  write: Write;
  resolve: (outcome: RecordOutcome) => void;
  reject: (error: Error) => void;
}

/**
 * Writes go to a writer thread (sqlite-writer.ts), one transaction at a time: while one commits
 * (and syncs its log), the events that arrive meanwhile gather, and go together in the next. A
 * burst of a fleet-wide transition thus costs few syncs, and neither the syncs nor the writes
 * hold the event loop; each `record` resolves after its transaction commits. Reads run on the
 * event loop's own connection: the write-ahead log lets them see every committed write. A third
 * thread copies the log into the database file (a checkpoint) while commits go on.
 *
 * @example const store = SqliteStore.open("/var/lib/fluxgate/status.db"); await store.record(event);
 */
export class SqliteStore implements StatusStore {
  private readonly db: DatabaseSync;
  private readonly writer: Worker;
  private readonly checkpointer: Worker;
  private pending: Pending[] = [];
  private inFlight: Pending[] | null = null;
  private failure: Error | null = null;
  private closed = false;
  private drained: Array<() => void> = [];

  private constructor(db: DatabaseSync, file: string) {
    this.db = db;
    // The writer module sits next to this one: .ts when run from source, .js when built.
    const module = import.meta.url.endsWith(".ts") ? "./sqlite-writer.ts" : "./sqlite-writer.js";
    this.writer = new Worker(new URL(module, import.meta.url), { workerData: { file } satisfies WriterData });
    this.checkpointer = new Worker(new URL(module, import.meta.url), { workerData: { file, role: "checkpoint" } satisfies WriterData });
    // It never keeps the process alive; should it stop, the writer checkpoints as SQLite does by itself.
    this.checkpointer.unref();
    const checkpointStopped = (): void => {
      if (!this.closed && this.failure === null) this.writer.postMessage({ checkpointItself: true } satisfies WriterMessage);
    };
    this.checkpointer.on("error", checkpointStopped);
    this.checkpointer.on("exit", checkpointStopped);
    // Held open only while a write is in flight: an idle store does not keep the process alive.
    this.writer.unref();
    this.writer.on("message", (reply: WriteReply) => this.committed(reply));
    this.writer.on("error", (error: Error) => this.broken(error));
    this.writer.on("exit", (code) => {
      if (!this.closed) this.broken(new Error(`the status store's writer stopped (exit code ${code})`));
    });
  }

  /** Opens (creating when missing) the database file and brings its schema up to date. */
  static open(file: string): SqliteStore {
    if (file === ":memory:") throw new Error("the SQLite status store needs a file: give --store FILE");
    mkdirSync(dirname(file), { recursive: true });
    const db = new DatabaseSync(file);
    configure(db);
    migrate(db);
    return new SqliteStore(db, file);
  }

  record(event: PushedEvent): Promise<RecordOutcome> {
    return this.enqueue(event);
  }

  async heard(cluster: string, receivedAt: number): Promise<void> {
    await this.enqueue({ cluster, receivedAt });
  }

  private enqueue(write: Write): Promise<RecordOutcome> {
    if (this.closed) return Promise.reject(new Error("the status store is closed"));
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending.push({ write, resolve, reject });
      if (this.inFlight === null) this.send();
    });
  }

  /** Sends what has gathered as one transaction. */
  private send(): void {
    const batch = this.pending;
    this.pending = [];
    this.inFlight = batch;
    this.writer.ref();
    this.writer.postMessage({ writes: batch.map((p) => p.write) } satisfies WriterMessage);
  }

  private committed(reply: WriteReply): void {
    const batch = this.inFlight ?? [];
    this.inFlight = null;
    this.writer.unref();
    if ("failed" in reply) {
      const error = new Error(`the status store could not write: ${reply.failed}`);
      for (const p of batch) p.reject(error);
    } else {
      batch.forEach((p, i) => p.resolve(reply.outcomes[i] as RecordOutcome));
    }
    if (this.pending.length > 0) this.send();
    else this.idle();
  }

  /** The writer failed: nothing in flight or waiting was stored, and nothing more can be. */
  private broken(error: Error): void {
    this.failure = error;
    for (const p of [...(this.inFlight ?? []), ...this.pending]) p.reject(error);
    this.inFlight = null;
    this.pending = [];
    this.idle();
  }

  private idle(): void {
    for (const done of this.drained.splice(0)) done();
  }

  cluster(cluster: string): Promise<PushedCluster | null> {
    const heard = this.db.prepare("SELECT last_heard FROM clusters WHERE name = ?1").get(cluster) as { last_heard: number } | undefined;
    if (heard === undefined) return Promise.resolve(null);
    const rows = this.db.prepare(`${SELECT_TARGETS} WHERE cluster = ?1`).all(cluster) as Record<string, unknown>[];
    return Promise.resolve({ cluster, lastHeard: new Date(heard.last_heard).toISOString(), targets: rows.map(targetOf).sort(byTarget) });
  }

  /**
   * The rows are read FLEET_ROWS_PER_TURN at a time, each batch in a turn of the event loop of its
   * own: a thousand clusters' targets at once held it for 15 ms and more, and every post arriving
   * meanwhile waited. The targets are read in one statement, so from one snapshot of the database.
   */
  async fleet(): Promise<PushedCluster[]> {
    const clusters = this.db.prepare("SELECT name, last_heard FROM clusters ORDER BY name").all() as Array<{ name: string; last_heard: number }>;
    const byCluster = new Map<string, PushedCluster>(
      clusters.map((c) => [c.name, { cluster: c.name, lastHeard: new Date(c.last_heard).toISOString(), targets: [] }]),
    );
    let read = 0;
    for (const row of this.db.prepare(SELECT_FLEET_TARGETS).iterate() as Iterable<Record<string, unknown>>) {
      byCluster.get(String(row["cluster"]))?.targets.push(targetOf(row));
      if (++read % FLEET_ROWS_PER_TURN === 0) await nextTurn();
    }
    for (const c of byCluster.values()) c.targets.sort(byTarget);
    return [...byCluster.values()];
  }

  /** Waits for what was recorded to be committed, then stops the writer and closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.inFlight !== null || this.pending.length > 0) await new Promise<void>((resolve) => this.drained.push(resolve));
    this.closed = true;
    await this.checkpointer.terminate();
    await this.writer.terminate();
    this.db.close();
  }
}

/** Applies the migrations the database has not seen, each in its own transaction. */
function migrate(db: DatabaseSync): void {
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)");
  const row = db.prepare("SELECT MAX(version) AS version FROM schema_migrations").get() as { version: number | null };
  const have = row.version ?? 0;
  if (have > MIGRATIONS.length)
    throw new Error(`the status database has schema version ${have}, newer than this fluxgate knows (${MIGRATIONS.length}): use a newer fluxgate`);
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
