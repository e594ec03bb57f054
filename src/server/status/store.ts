// What the Config Service keeps of the events clusters push: each cluster's last word on each target, and when it was last heard.

/** One event a cluster pushed, reduced to what the fleet view needs. */
export interface PushedEvent {
  cluster: string;
  kind: string;
  namespace: string;
  name: string;
  /** When the cluster's controller emitted it (Flux's `timestamp`), epoch ms. */
  eventAt: number;
  /** When the service received it, epoch ms. */
  receivedAt: number;
  reason: string;
  severity: "info" | "error";
  message: string;
  /** The target's state at the event, when the event says it: "open" or "closed". */
  state: string | null;
  /** The windows governing the target, comma-separated, as the controller names them. */
  windows: string | null;
  /** The next change of the target's state (RFC 3339), "" for none, null when the event does not say. */
  nextChange: string | null;
  /** The revision waiting to be applied and since when (RFC 3339); null when the event does not say. */
  pendingRevision: string | null;
  pendingSince: string | null;
  /** The revision last applied, when the event says it. */
  appliedRevision: string | null;
  /** When the decided state began (RFC 3339), "" when the schedules cannot tell, null when the event does not say. */
  since: string | null;
  /**
   * What the target does, observed by the cluster's controller: spec.suspend ("true"/"false"), Gate mode's use of the gated source ("true"/"false", "" outside
   * Gate mode), a revision applied while closed ("" none); null when the event does not say.
   */
  suspended: string | null;
  gated: string | null;
  violation: string | null;
  /**
   * A notice (WindowOpensSoon, FreezeStartsSoon): what comes ("Open" or "Frozen"), when (RFC 3339),
   * the window announcing it, and the notice's sentence; null when the event is not a notice (the
   * target keeps the last notice it had).
   */
  upcoming: string | null;
  upcomingAt: string | null;
  upcomingWindow: string | null;
}

/** The last notice a target's cluster announced for it: what comes, when, by which window, and the notice's sentence. */
export interface PushedUpcoming {
  transition: string;
  at: string;
  window: string | null;
  message: string;
}

/** A target as the last events of its cluster describe it. */
export interface PushedTarget {
  kind: string;
  namespace: string;
  name: string;
  state: string | null;
  windows: string | null;
  nextChange: string | null;
  pendingRevision: string | null;
  pendingSince: string | null;
  appliedRevision: string | null;
  /** When the decided state began: the last transition (RFC 3339). */
  lastTransition: string | null;
  /** Observed: the target's spec.suspend; in Gate mode whether it takes its artifact from the gated source; a revision it applied while closed. */
  suspended: boolean | null;
  gated: boolean | null;
  violation: string | null;
  /** The last notice announced for it (spec.notice), kept until a newer one; the API shows it only until it comes (see pushedTargetViews). */
  upcoming: PushedUpcoming | null;
  /** The newest event: its reason, severity, message and time (RFC 3339). */
  lastReason: string;
  lastSeverity: "info" | "error";
  lastMessage: string;
  lastEventAt: string;
}

/** What a cluster has pushed. */
export interface PushedCluster {
  cluster: string;
  /** When the service last received anything from the cluster (RFC 3339). */
  lastHeard: string;
  targets: PushedTarget[];
}

/** What recording an event did: `stored`, or `older` when a newer event of the target is kept already. */
export type RecordOutcome = "stored" | "older";

/**
 * Where pushed status lives: SQLite by default, PostgreSQL when several replicas serve one fleet.
 * Both implementations pass one contract test suite. An event is acknowledged only once it is
 * durable: `record` resolves after the write is committed.
 */
export interface StatusStore {
  /** Records an event: the target keeps its newest event (by event time; a tie goes to the later arrival), the cluster is heard. */
  record(event: PushedEvent): Promise<RecordOutcome>;
  /** The cluster was heard (a signed event of another controller): only its last-heard time moves. */
  heard(cluster: string, receivedAt: number): Promise<void>;
  /** A cluster's pushed status, or null when it never pushed. */
  cluster(cluster: string): Promise<PushedCluster | null>;
  /** Every cluster that pushed, by name. */
  fleet(): Promise<PushedCluster[]>;
  close(): Promise<void>;
}

/** The schema, one migration per entry, applied in order; the same SQL runs on SQLite and PostgreSQL. */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE clusters (
     name TEXT PRIMARY KEY,
     last_heard BIGINT NOT NULL
   );
   CREATE TABLE targets (
     cluster TEXT NOT NULL,
     kind TEXT NOT NULL,
     namespace TEXT NOT NULL,
     name TEXT NOT NULL,
     event_at BIGINT NOT NULL,
     received_at BIGINT NOT NULL,
     reason TEXT NOT NULL,
     severity TEXT NOT NULL,
     message TEXT NOT NULL,
     state TEXT,
     windows TEXT,
     next_change TEXT,
     pending_revision TEXT,
     pending_since TEXT,
     applied_revision TEXT,
     PRIMARY KEY (cluster, kind, namespace, name)
   );`,
  // What the target does beside what was decided (observed), and when the decided state began.
  `ALTER TABLE targets ADD COLUMN since TEXT;
   ALTER TABLE targets ADD COLUMN suspended TEXT;
   ALTER TABLE targets ADD COLUMN gated TEXT;
   ALTER TABLE targets ADD COLUMN violation TEXT;`,
  // The last notice of a coming opening or freeze (spec.notice).
  `ALTER TABLE targets ADD COLUMN upcoming TEXT;
   ALTER TABLE targets ADD COLUMN upcoming_at TEXT;
   ALTER TABLE targets ADD COLUMN upcoming_window TEXT;
   ALTER TABLE targets ADD COLUMN upcoming_message TEXT;`,
];

/**
 * The upsert both stores run, with numbered parameters (`$1`...): a newer or equally new event
 * replaces the target's row; fields the event does not carry keep what an earlier one said.
 */
export const UPSERT_TARGET = `
INSERT INTO targets (cluster, kind, namespace, name, event_at, received_at, reason, severity, message, state, windows, next_change, pending_revision, pending_since, applied_revision, since, suspended, gated, violation, upcoming, upcoming_at, upcoming_window, upcoming_message)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)
ON CONFLICT (cluster, kind, namespace, name) DO UPDATE SET
  event_at = excluded.event_at,
  received_at = excluded.received_at,
  reason = excluded.reason,
  severity = excluded.severity,
  message = excluded.message,
  state = COALESCE(excluded.state, targets.state),
  windows = COALESCE(excluded.windows, targets.windows),
  next_change = COALESCE(excluded.next_change, targets.next_change),
  pending_revision = CASE WHEN excluded.pending_revision IS NULL THEN targets.pending_revision ELSE NULLIF(excluded.pending_revision, '') END,
  pending_since = CASE WHEN excluded.pending_revision IS NULL THEN targets.pending_since ELSE NULLIF(excluded.pending_since, '') END,
  applied_revision = COALESCE(excluded.applied_revision, targets.applied_revision),
  since = COALESCE(excluded.since, targets.since),
  suspended = COALESCE(excluded.suspended, targets.suspended),
  gated = COALESCE(excluded.gated, targets.gated),
  violation = COALESCE(excluded.violation, targets.violation),
  upcoming = COALESCE(excluded.upcoming, targets.upcoming),
  upcoming_at = CASE WHEN excluded.upcoming IS NULL THEN targets.upcoming_at ELSE excluded.upcoming_at END,
  upcoming_window = CASE WHEN excluded.upcoming IS NULL THEN targets.upcoming_window ELSE excluded.upcoming_window END,
  upcoming_message = CASE WHEN excluded.upcoming IS NULL THEN targets.upcoming_message ELSE excluded.upcoming_message END
WHERE excluded.event_at >= targets.event_at`;

/** The cluster is heard: its last-heard time only moves forward. */
export const UPSERT_CLUSTER = `
INSERT INTO clusters (name, last_heard) VALUES ($1, $2)
ON CONFLICT (name) DO UPDATE SET last_heard = CASE WHEN excluded.last_heard > clusters.last_heard THEN excluded.last_heard ELSE clusters.last_heard END`;

const TARGET_COLUMNS =
  "kind, namespace, name, event_at, reason, severity, message, state, windows, next_change, pending_revision, pending_since, applied_revision, since, suspended, gated, violation, upcoming, upcoming_at, upcoming_window, upcoming_message";
/** A cluster's targets: add `WHERE cluster = $1`. */
export const SELECT_TARGETS = `SELECT ${TARGET_COLUMNS} FROM targets`;
/** Every cluster's targets, each row naming its cluster. */
export const SELECT_FLEET_TARGETS = `SELECT cluster, ${TARGET_COLUMNS} FROM targets`;

/** The parameters of UPSERT_TARGET for an event. */
export function targetParams(e: PushedEvent): Array<string | number | null> {
  return [
    e.cluster,
    e.kind,
    e.namespace,
    e.name,
    e.eventAt,
    e.receivedAt,
    e.reason,
    e.severity,
    e.message,
    e.state,
    e.windows,
    e.nextChange,
    e.pendingRevision,
    e.pendingSince,
    e.appliedRevision,
    e.since,
    e.suspended,
    e.gated,
    e.violation,
    e.upcoming,
    e.upcoming === null ? null : e.upcomingAt,
    e.upcoming === null ? null : e.upcomingWindow,
    // The notice's sentence is the event's message.
    e.upcoming === null ? null : e.message,
  ];
}

/** A row of SELECT_TARGETS as the API shows it. */
export function targetOf(row: Record<string, unknown>): PushedTarget {
  const text = (v: unknown): string | null => (typeof v === "string" ? v : typeof v === "number" || typeof v === "bigint" ? String(v) : null);
  // "" is what an event says for "none": shown as null.
  const said = (v: unknown): string | null => (text(v) === "" ? null : text(v));
  const flag = (v: unknown): boolean | null => (v === "true" ? true : v === "false" ? false : null);
  return {
    kind: String(row["kind"]),
    namespace: String(row["namespace"]),
    name: String(row["name"]),
    state: text(row["state"]),
    windows: text(row["windows"]),
    nextChange: text(row["next_change"]),
    // A target's first event inserts "" as it came (the upsert clears only on update).
    pendingRevision: said(row["pending_revision"]),
    pendingSince: said(row["pending_since"]),
    appliedRevision: text(row["applied_revision"]),
    lastTransition: said(row["since"]),
    suspended: flag(row["suspended"]),
    gated: flag(row["gated"]),
    violation: said(row["violation"]),
    upcoming:
      said(row["upcoming"]) === null || said(row["upcoming_at"]) === null
        ? null
        : {
            transition: String(row["upcoming"]),
            at: String(row["upcoming_at"]),
            window: said(row["upcoming_window"]),
            message: text(row["upcoming_message"]) ?? "",
          },
    lastReason: String(row["reason"]),
    lastSeverity: row["severity"] === "error" ? "error" : "info",
    lastMessage: String(row["message"]),
    lastEventAt: new Date(Number(row["event_at"])).toISOString(),
  };
}

/** Orders targets as every listing does: kind, namespace, name. */
export function byTarget(a: PushedTarget, b: PushedTarget): number {
  return a.kind.localeCompare(b.kind) || a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name);
}
