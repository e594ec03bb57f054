// The status store in PostgreSQL (--store postgres://...): several `fluxgate serve` replicas behind one address share it.

import pg from "pg";
import {
  byTarget,
  MIGRATIONS,
  SELECT_FLEET_TARGETS,
  SELECT_TARGETS,
  targetOf,
  targetParams,
  UPSERT_CLUSTER,
  UPSERT_TARGET,
  type PushedCluster,
  type PushedEvent,
  type RecordOutcome,
  type StatusStore,
} from "./store.ts";

/** Any two replicas starting at once take this advisory lock while they bring the schema up to date. */
const MIGRATION_LOCK = 0x666c7578;

/**
 * Each `record` is one transaction, committed (and so durable, with PostgreSQL's defaults) before
 * it resolves.
 *
 * @example const store = await PostgresStore.open("postgres://fluxgate@db/fluxgate"); await store.record(event);
 */
export class PostgresStore implements StatusStore {
  private readonly pool: pg.Pool;

  private constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  /** Connects and brings the schema up to date; an unreachable server is an error naming it (without its password). */
  static async open(url: string, options: { max?: number } = {}): Promise<PostgresStore> {
    const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10, connectionTimeoutMillis: 10_000 });
    // An idle connection the server dropped is replaced; the error must not end the process.
    pool.on("error", () => undefined);
    try {
      await migrate(pool);
    } catch (e) {
      await pool.end();
      throw new Error(`cannot use the status store ${redacted(url)}: ${(e as Error).message}`, { cause: e });
    }
    return new PostgresStore(pool);
  }

  async record(event: PushedEvent): Promise<RecordOutcome> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const before = await client.query<{ event_at: string }>(
        "SELECT event_at FROM targets WHERE cluster = $1 AND kind = $2 AND namespace = $3 AND name = $4 FOR UPDATE",
        [event.cluster, event.kind, event.namespace, event.name],
      );
      await client.query(UPSERT_TARGET, targetParams(event));
      await client.query(UPSERT_CLUSTER, [event.cluster, event.receivedAt]);
      await client.query("COMMIT");
      const was = before.rows[0]?.event_at;
      return was !== undefined && Number(was) > event.eventAt ? "older" : "stored";
    } catch (e) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  async heard(cluster: string, receivedAt: number): Promise<void> {
    await this.pool.query(UPSERT_CLUSTER, [cluster, receivedAt]);
  }

  async cluster(cluster: string): Promise<PushedCluster | null> {
    const heard = await this.pool.query<{ last_heard: string }>("SELECT last_heard FROM clusters WHERE name = $1", [cluster]);
    const row = heard.rows[0];
    if (row === undefined) return null;
    const targets = await this.pool.query<Record<string, unknown>>(`${SELECT_TARGETS} WHERE cluster = $1`, [cluster]);
    return { cluster, lastHeard: new Date(Number(row.last_heard)).toISOString(), targets: targets.rows.map(targetOf).sort(byTarget) };
  }

  async fleet(): Promise<PushedCluster[]> {
    const clusters = await this.pool.query<{ name: string; last_heard: string }>("SELECT name, last_heard FROM clusters ORDER BY name");
    const byCluster = new Map<string, PushedCluster>(
      clusters.rows.map((c) => [c.name, { cluster: c.name, lastHeard: new Date(Number(c.last_heard)).toISOString(), targets: [] }]),
    );
    const targets = await this.pool.query<Record<string, unknown>>(SELECT_FLEET_TARGETS);
    for (const row of targets.rows) byCluster.get(String(row["cluster"]))?.targets.push(targetOf(row));
    for (const c of byCluster.values()) c.targets.sort(byTarget);
    return [...byCluster.values()];
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** Applies the migrations the database has not seen, under an advisory lock, in one transaction. */
async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)");
    const { rows } = await client.query<{ version: number | null }>("SELECT MAX(version) AS version FROM schema_migrations");
    const have = rows[0]?.version ?? 0;
    if (have > MIGRATIONS.length)
      throw new Error(`the status database has schema version ${have}, newer than this fluxgate knows (${MIGRATIONS.length}): use a newer fluxgate`);
    for (let v = have + 1; v <= MIGRATIONS.length; v++) {
      await client.query(MIGRATIONS[v - 1] as string);
      await client.query("INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)", [v, Date.now()]);
    }
    await client.query("COMMIT");
  } catch (e) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

/** The URL without its password, for messages. */
export function redacted(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== "") u.password = "***";
    return u.toString();
  } catch {
    return "(an unparsable URL)";
  }
}
