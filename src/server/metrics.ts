// Prometheus metrics of the Config Service, all prefixed fluxgate_serve_, in the service's own registry.

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

const WINDOWS = "fluxgate_serve_windows";
const WINDOWS_HELP = "Windows in Git at HEAD, by cluster and state now.";

export class ServeMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<"method" | "route" | "status">;
  readonly duration: Histogram<"method" | "route">;
  readonly commits: Counter;
  readonly pushRetries: Counter;
  readonly gitFailures: Counter<"operation">;
  readonly writeQueue: Gauge;
  readonly rateLimited: Counter;
  readonly authFailures: Counter<"status">;
  readonly windows: Gauge<"cluster" | "state">;
  readonly filesRead: Counter;
  readonly kustomizeBuilds: Counter;

  constructor() {
    const registers = [this.registry];
    // prom-client's own names begin process_ and nodejs_: the service's prefix goes in front once (fluxgate_serve_process_cpu_seconds_total).
    collectDefaultMetrics({ register: this.registry, prefix: "fluxgate_serve_" });
    // Gauges that prom-client names with _total, against Prometheus' naming rules (promtool check metrics): not exported.
    for (const gauge of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"])
      this.registry.removeSingleMetric(`fluxgate_serve_${gauge}`);
    this.requests = new Counter({
      name: "fluxgate_serve_http_requests_total",
      help: "HTTP requests, by method, route and status.",
      labelNames: ["method", "route", "status"],
      registers,
    });
    this.duration = new Histogram({
      name: "fluxgate_serve_http_request_duration_seconds",
      help: "Time to answer an HTTP request, by method and route.",
      labelNames: ["method", "route"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.commits = new Counter({ name: "fluxgate_serve_git_commits_total", help: "Commits the service made (each write is one).", registers });
    this.pushRetries = new Counter({ name: "fluxgate_serve_git_push_retries_total", help: "Writes replayed because the remote moved ahead.", registers });
    this.gitFailures = new Counter({
      name: "fluxgate_serve_git_failures_total",
      help: "Failed Git operations, by operation (push, sync).",
      labelNames: ["operation"],
      registers,
    });
    this.writeQueue = new Gauge({ name: "fluxgate_serve_write_queue_length", help: "Writes waiting or running.", registers });
    this.rateLimited = new Counter({ name: "fluxgate_serve_rate_limited_total", help: "Requests refused with 429.", registers });
    this.authFailures = new Counter({
      name: "fluxgate_serve_auth_failures_total",
      help: "Requests refused with 401 or 403.",
      labelNames: ["status"],
      registers,
    });
    this.windows = new Gauge({ name: WINDOWS, help: WINDOWS_HELP, labelNames: ["cluster", "state"], registers });
    this.filesRead = new Counter({
      name: "fluxgate_serve_git_files_read_total",
      help: "YAML files read from Git to take commits in (a file known by its blob is not read again).",
      registers,
    });
    this.kustomizeBuilds = new Counter({
      name: "fluxgate_serve_kustomize_builds_total",
      help: "kustomize builds of the clusters' windows folders (clusters whose folders kustomize reads alike share one).",
      registers,
    });
  }

  /**
   * The metrics in Prometheus' text format, as the registry gives them; with `clusters`, the
   * per-cluster series (fluxgate_serve_windows) only for those clusters, the service's own
   * metrics unchanged.
   */
  async text(clusters: ReadonlySet<string> | null): Promise<string> {
    if (clusters === null) return this.registry.metrics();
    // A gauge of the chosen clusters' series, in a registry of its own: the shared gauge keeps every cluster.
    const own = new Registry();
    const chosen = new Gauge({ name: WINDOWS, help: WINDOWS_HELP, labelNames: ["cluster", "state"], registers: [own] });
    for (const v of (await this.windows.get()).values) if (clusters.has(String(v.labels.cluster))) chosen.set(v.labels, v.value);
    const parts = await Promise.all(
      this.registry.getMetricsAsArray().map((m) => (m.name === WINDOWS ? own.getSingleMetricAsString(WINDOWS) : this.registry.getSingleMetricAsString(m.name))),
    );
    // Joined as Registry.metrics() joins them.
    return `${parts.join("\n\n")}\n`;
  }
}
