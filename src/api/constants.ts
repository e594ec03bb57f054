// Names fluxgate writes and reads on Kubernetes objects: annotations, labels, the finalizer, field managers, its namespace.

/** Namespace the controller is installed in (config/manager), and of its leader-election Lease unless told otherwise. */
export const CONTROLLER_NAMESPACE = "fluxgate-system";

/** Annotation Flux reads to reconcile an object at once (RFC 3339); fluxgate sets it on a target when its window opens. */
export const RECONCILE_REQUESTED_AT = "reconcile.fluxcd.io/requestedAt";

/**
 * Annotation on a WindowOverride: when it was asked for (RFC 3339). The Config Service writes it on the
 * overrides it commits, because a file in Git has no creation time; see policy/override.ts for how it
 * decides when an override starts.
 */
export const OVERRIDE_REQUESTED_AT = "fluxgate.io/requested-at";
/** Annotation on a WindowOverride: who asked for it (the Config Service's token name, or the user `fluxgate open` ran as). */
export const OVERRIDE_REQUESTED_BY = "fluxgate.io/requested-by";

/**
 * Annotations `fluxgate overrides cancel` sets to end an override early and keep it as a record:
 * when (RFC 3339, whole seconds; the override's effective end when before `spec.until`) and who.
 */
export const CANCELLED_AT = "fluxgate.io/cancelled-at";
export const CANCELLED_BY = "fluxgate.io/cancelled-by";

/** Annotations `fluxgate approve` writes on a window to promote one revision outside the window. */
export const APPROVE_REVISION = "fluxgate.io/approve-revision";
export const APPROVE_REASON = "fluxgate.io/approve-reason";
export const APPROVED_BY = "fluxgate.io/approved-by";
export const APPROVED_AT = "fluxgate.io/approved-at";

/** Label on a gated source: the window that owns and pins it. */
export const GATED_BY = "fluxgate.io/window";
/** Label on a gated source whose window was deleted: unpinned, it follows upstream until no Kustomization uses it. */
export const RELEASED_FROM = "fluxgate.io/released-from";

/**
 * The annotation with which kustomize-controller skips an object when it applies (and prunes) its
 * parent Kustomization: set to `disabled`, the parent leaves the object as it is in the cluster.
 */
export const PARENT_RECONCILE = "kustomize.toolkit.fluxcd.io/reconcile";
export const PARENT_RECONCILE_DISABLED = "disabled";

/** Finalizer on a window: its targets are released (resumed) before it goes. */
export const FINALIZER = "fluxgate.io/release-targets";

/** The controller's field manager for server-side apply: it owns spec.suspend of the targets it governs. */
export const FIELD_MANAGER = "fluxgate";
/** The CLI's field manager (open, freeze, overrides cancel, approve). */
export const CLI_FIELD_MANAGER = "fluxgate-cli";
/** `fluxgate demo`'s field manager for what it changes in its scenario. */
export const DEMO_FIELD_MANAGER = "fluxgate-demo";

/** The reportingController of fluxgate's events (Kubernetes Events and those forwarded to Flux's notification-controller). */
export const EVENT_COMPONENT = "fluxgate";

/**
 * Metadata keys of the events fluxgate forwards to notification-controller, so that a cluster's
 * last event of a target is a complete picture of it (a Provider receives them without the API
 * group notification-controller strips): the target's state, the windows governing it, its next
 * change, the revision waiting and since when — what fluxgate decided — and what the target
 * actually does (whether it is suspended, gated, or applied a change while closed).
 */
export const EVENT_METADATA = {
  state: "state",
  windows: "window",
  nextChange: "nextChange",
  pendingRevision: "pendingRevision",
  pendingSince: "pendingSince",
  revision: "revision",
  /** When the decided state began (RFC 3339), "" when the schedules cannot tell. */
  since: "since",
  /** The target's spec.suspend as the API server has it: "true" or "false" (observed, not intended). */
  suspended: "suspended",
  /** Mode Gate: whether the target takes its artifact from the gated source ("true") or bypasses it ("false"); "" outside Gate mode. */
  gated: "gated",
  /** The revision the target applied while its windows were closed, until it may take changes again; "" when none. */
  violation: "violation",
  /** Sent with a notice (WindowOpensSoon, FreezeStartsSoon): what comes ("Open" or "Frozen"), when (RFC 3339), and the window that announces it. */
  upcoming: "upcoming",
  upcomingAt: "upcomingAt",
  upcomingWindow: "upcomingWindow",
} as const;

/**
 * The most characters a reason may have (a freeze's, an override's, a commit's through the Config Service): Kubernetes keeps it in a spec, Git in a commit
 * message.
 */
export const MAX_REASON_LENGTH = 1024;

/**
 * The cluster's identity: a ConfigMap `fluxgate init` writes from fluxgate.yaml into each cluster's
 * windows/ folder (so Flux applies it with the windows), in flux-system, the namespace `flux bootstrap`
 * creates. Its data: `cluster` (the name in fluxgate.yaml) and `labels` (a YAML map of the cluster's
 * labels). The controller matches fleet windows' and fleet overrides' `clusterSelector` against these
 * labels; the Config Service, check and anyone else who needs a cluster's labels (a holiday freeze by
 * country) read the same object.
 */
export const CLUSTER_IDENTITY_NAME = "fluxgate-cluster";
export const CLUSTER_IDENTITY_NAMESPACE = "flux-system";
/** Data keys of the identity ConfigMap. */
export const CLUSTER_IDENTITY_CLUSTER_KEY = "cluster";
export const CLUSTER_IDENTITY_LABELS_KEY = "labels";
