// `fluxgate controller`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { str, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
  usage:
    "fluxgate controller [--kubeconfig FILE] [--context NAME] [--namespace NS ...] [--target-kinds KINDS] [--no-cross-namespace-refs] [--metrics-addr ADDR] [--health-addr ADDR] [--leader-elect] [--resync-period D] [--events-address URL [--heartbeat-interval D]] [--log-level debug|info|error]",
  summary: "Run the controller that enforces windows on Flux objects",
  help: `Watches ReconciliationWindows, WindowOverrides and the Flux objects they select, and owns
spec.suspend of each target (server-side apply, field manager "fluxgate"). Logs are JSON lines on
stderr. Runs until SIGTERM or SIGINT.

Flags:
  --kubeconfig FILE          kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, in-cluster)
  --context NAME             kubeconfig context
  --namespace NS             watch only this namespace; repeat for several (default: all)
  --target-kinds KINDS       kinds to govern (default: Kustomization,HelmRelease,ImageUpdateAutomation)
  --no-cross-namespace-refs  a window acts only on targets in its own namespace; entries naming
                             another namespace are refused (Ready=False, AccessDenied), as Flux's
                             flag of the same name (default false)
  --metrics-addr ADDR        Prometheus /metrics (default :8080)
  --health-addr ADDR         /healthz and /readyz (default :8081)
  --leader-elect             only the replica holding the Lease writes
  --leader-election-namespace NS   namespace of the Lease (default $POD_NAMESPACE or fluxgate-system)
  --leader-election-lease-duration D   how long the lease lasts unrenewed (default 15s); a replica
                             takes over at most this plus a retry period (D/7.5) after the leader dies
  --resync-period D          re-plan everything this often (default 10m)
  --events-address URL       also post events to Flux's notification-controller
  --heartbeat-interval D     with --events-address, also post a Heartbeat of every governed target
                             this often (e.g. 5m), so a Config Service receiving the cluster's events
                             can tell a quiet cluster from a gone one (default: none)
  --log-level LEVEL          debug, info or error (default info)

Examples:
  fluxgate controller --kubeconfig ~/.kube/config --namespace flux-system
  fluxgate controller --leader-elect --events-address http://notification-controller.flux-system.svc.cluster.local./`,
  options: {
    kubeconfig: { type: "string" },
    context: { type: "string" },
    namespace: { type: "string", short: "n", multiple: true },
    "target-kinds": { type: "string" },
    "no-cross-namespace-refs": { type: "boolean" },
    "metrics-addr": { type: "string" },
    "health-addr": { type: "string" },
    "leader-elect": { type: "boolean" },
    "leader-election-namespace": { type: "string" },
    "leader-election-lease-duration": { type: "string" },
    "resync-period": { type: "string" },
    "events-address": { type: "string" },
    "heartbeat-interval": { type: "string" },
    "log-level": { type: "string" },
  },
};

export async function run(v: Values): Promise<CommandResult> {
  const { controller } = await import("../controller.ts");
  return controller({
    kubeconfig: str(v.kubeconfig),
    context: str(v.context),
    namespaces: Array.isArray(v.namespace) ? v.namespace : [],
    targetKinds: str(v["target-kinds"]),
    noCrossNamespaceRefs: v["no-cross-namespace-refs"] === true,
    metricsAddr: str(v["metrics-addr"]) ?? ":8080",
    healthAddr: str(v["health-addr"]) ?? ":8081",
    leaderElect: v["leader-elect"] === true,
    leaderElectionNamespace: str(v["leader-election-namespace"]),
    leaseDuration: str(v["leader-election-lease-duration"]),
    resyncPeriod: str(v["resync-period"]) ?? "10m",
    logLevel: str(v["log-level"]) ?? "info",
    eventsAddress: str(v["events-address"]),
    heartbeatInterval: str(v["heartbeat-interval"]),
  });
}
