// Condition types, condition reasons and event reasons of windows and overrides, with what each means: the controller writes them, the CLI and the API read
// them.

/**
 * Condition: the window was reconciled and its targets follow it; the override is in force or ended
 * as asked. Flux's kstatus (a Kustomization's `wait`, `healthChecks`) and `kubectl wait` read it.
 */
export const READY = "Ready";
/**
 * Condition: the window or override cannot make progress until its spec changes (an invalid
 * schedule, an override's `until` too far ahead). It observes the generation, so kstatus reads it as Failed.
 */
export const STALLED = "Stalled";
/** Condition: another field manager set `spec.suspend` of a target against the window. */
export const SUSPEND_REVERTED_CONDITION = "SuspendReverted";

/** Reason: everything the window governs follows its decision. */
export const RECONCILED = "Reconciled";
/** Reason (condition and event): the spec failed validation; targets are left as they are. */
export const INVALID_SPEC = "InvalidSpec";
/** Reason: some targets are held because windows of different modes select them. */
export const MODE_CONFLICT = "ModeConflict";
/**
 * Reason (window Ready=False) and event (Warning): a target does not do what the window decided, as
 * read from the API server — fluxgate may not write it (the API server's answer is quoted), another
 * manager keeps setting it back, or it has not followed for longer than a write takes.
 */
export const TARGET_NOT_FOLLOWING = "TargetNotFollowing";
/** Reason (window Ready=False) and event (Warning): a target the window names does not exist (the closest existing name is suggested). */
export const TARGET_NOT_FOUND = "TargetNotFound";
/** Reason (Ready=False) and event (Warning): the last reconcile failed (the message says which request, and the API server's answer); it is retried. */
export const RECONCILE_FAILED = "ReconcileFailed";

/** Event: the window (or a target) opened: changes may flow. */
export const WINDOW_OPENED = "WindowOpened";
/** Event: the window (or a target) closed or froze: changes are held. */
export const WINDOW_CLOSED = "WindowClosed";
/** Event (with spec.notice): the window opens within the notice; names per target the revision that goes out, or that nothing waits. */
export const WINDOW_OPENS_SOON = "WindowOpensSoon";
/** Event (with spec.notice): a freeze starts within the notice; names per target what waits and is held from then. */
export const FREEZE_STARTS_SOON = "FreezeStartsSoon";
/** Event on a target: Flux applied a revision that was waiting for the window. */
export const CHANGES_APPLIED = "ChangesApplied";
/** Event (Warning): another field manager flipped `spec.suspend` back. */
export const SUSPEND_REVERTED = "SuspendReverted";
/** Event, and reason of an override's Ready=True: an override took effect. */
export const OVERRIDE_STARTED = "OverrideStarted";
/** Event, and reason of an override's Ready=True once over: an override reached its `until` and no longer decides. */
export const OVERRIDE_EXPIRED = "OverrideExpired";

/**
 * Reason (Ready=False) and event (Warning): a target applied a new revision while its window was
 * closed or frozen — observed from the target's status, whatever let it through.
 */
export const APPLIED_WHILE_CLOSED = "AppliedWhileClosed";
/**
 * Reason (Ready=False) and event (Warning): a target of a Gate window takes its artifact from
 * another source than the gated one, so the gate holds nothing for it.
 */
export const SOURCE_NOT_GATED = "SourceNotGated";
/**
 * Event (Warning): a target's parent Kustomization declares spec.suspend in Git; while the window
 * is closed, fluxgate disabled the parent's reconcile of the target so that it cannot resume it.
 */
export const PARENT_HELD = "ParentReconcileDisabled";
/** Event: a deleted Gate window let go of its gated source, which now follows the upstream. */
export const GATE_RELEASED = "GateReleased";
/** Reason (override condition) and event (Warning): the window an override names does not exist; it has no effect until it does. */
export const WINDOW_NOT_FOUND = "WindowNotFound";
/** Reason (override condition) and event: `fluxgate overrides cancel` ended an override before its `until`; it stays as a record. */
export const OVERRIDE_CANCELLED = "OverrideCancelled";
/** Reason (window condition Ready=False) and event (Warning): with --no-cross-namespace-refs, target entries that name another namespace are not acted on. */
export const ACCESS_DENIED = "AccessDenied";

/**
 * Reason (Ready=True) of a fleet window or fleet override (one with a clusterSelector) that is not
 * this cluster's: its labels (identity ConfigMap flux-system/fluxgate-cluster) do not match, so it
 * governs nothing here; or an Open fleet override on a cluster whose identity cannot be confirmed.
 */
export const NOT_SELECTED = "NotSelected";
/**
 * Reason (window Ready=False) and event (Warning): a fleet window on a cluster whose identity cannot be
 * confirmed (missing, invalid): it opens by none of its schedules, its freezes hold.
 */
export const IDENTITY_UNCONFIRMED = "IdentityUnconfirmed";

/** Event reason: a periodic picture of a target, forwarded to notification-controller only (controller --heartbeat-interval). */
export const HEARTBEAT = "Heartbeat";
