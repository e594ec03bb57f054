// Prometheus metrics of the controller, all prefixed fluxgate_.

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/** The states of fluxgate_window_state: a window's status.state, and Invalid for a window whose spec was refused. */
export const STATES = ["Open", "Closed", "Frozen", "Overridden", "Invalid"] as const;

/** The controller's metrics in their own registry. */
export class Metrics {
  readonly registry = new Registry();
  readonly windowState: Gauge<"namespace" | "name" | "state">;
  readonly transitions: Counter<"namespace" | "name" | "state">;
  readonly pendingTargets: Gauge<"namespace" | "name">;
  readonly matchedTargets: Gauge<"namespace" | "name">;
  readonly pendingRevisions: Gauge<"namespace" | "name">;
  readonly pendingSince: Gauge<"namespace" | "name">;
  readonly suspendedWhileOpen: Gauge<"namespace" | "name">;
  readonly suspendedWhileOpenSince: Gauge<"namespace" | "name">;
  readonly transitionLatency: Histogram;
  readonly errors: Counter<"operation">;
  readonly apiRequests: Counter<"verb" | "resource" | "code">;
  readonly apiRetries: Counter<"code">;
  readonly suspendReverted: Counter;
  readonly appliedWhileClosed: Counter<"namespace" | "name">;
  readonly clockJumps: Counter;
  readonly reconciles: Counter<"kind">;
  readonly leader: Gauge;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: "fluxgate_process_" });
    // Gauges that prom-client names with _total, against Prometheus' naming rules (promtool check metrics): not exported.
    for (const gauge of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"])
      this.registry.removeSingleMetric(`fluxgate_process_${gauge}`);
    this.windowState = new Gauge({
      name: "fluxgate_window_state",
      help: "1 for the window's current state, 0 for the others.",
      labelNames: ["namespace", "name", "state"],
      registers,
    });
    this.transitions = new Counter({
      name: "fluxgate_window_transitions_total",
      help: "Changes of window state, by the state entered.",
      labelNames: ["namespace", "name", "state"],
      registers,
    });
    this.pendingTargets = new Gauge({
      name: "fluxgate_window_pending_targets",
      help: "Targets of the window whose source has a revision they have not applied.",
      labelNames: ["namespace", "name"],
      registers,
    });
    this.pendingRevisions = new Gauge({
      name: "fluxgate_window_pending_revisions",
      help: "The most source revisions any listed target of the window waits for (a lower bound of the commits waiting); 0 when nothing waits.",
      labelNames: ["namespace", "name"],
      registers,
    });
    this.pendingSince = new Gauge({
      name: "fluxgate_window_pending_since_timestamp_seconds",
      help: "Unix time since which the longest-waiting listed target of the window has waited; 0 when nothing waits.",
      labelNames: ["namespace", "name"],
      registers,
    });
    // Per window, not per target: the label set stays as small as the windows' (targets come and go by label selector).
    this.suspendedWhileOpen = new Gauge({
      name: "fluxgate_window_targets_suspended_while_open",
      help: "Targets of the window (Suspend mode) kept suspended although their windows let them take changes: seen with spec.suspend true, and not seen resumed for a minute since.",
      labelNames: ["namespace", "name"],
      registers,
    });
    this.suspendedWhileOpenSince = new Gauge({
      name: "fluxgate_window_suspended_while_open_since_timestamp_seconds",
      help: "Unix time since which the longest of those targets has been kept suspended while its windows let it take changes; 0 when none is.",
      labelNames: ["namespace", "name"],
      registers,
    });
    this.matchedTargets = new Gauge({ name: "fluxgate_window_targets", help: "Targets the window selects.", labelNames: ["namespace", "name"], registers });
    this.transitionLatency = new Histogram({
      name: "fluxgate_transition_latency_seconds",
      help: "From a transition's scheduled instant until fluxgate wrote a target's spec.suspend for it; only scheduled transitions (not a first enforcement, not a re-assert after a revert).",
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers,
    });
    this.errors = new Counter({ name: "fluxgate_errors_total", help: "Failed operations, by operation.", labelNames: ["operation"], registers });
    this.apiRequests = new Counter({
      name: "fluxgate_api_requests_total",
      help: "Requests to the Kubernetes API, by verb, resource and HTTP code.",
      labelNames: ["verb", "resource", "code"],
      registers,
    });
    this.apiRetries = new Counter({
      name: "fluxgate_api_retries_total",
      help: "Requests to the Kubernetes API sent again after an answer with this HTTP code (429: the API server asked to wait).",
      labelNames: ["code"],
      registers,
    });
    this.suspendReverted = new Counter({
      name: "fluxgate_suspend_reverted_total",
      help: "Times another field manager set spec.suspend of a target against its windows.",
      registers,
    });
    this.appliedWhileClosed = new Counter({
      name: "fluxgate_applied_while_closed_total",
      help: "Revisions a target of the window applied while the window was closed or frozen, as observed from the target's status.",
      labelNames: ["namespace", "name"],
      registers,
    });
    this.clockJumps = new Counter({
      name: "fluxgate_clock_jumps_total",
      help: "Times the wall clock jumped against the monotonic clock and everything was re-planned.",
      registers,
    });
    this.reconciles = new Counter({ name: "fluxgate_reconciles_total", help: "Reconciles, by kind of object.", labelNames: ["kind"], registers });
    this.leader = new Gauge({ name: "fluxgate_leader", help: "1 while this replica holds the leader lease.", registers });
  }

  setWindowState(namespace: string, name: string, state: string | undefined): void {
    for (const s of STATES) this.windowState.set({ namespace, name, state: s }, s === state ? 1 : 0);
  }

  /** Server-side-apply writes sent so far to one resource (by plural), successful or not: the cost of transitions. */
  async applyCount(resource: string): Promise<number> {
    const { values } = await this.apiRequests.get();
    return values.filter((v) => v.labels.verb === "apply" && v.labels.resource === resource).reduce((n, v) => n + v.value, 0);
  }

  forgetWindow(namespace: string, name: string): void {
    for (const s of STATES) this.windowState.remove({ namespace, name, state: s });
    this.pendingTargets.remove({ namespace, name });
    this.pendingRevisions.remove({ namespace, name });
    this.pendingSince.remove({ namespace, name });
    this.suspendedWhileOpen.remove({ namespace, name });
    this.suspendedWhileOpenSince.remove({ namespace, name });
    this.matchedTargets.remove({ namespace, name });
    this.appliedWhileClosed.remove({ namespace, name });
  }
}
