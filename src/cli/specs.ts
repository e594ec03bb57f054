// Every `fluxgate` command: its spec (usage, summary, help, flags, arguments) and the file that runs it.
//
// A command is one file, src/cli/<command>.ts: its run (the flags it was given in, its output out)
// and its implementation; the commands of a group share one (serve, fleet window, fleet freeze,
// open and freeze, completion). Their specs are here rather than there because `fluxgate --help`
// and shell completion (`fluxgate __complete`, run on every TAB) need every command's spec and none
// of the commands' dependencies (the Kubernetes client, the web framework, the schema library): this
// module imports ./command.ts alone, and main.ts imports a command's file only when it runs.

import { ALL_NAMESPACES, KUBE, KUBE_HELP, OUTPUT, type CommandSpec, type Run } from "./command.ts";

/** A command: what --help and completion read, and its run, loaded when the command runs. */
export interface Command {
  spec: CommandSpec;
  load(): Promise<Run>;
}

const OVERRIDE_FLAGS = {
  ...KUBE,
  for: { type: "string" },
  until: { type: "string" },
  reason: { type: "string" },
  name: { type: "string" },
  "no-wait": { type: "boolean" },
  output: OUTPUT,
} as const;

/** `fluxgate open` or `fluxgate freeze` (open.ts). */
function overrideSpec(action: "Open" | "Freeze"): CommandSpec {
  const verb = action === "Open" ? "open" : "freeze";
  return {
    usage: `fluxgate ${verb} WINDOW (--for D | --until T) --reason TEXT [--name NAME] [-n NS] [--no-wait] [-o text|json|yaml]`,
    summary:
      action === "Open"
        ? "Open a window now, even in a freeze, until an end at most 7 days ahead"
        : "Freeze a window now, even when it is open, until an end at most 7 days ahead",
    help: `Creates a WindowOverride (action ${action}) in the window's namespace, named
<window>-${verb}-<UTC time> unless --name says otherwise, and waits until the controller took it
and the targets followed (--no-wait: return at once). It ends on its own at its end; end it
sooner with "fluxgate overrides cancel NAME". ${action === "Open" ? "A Freeze override still beats it." : "It beats every Open override and schedule."}
--for is a Go duration (90m, 2h, 36h; at most 168h); --until is RFC 3339 (2026-11-23T18:00:00Z)
or a local time in the window's zone (2026-11-23T18:00). The reason is required: it is shown in
status, events and by "fluxgate overrides". -o json|yaml prints the WindowOverride.${action === "Freeze" ? '\nA window named "import" goes last, after "--" (fluxgate freeze --for 1h --reason ... -- import):\n"fluxgate freeze import" imports a calendar\'s freezes into the repository (fluxgate freeze import --help).' : ""}
${KUBE_HELP}

Examples:
  fluxgate ${verb} weekday-changes -n flux-system --for 2h --reason "${action === "Open" ? "hotfix INC-4711, approved by the on-call lead" : "incident INC-4712: stop all rollouts"}"
  fluxgate ${verb} weekday-changes -n flux-system --until 2026-11-23T18:00 --reason "${action === "Open" ? "planned migration, CHG-981" : "customer demo until 18:00"}"`,
    options: OVERRIDE_FLAGS,
    args: { min: 1, max: 1, names: "WINDOW" },
  };
}

/** `fluxgate status` (status.ts). */
const status: CommandSpec = {
  usage: "fluxgate status [-n NS | -A] [-o table|wide|json|yaml] [--watch]",
  summary: "Show each window's state, next change, targets and what waits",
  help: `One row per window: STATE (Open, Closed, Frozen, Overridden; Invalid when its spec is rejected,
Unknown until the controller reports), SINCE when, the NEXT change (relative, and in the
window's zone), TARGETS open of those it selects, PENDING targets with a revision waiting, and the
OVERRIDE that decides. Below the table: the targets waiting for a window, and what needs
attention. -o wide adds MODE and REASON. -o json prints {"windows": [{"namespace", "name",
"state", "since", "nextTransition", "targets": {"matched", "open"}, "pending", "override"}]}
with times in RFC 3339 UTC. --watch (-w) redraws on every change until Ctrl-C (with -o json:
one line per change).
${KUBE_HELP}
  -A, --all-namespaces     every namespace

Examples:
  fluxgate status -A
  fluxgate status -n flux-system --watch
  fluxgate status -A -o json | jq '.windows[] | select(.pending > 0)'`,
  options: { ...KUBE, ...ALL_NAMESPACES, output: OUTPUT, watch: { type: "boolean", short: "w" } },
};

/** `fluxgate explain` (explain.ts). */
const explain: CommandSpec = {
  usage: "fluxgate explain KIND/NAME [-n NS] [-o text|json|yaml]",
  summary: "Explain what decides one Flux object: windows, overrides, rule, revisions, next change",
  help: `For one Flux object (kustomization/NAME, helmrelease/NAME, ks/NAME, hr/NAME, ...): the decision
now (may it take changes?) and the rule that made it — which schedule, freeze or override of
which window — and which other windows it beats; the next change; spec.suspend and who set
it; the revision applied and the one waiting; every window that selects it, with what it alone
would decide; and the overrides of those windows. -o json|yaml prints the same as a stable
structure (docs/cli.md).
${KUBE_HELP}

Examples:
  fluxgate explain kustomization/apps-rw -n flux-system
  fluxgate explain hr/podinfo -n apps -o json`,
  options: { ...KUBE, output: OUTPUT },
  args: { min: 1, max: 2, names: "KIND/NAME" },
};

/** `fluxgate overrides` (overrides.ts). */
const overrides: CommandSpec = {
  usage: "fluxgate overrides [list | cancel NAME] [-n NS | -A] [-o table|wide|json|yaml] [--no-wait]",
  summary: "List the overrides (break-glass opens and freezes), or cancel one",
  help: `list (the default) shows every WindowOverride, those in force first: WINDOW, ACTION, UNTIL
(relative, and in the window's zone), PHASE (Active, Expired, Cancelled, WindowNotFound, Invalid)
and REASON; expired and cancelled ones stay as a record until deleted. -o wide adds CREATED and
BY (who created it, when fluxgate open or freeze did). -o json prints {"overrides": [{"namespace", "name", "window", "action", "until",
"reason", "phase", "active", "createdAt", "requestedBy", "cancelledAt", "cancelledBy"}]}.
cancel NAME ends the override now and keeps it as a record: it sets the annotations
fluxgate.io/cancelled-at and fluxgate.io/cancelled-by (you, as the cluster knows you); the
controller ends it there (phase Cancelled, event OverrideCancelled), the window follows its
schedule again, and the command waits until the controller saw it (--no-wait: return at once).
${KUBE_HELP}
  -A, --all-namespaces     every namespace (list)

Examples:
  fluxgate overrides -A
  fluxgate overrides cancel weekday-changes-open-20261123-070000 -n flux-system`,
  options: { ...KUBE, ...ALL_NAMESPACES, output: OUTPUT, "no-wait": { type: "boolean" } },
  args: { min: 0, max: 2, names: "[list|cancel NAME]" },
};

/** `fluxgate release` (release.ts). */
const release: CommandSpec = {
  usage: "fluxgate release --all [-n NS | -A] [--dry-run] [-o text|json|yaml]",
  summary: "Give back everything fluxgate holds on Flux objects, without its CRDs or controller",
  help: `The way out when fluxgate is gone but its effects are not (the CRDs deleted while the
controller was down, say): for every Flux kind the cluster serves (Kustomization, HelmRelease,
ImageUpdateAutomation, GitRepository, OCIRepository, HelmRepository, HelmChart, Bucket), each
object whose fields the field manager "fluxgate" owns gets them back by a server-side apply of an
empty object under that manager: spec.suspend fluxgate set goes away (the target resumes, unless
another manager also sets it) and so does the reconcile.fluxcd.io/requestedAt annotation. Gated
sources fluxgate created for Gate-mode windows (label fluxgate.io/window or
fluxgate.io/released-from) are kept, their spec untouched: their
ownerReference to the window is removed, so garbage collection cannot delete them, and the
targets that use them are listed, to point back at the upstream source. Needs no fluxgate CRD;
stop the controller first, or it takes the targets again. --dry-run lists what it would do and
changes nothing. -o json prints {"dryRun", "released": [{"kind", "namespace", "name", "fields",
"suspendBefore", "suspendAfter", "alsoSetBy"}], "gatedSources": [{"kind", "namespace", "name",
"window", "pinned", "ownerReferenceRemoved", "referencedBy"}], "notes"}.
${KUBE_HELP}
  -A, --all-namespaces     every namespace

Examples:
  fluxgate release --all -A --dry-run
  fluxgate release --all -A
  fluxgate release --all -n flux-system -o json`,
  options: { ...KUBE, ...ALL_NAMESPACES, all: { type: "boolean" }, "dry-run": { type: "boolean" }, output: OUTPUT },
};

/** `fluxgate schedule preview` (schedule-preview.ts). */
const schedulePreview: CommandSpec = {
  usage:
    "fluxgate schedule preview (WINDOW [-n NS] | --file WINDOW.yaml [--name NAME] | --start CRON (--end CRON | --duration D) [--tz ZONE] | --recurrence RRULE --at HH:MM (--end-at HH:MM | --duration D) [--dtstart DATE] [--exdate DATE ...] [--tz ZONE]) [--holidays CC[-SUB] ...] [--from T] [--to T] [-o table|json|yaml]",
  summary: "Show when a window is open over a range of time",
  help: `Shows the merged open intervals of a window (allow schedules minus freezes) between --from
and --to (RFC 3339, to the second: a fraction is cut; default: now to now + 7 days), in the
window's zone and in UTC, with a text timeline. -o json prints {"timeZone": ..., "open":
[{"start": ..., "end": ...}]} in UTC.
WINDOW previews a window in the cluster (--kubeconfig, --context, -n as kubectl's), with the
overrides it has. --recurrence previews one schedule given by an RFC 5545 rule (docs/schedules.md).
--holidays adds a freeze of a country's public holidays (DE) or a subdivision's (DE-BY) to the
schedule of --start or --recurrence: whole days in --tz, each named (docs/schedules.md#public-holidays).

Examples:
  fluxgate schedule preview weekday-changes -n flux-system
  fluxgate schedule preview --file config/samples/fluxgate.io_v1alpha1_reconciliationwindow.yaml
  fluxgate schedule preview --start "0 8 * * MON" --end "0 17 * * THU" --tz Europe/Berlin
  fluxgate schedule preview --start "30 2 * * *" --duration 1h --tz Europe/Berlin \\
      --from 2026-03-28T00:00:00Z --to 2026-03-31T00:00:00Z -o json
  fluxgate schedule preview --recurrence "FREQ=MONTHLY;BYDAY=2SU" --at 02:00 --duration 4h --tz Europe/Berlin
  fluxgate schedule preview --start "0 8 * * MON-FRI" --duration 9h --tz Europe/Berlin --holidays DE-BY`,
  options: {
    file: { type: "string", short: "f" },
    name: { type: "string" },
    start: { type: "string" },
    end: { type: "string" },
    duration: { type: "string" },
    recurrence: { type: "string" },
    at: { type: "string" },
    "end-at": { type: "string" },
    dtstart: { type: "string" },
    exdate: { type: "string", multiple: true },
    holidays: { type: "string", multiple: true },
    tz: { type: "string" },
    from: { type: "string" },
    to: { type: "string" },
    output: OUTPUT,
    ...KUBE,
  },
  args: { min: 0, max: 1, names: "WINDOW" },
};

/** `fluxgate controller` (controller.ts; from its bundle in a build, controller-bundle.ts). */
const controller: CommandSpec = {
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
                             takes over at most this plus two retry periods (D/7.5) after the leader dies
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

/** `fluxgate approve` (approve.ts). */
const approve: CommandSpec = {
  usage: 'fluxgate approve WINDOW --revision REV --reason "..." [-n NS] [--kubeconfig FILE] [--context NAME]',
  summary: "Promote one revision of a Gate-mode window outside its window",
  help: `Records on the window who approved which revision, why and when; the controller pins the
window's gated source to that revision once (even while the window is closed) and keeps the
record in status.gate.approved. REV is a Git commit (40 hex, or Flux's "main@sha1:<sha>") or an
OCI digest ("sha256:<hex>"). For a Suspend-mode window use "fluxgate open" instead.

Examples:
  fluxgate approve weekday-changes -n flux-system --revision main@sha1:3f2a9c1d0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a49 --reason "hotfix for INC-42"`,
  options: {
    revision: { type: "string" },
    reason: { type: "string" },
    namespace: { type: "string", short: "n" },
    kubeconfig: { type: "string" },
    context: { type: "string" },
  },
  args: { min: 1, max: 1, names: "WINDOW" },
};

/** `fluxgate check` (check.ts). */
const check: CommandSpec = {
  usage:
    "fluxgate check REPO [--cluster NAME|PATH ... | --selector SELECTOR] [--kustomization NAME=PATH ...] [--source NAME] [-o text|json|sarif] [--strict] [--kustomize PATH]",
  summary: "Check a GitOps repository's clusters for what would break windows",
  help: `Renders every Flux Kustomization of each cluster with kustomize (in parallel, cached by
content) and reports findings: duplicate-object, suspend-in-git, window-in-window,
cross-type-reference, unmatched-target, ungoverned-window-type, invalid-schedule, mode-conflict,
pinned-ref-in-git, source-not-gated, cronjob-window, cronjob-window-ambiguous,
cronjob-window-never-runs, kustomize-build-failed, fleet-patch-not-applied,
fleet-window-unselected, fleet-window-not-included, fleet-folder-not-included,
cluster-identity-missing, cluster-identity-mismatch (see docs/gitops.md).
Clusters: --cluster (a name from fluxgate.yaml or a bootstrap path; repeatable), else every
cluster of fluxgate.yaml, else every directory with a flux-system/ bootstrap; --selector
(Kubernetes label-selector syntax, e.g. ring=prod,region in (eu,us)) takes the clusters of
fluxgate.yaml whose labels match. --kustomization
adds an entry point created outside Git (flux create kustomization); with no cluster root in
the repository, the entry points alone are the cluster. Their children are followed whatever
their GitRepository is called, or only those of --source NAME. kustomize: --kustomize,
FLUXGATE_KUSTOMIZE, kustomize on PATH, the one npm run tools built, or kubectl kustomize; the
text output says which. Exit 1 when a finding is an error (--strict: or a warning), else 0.
-o json prints {"findings": [{"rule", "severity", "file", "object", "message", "cluster",
"line"}]}; -o sarif prints SARIF 2.1.0.

Examples:
  fluxgate check .
  fluxgate check . --cluster clusters/edge-berlin -o sarif > fluxgate.sarif
  fluxgate check . --selector ring=prod
  fluxgate check . --cluster clusters/lab --kustomization apps=./deploy/lab --strict
  fluxgate check . --kustomization bootstrap=./platform/flux --source source`,
  options: {
    cluster: { type: "string", multiple: true },
    selector: { type: "string", short: "l" },
    kustomization: { type: "string", multiple: true },
    source: { type: "string" },
    strict: { type: "boolean" },
    kustomize: { type: "string" },
    output: OUTPUT,
  },
  args: { min: 1, max: 1, names: "REPO" },
};

/** `fluxgate init` (init.ts). */
const init: CommandSpec = {
  usage:
    "fluxgate init REPO (--cluster NAME [--path PATH] | --selector SELECTOR) [--types rt,rw] [--time-zone ZONE] [--status-url URL] [--fleet-folder] [--dry-run]",
  summary: "Scaffold the window-enabled layout of a cluster in a GitOps repository",
  help: `Adds the cluster (and the types) to fluxgate.yaml, and writes what is missing of the layout
(docs/gitops.md): per type a Flux Kustomization apps-<type> in the cluster's directory and an
entry directory deploy/<cluster>/<type>; per window type a ReconciliationWindow in the
cluster's windows/ (a placeholder schedule to edit), unless a fleet window the cluster includes
already governs its Kustomization. Window types depend on the real-time
types. Files that exist are kept; running it again changes nothing.
--types lists the types: the first is real time and the others window types, unless a name
says :window or :realtime (default: rt,rw, or the types fluxgate.yaml has). --time-zone is the
zone of the cluster's windows (default UTC). --selector (Kubernetes label-selector syntax, e.g.
ring=prod) instead of --cluster sets up every cluster of fluxgate.yaml whose labels match, e.g.
after --types added a type. --status-url URL also writes the cluster's fluxgate-status.yaml: the
Provider (generic-hmac) and Alert that push its status, signed, to fluxgate serve at URL; the
Secret holding the key is only described in a comment (create it in the cluster; the key is
never in Git). --fleet-folder starts the fleet folder (fleet/kustomization.yaml, where fleet
windows and freezes go as a few files whatever the fleet's size) when the repository has none,
and includes it in the cluster's windows; in a repository that has it, init always includes it.
--fleet-folder is refused, writing nothing, where the fleet windows are in the per-cluster
layout (fleet/windows/ without fleet/kustomization.yaml): fluxgate fleet migrate moves them
into the fleet folder.
--dry-run prints the unified diff and writes nothing.

Examples:
  fluxgate init . --cluster edge-berlin --time-zone Europe/Berlin --fleet-folder
  fluxgate init . --cluster edge-paris --types rt,rw,nightly --dry-run
  fluxgate init . --selector ring=prod --types rt,rw,nightly
  fluxgate init . --cluster edge-berlin --status-url https://fluxgate.example.com`,
  options: {
    cluster: { type: "string" },
    selector: { type: "string", short: "l" },
    path: { type: "string" },
    types: { type: "string" },
    "time-zone": { type: "string" },
    "status-url": { type: "string" },
    "fleet-folder": { type: "boolean" },
    "dry-run": { type: "boolean" },
  },
  args: { min: 1, max: 1, names: "REPO" },
};

/** `fluxgate migrate` (migrate.ts). */
const migrate: CommandSpec = {
  usage:
    "fluxgate migrate REPO --cluster NAME|PATH [--time-zone ZONE] [-o yaml|json] [--write | --dry-run] [--force] [--kustomization NAME=PATH ...] [--source NAME] [--kustomize PATH]",
  summary: "Turn CronJob windows (flux suspend/resume jobs) into ReconciliationWindows, with a proof",
  help: `Renders the cluster with kustomize (its patches applied), finds CronJobs that run
"flux suspend|resume kustomization ..." (or helmrelease, source ...) or "kubectl patch ... suspend",
and writes the equivalent ReconciliationWindows: the same targets, each resume schedule as a start
and the suspend schedule after it as its end, in the CronJobs' spec.timeZone (CronJobs without one
run in kube-controller-manager's zone: UTC, or --time-zone). Each window comes with a proof: the
open intervals of the CronJobs and of the window over the next 366 days, compared; every
difference is listed (CronJobs skip a run in a spring-forward gap and run twice in a repeated hour).
Exit 1 when a proof finds a difference.
--write replaces the CronJobs, their ServiceAccount, RoleBindings and Roles (when nothing else uses
them) and the patches that target them with the windows, in the cluster's windows/ directory;
it writes nothing when a proof found a difference, unless --force. --dry-run prints the diff
that --write would apply.
CronJobs with spec.suspend: true never run and are skipped, with the reason; so are a resume
and a suspend that run at the same instants (their order is not defined). A target the cluster
does not have is kept in the window, with a warning. In a repository set up with flux create
(no cluster root), --kustomization NAME=PATH names the entry points and --cluster may be left out.

Examples:
  fluxgate migrate . --cluster clusters/edge-berlin
  fluxgate migrate . --cluster edge-berlin -o json
  fluxgate migrate . --cluster edge-berlin --dry-run
  fluxgate migrate . --cluster edge-berlin --write
  fluxgate migrate . --kustomization bootstrap=./platform/flux --write`,
  options: {
    cluster: { type: "string" },
    kustomization: { type: "string", multiple: true },
    source: { type: "string" },
    "time-zone": { type: "string" },
    write: { type: "boolean" },
    "dry-run": { type: "boolean" },
    force: { type: "boolean" },
    kustomize: { type: "string" },
    output: OUTPUT,
  },
  args: { min: 1, max: 1, names: "REPO" },
};

/** `fluxgate serve` (serve.ts). */
const serve: CommandSpec = {
  usage:
    "fluxgate serve [--repo PATH] [--host H] [--port P] [--tokens-file F] [--anonymous-read] [--cluster-context NAME=CONTEXT ...] [--kubeconfig F] [--sync-interval D] [--render-targets] [--cluster-keys F [--store URL|FILE] [--stale-after D]]",
  summary: "Serve the REST API and dashboard over a Git working copy",
  help: `Serves the Config Service: the REST API (/api/v1, OpenAPI at /openapi.json, docs at /docs)
and the dashboard (/) over the Git working copy --repo, laid out as "fluxgate init" does. Every
write is one commit, authored by the token's holder and pushed to origin when there is one.
Callers need a bearer token from --tokens-file (add them with "fluxgate serve token add");
--anonymous-read lets anyone read. --cluster-context NAME=CONTEXT (repeatable) connects a
cluster of fluxgate.yaml to a kubeconfig context for live status and direct overrides.
--render-targets renders each cluster with kustomize (as "fluxgate check" does), so that Flux
objects a kustomize base declares get per-target lanes too, not only those in the cluster's directory.
--cluster-keys F turns on the event receiver: clusters push their fluxgate events, signed with
their key (add one with "fluxgate serve cluster-key add"), through a Flux Provider of type
generic-hmac; the service keeps each cluster's last word in --store (a SQLite file, by default
status.db in the data directory, or a postgres:// URL shared by several replicas) and shows a
cluster silent for longer than --stale-after (default 15m) as stale.
Without --repo, serves an example fleet from the data directory and prints tokens for it.
See docs/config-service.md.

Examples:
  fluxgate serve
  fluxgate serve --repo ./fleet --tokens-file tokens.yaml --port 8080
  fluxgate serve --repo ./fleet --tokens-file tokens.yaml --cluster-context edge-berlin=kind-berlin
  fluxgate serve --repo ./fleet --tokens-file tokens.yaml --cluster-keys cluster-keys.yaml --store postgres://fluxgate@db/fluxgate`,
  options: {
    repo: { type: "string" },
    host: { type: "string" },
    port: { type: "string" },
    "tokens-file": { type: "string" },
    "anonymous-read": { type: "boolean" },
    "cluster-context": { type: "string", multiple: true },
    kubeconfig: { type: "string" },
    "sync-interval": { type: "string" },
    "render-targets": { type: "boolean" },
    "cluster-keys": { type: "string" },
    store: { type: "string" },
    "stale-after": { type: "string" },
  },
};

/** `fluxgate serve token add` (serve.ts). */
const serveTokenAdd: CommandSpec = {
  usage: "fluxgate serve token add --tokens-file F --name NAME --role viewer|editor|breakglass [--email E]",
  summary: "Add a token for the Config Service and print it once",
  help: `Creates a random token, stores only its SHA-256 hash in the tokens file (created with mode
0600 when missing; a running service reads it again within a second) and prints the token:
it is never shown again. NAME is the author of the commits made with it (email: --email, else
NAME@fluxgate.invalid). Roles: viewer reads; editor also changes windows and commits overrides;
breakglass reads and creates overrides, also directly in a cluster.

Examples:
  fluxgate serve token add --tokens-file tokens.yaml --name alice --role editor --email alice@example.com
  fluxgate serve token add --tokens-file tokens.yaml --name grafana --role viewer`,
  options: {
    "tokens-file": { type: "string" },
    name: { type: "string" },
    role: { type: "string" },
    email: { type: "string" },
  },
};

/** `fluxgate serve cluster-key add` (serve.ts). */
const serveClusterKeyAdd: CommandSpec = {
  usage: "fluxgate serve cluster-key add --keys-file F --cluster NAME [--url URL] [--rotate]",
  summary: "Add the key a cluster signs its pushed events with, and print it once",
  help: `Creates a random key for cluster NAME, stores it in the keys file (created with mode 0600
when missing: the service needs the key itself to check signatures, so the file is a secret) and
prints it once, with the command that creates the cluster's Secret and the Provider (type
generic-hmac) and Alert to commit under the cluster's directory. --url is the address clusters
reach "fluxgate serve" at. --rotate replaces the cluster's key. A running "fluxgate serve
--cluster-keys F" reads the file again within a second. See docs/config-service.md.

Examples:
  fluxgate serve cluster-key add --keys-file cluster-keys.yaml --cluster edge-berlin --url https://fluxgate.example.com
  fluxgate serve cluster-key add --keys-file cluster-keys.yaml --cluster edge-berlin --rotate`,
  options: {
    "keys-file": { type: "string" },
    cluster: { type: "string" },
    url: { type: "string" },
    rotate: { type: "boolean" },
  },
};

/** `fluxgate split` (split.ts). */
const split: CommandSpec = {
  usage:
    "fluxgate split APP_DIR --type TYPE=KIND|FILE,... [--type ...] [--default TYPE] [--cluster NAME|PATH ...] [--kustomization NAME=PATH ...] [--source NAME] [--repo PATH] [--dry-run] [--kustomize PATH]",
  summary: "Split an application into one variant per type, and point each cluster at the right variant",
  help: `Moves the manifests of a kustomize directory (apps/<app>) into <app>-<type> variants next to
it: each object goes to the type of its fluxgate.io/type label, else of its file (--type
rt=config/*.yaml), else of its kind (--type rt=ConfigMap,Secret), else --default. Multi-document
files are cut by document; comments stay. Each variant gets the kustomization.yaml of the app
with the resources, patches and generators of its objects. Every kustomization.yaml that used
the app is rewritten: an entry directory of a type (the path of apps-<type>) lists that type's
variant, and the cluster's entries of the other types list theirs (with the patches of their
objects); any other kustomization lists all variants. --cluster rewrites only those clusters
(the app stays for the others). --kustomization and --source name entry points created with
flux create kustomization, as for check.
Before writing, every cluster is rendered with kustomize before and after the split (in a copy
of the repository): the objects must be the same, nothing lost, nothing twice; otherwise
nothing is written. --dry-run prints the diff and writes nothing.

Examples:
  fluxgate split apps/podinfo --type rt=ConfigMap,Secret --type rw=Deployment,Service --dry-run
  fluxgate split apps/podinfo --type rt=ConfigMap --default rw --cluster edge-berlin`,
  options: {
    type: { type: "string", multiple: true },
    default: { type: "string" },
    cluster: { type: "string", multiple: true },
    kustomization: { type: "string", multiple: true },
    source: { type: "string" },
    repo: { type: "string" },
    "dry-run": { type: "boolean" },
    kustomize: { type: "string" },
  },
  args: { min: 1, max: 1, names: "APP_DIR" },
};

/** `fluxgate fleet window add` (fleet-windows.ts). */
const fleetWindowAdd: CommandSpec = {
  usage:
    "fluxgate fleet window add NAME --selector SELECTOR (--start CRON (--end CRON | --duration D) [--time-zone ZONE] --target KIND/NAME ... | --file W.yaml) [--repo PATH] [--dry-run]",
  summary: "Add one window shared by every cluster whose labels match a selector",
  help: `Writes the window once, as a kustomize base under fleet/windows/NAME/ (NAME.yaml and a
kustomization.yaml), and adds it to the resources of the windows/kustomization.yaml of every
cluster of fluxgate.yaml whose labels match --selector (Kubernetes label-selector syntax, e.g.
ring=prod,region in (eu,us)); comments stay. The window carries the label
fluxgate.io/fleet-window: NAME and the annotation fluxgate.io/fleet-selector (the selector),
which fluxgate check compares with the clusters' labels. The window is --file (a
ReconciliationWindow manifest), or one schedule from --start with --end or --duration, in
--time-zone (default UTC), governing each --target KIND/NAME. Refused, with nothing written: a
bad name, selector or window, a selector no cluster matches, a fleet window that exists, a
selected cluster without windows/kustomization.yaml or with a window of that name.
--repo is the repository (default: the current directory). The change is one commit for the
whole fleet; --dry-run prints the diff and writes nothing.

Examples:
  fluxgate fleet window add prod-changes --selector ring=prod --start "0 8 * * MON-THU" --end "0 17 * * MON-THU" --time-zone Europe/Berlin --target Kustomization/apps-rw
  fluxgate fleet window add eu-nightly --selector "region in (eu)" --file nightly.yaml --dry-run`,
  options: {
    selector: { type: "string", short: "l" },
    start: { type: "string" },
    end: { type: "string" },
    duration: { type: "string" },
    "time-zone": { type: "string" },
    target: { type: "string", multiple: true },
    file: { type: "string", short: "f" },
    repo: { type: "string" },
    "dry-run": { type: "boolean" },
  },
  args: { min: 1, max: 1, names: "NAME" },
};

/** `fluxgate fleet window patch` (fleet-windows.ts). */
const fleetWindowPatch: CommandSpec = {
  usage: "fluxgate fleet window patch NAME --cluster NAME ([--time-zone ZONE] [--start CRON (--end CRON | --duration D)] | --remove) [--repo PATH] [--dry-run]",
  summary: "Patch a fleet window for one cluster that differs (its zone, its schedule), or remove that patch",
  help: `Writes a kustomize patch in the cluster's windows/kustomization.yaml (patches: with target
kind ReconciliationWindow, name NAME): --time-zone sets the window's zone on this cluster,
--start with --end or --duration replaces its schedules. A patch the cluster already has for
the window keeps what this one does not change. The patched window is validated before
anything is written; what the cluster runs is what kustomize renders (fluxgate check). Refused:
a cluster that does not include the fleet window, a fleet window that does not exist, nothing
to change. The change is one commit for one cluster; --dry-run prints the diff.

--remove takes the cluster's patch of the window away (every patches entry whose target is
ReconciliationWindow NAME, and patches: when none is left), so the cluster takes the base as
it is again. Refused when the cluster has no such patch.

Examples:
  fluxgate fleet window patch prod-changes --cluster edge-tokyo --time-zone Asia/Tokyo
  fluxgate fleet window patch prod-changes --cluster edge-berlin --start "0 10 * * MON-THU" --end "0 17 * * MON-THU" --dry-run
  fluxgate fleet window patch prod-changes --cluster edge-tokyo --remove`,
  options: {
    cluster: { type: "string" },
    "time-zone": { type: "string" },
    start: { type: "string" },
    end: { type: "string" },
    duration: { type: "string" },
    remove: { type: "boolean" },
    repo: { type: "string" },
    "dry-run": { type: "boolean" },
  },
  args: { min: 1, max: 1, names: "NAME" },
};

/** `fluxgate fleet window list` (fleet-windows.ts). */
const fleetWindowList: CommandSpec = {
  usage: "fluxgate fleet window list [--selector SELECTOR] [--repo PATH] [-o table|json]",
  summary: "List the fleet windows and the clusters that include or patch them",
  help: `One line per fleet window (fleet/windows/*): its selector, the clusters whose
windows/kustomization.yaml includes it (* after one that patches it, ! after one whose labels no
longer match the selector), and the clusters the selector matches that do not include it.
--selector shows only clusters whose labels match. -o json prints {"fleetWindows": [{"name",
"selector", "file", "clusters": [{"name", "patched", "labelsMatch"}], "missing"}]}.

Examples:
  fluxgate fleet window list
  fluxgate fleet window list --selector region=eu -o json`,
  options: { selector: { type: "string", short: "l" }, repo: { type: "string" }, output: OUTPUT },
  args: { min: 0, max: 0, names: "" },
};

/** `fluxgate fleet window remove` (fleet-windows.ts). */
const fleetWindowRemove: CommandSpec = {
  usage: "fluxgate fleet window remove NAME [--repo PATH] [--dry-run]",
  summary: "Remove a fleet window from every cluster, in one change to the repository",
  help: `Removes the fleet window's base (fleet/windows/NAME/), its entry in fleet/kustomization.yaml
(with the fleet folder; else its entry in each including cluster's windows/kustomization.yaml),
and the patches of it that clusters keep. Flux prunes the window from every cluster once the
change is committed and pushed. Refused when the fleet window does not exist. --dry-run prints
the diff.

Examples:
  fluxgate fleet window remove eu-nightly --dry-run`,
  options: { repo: { type: "string" }, "dry-run": { type: "boolean" } },
  args: { min: 1, max: 1, names: "NAME" },
};

/** `fluxgate fleet migrate` (fleet-migrate.ts). */
const fleetMigrate: CommandSpec = {
  usage: "fluxgate fleet migrate [--repo PATH] [--dry-run] [--kustomize PATH]",
  summary: "Convert the repository to the fleet folder, proving that no cluster's windows change",
  help: `Every cluster's windows/kustomization.yaml then includes the fleet folder (../../../fleet)
once instead of each fleet window, and lists the cluster's identity (fluxgate-cluster.yaml,
written from fluxgate.yaml); each fleet window carries its selector as spec.clusterSelector;
fleet/kustomization.yaml lists the fleet windows. From then on, adding, changing or removing a
fleet window, and starting or ending a fleet freeze, changes fleet/ alone: a few files whatever
the fleet's size. Before anything is written, every cluster's windows are rendered with the real
kustomize before and after, and must be the same; nothing is written otherwise. A repository
that has the fleet folder beside fleet windows it does not list, or clusters that do not include
it, is converted likewise. Refused: a repository with nothing left to convert, a fleet window
without a selector, a cluster that does not include exactly the fleet windows its labels select.
--dry-run prints the diff and the proof.

Examples:
  fluxgate fleet migrate --dry-run
  fluxgate fleet migrate --repo ../fleet`,
  options: { repo: { type: "string" }, "dry-run": { type: "boolean" }, kustomize: { type: "string" } },
  args: { min: 0, max: 0, names: "" },
};

/** `fluxgate fleet freeze` (fleet-freeze.ts). */
const fleetFreeze: CommandSpec = {
  usage:
    "fluxgate fleet freeze --selector SELECTOR (--for D | --until T) --reason TEXT [--name NAME] [--window NAME ...] [--repo PATH] [--dry-run] [--kustomize PATH]",
  summary: "Stop changes now on every cluster whose labels match a selector, in one change to the repository",
  help: `Adds a WindowOverride with action Freeze for every window of every cluster of fluxgate.yaml
whose labels match --selector (Kubernetes label-selector syntax, e.g. region=eu): the windows a
cluster runs are what kustomize renders of its windows/ folder (fleet windows included);
--window limits it to those windows. Each override is clusters/<cluster>/windows/overrides/
NAME-<window>.yaml (listed in windows/kustomization.yaml, the layout of the Config Service's
overrides), labelled fluxgate.io/fleet-override: NAME and stamped fluxgate.io/requested-at, so
the freeze is listed and ended as one. NAME defaults to fleet-freeze-<UTC time>. --for is a Go
duration in whole seconds (48h: it ends 48 h after requested-at), --until an RFC 3339 time with a
zone; at most 7 days ahead. Refused, with nothing
written: no --reason, no end or both, an end in the past or too far, a selector no cluster
matches, a matching cluster with no window (or none of --window), a name in use, a cluster
whose windows do not build. Commit and push the change to apply it: one commit for the fleet.
--dry-run prints the diff.

Examples:
  fluxgate fleet freeze --selector region=eu --for 48h --reason "incident INC-7 in region eu"
  fluxgate fleet freeze --selector "ring in (prod)" --until 2026-12-24T18:00:00Z --reason "holiday freeze" --name holidays --dry-run`,
  options: {
    selector: { type: "string", short: "l" },
    for: { type: "string" },
    until: { type: "string" },
    reason: { type: "string" },
    name: { type: "string" },
    window: { type: "string", multiple: true },
    repo: { type: "string" },
    "dry-run": { type: "boolean" },
    kustomize: { type: "string" },
  },
};

/** `fluxgate fleet freeze list` (fleet-freeze.ts). */
const fleetFreezeList: CommandSpec = {
  usage: "fluxgate fleet freeze list [--selector SELECTOR] [--repo PATH] [-o table|json]",
  summary: "List the fleet freezes of the repository",
  help: `One line per fleet freeze (overrides labelled fluxgate.io/fleet-override in the clusters'
windows/overrides/): NAME, ACTION, UNTIL, STAGE (pending, active, expired), CLUSTERS and REASON.
--selector (Kubernetes label-selector syntax) keeps each freeze's part on the clusters whose
labels match, and the freezes that have one.
-o json prints {"fleetOverrides": [{"name", "action", "until", "reason", "requestedAt", "stage",
"overrides": [{"cluster", "name", "window", "file"}]}]}.

Examples:
  fluxgate fleet freeze list
  fluxgate fleet freeze list --repo ../fleet -o json
  fluxgate fleet freeze list --selector region=eu`,
  options: { selector: { type: "string", short: "l" }, repo: { type: "string" }, output: OUTPUT },
};

/** `fluxgate fleet freeze end` (fleet-freeze.ts). */
const fleetFreezeEnd: CommandSpec = {
  usage: "fluxgate fleet freeze end NAME [--repo PATH] [--dry-run]",
  summary: "End a fleet freeze on every cluster, in one change to the repository",
  help: `Removes every override of the fleet freeze NAME from the clusters' windows/overrides/ and
their entries from windows/kustomization.yaml; Flux prunes them once the change is committed
and pushed (Git keeps the record). Refused when no override carries the name. --dry-run prints
the diff.

Examples:
  fluxgate fleet freeze end fleet-freeze-20261124-090000
  fluxgate fleet freeze end holidays --dry-run`,
  options: { repo: { type: "string" }, "dry-run": { type: "boolean" } },
  args: { min: 1, max: 1, names: "NAME" },
};

/** `fluxgate freeze import` (freeze-import.ts). */
const freezeImport: CommandSpec = {
  usage: "fluxgate freeze import CALENDAR.ics (--window NAME [--cluster NAME] | --fleet-window NAME [--kustomize PATH]) [--prune] [--repo PATH] [--dry-run]",
  summary: "Write a calendar's events (.ics) as freezes of a window in the repository, updated by UID on each import",
  help: `Reads CALENDAR.ics (RFC 5545, as Outlook, Google Calendar and others export it) and writes each
event as a freeze of the window, with the event's SUMMARY as its reason and its UID in the
freeze's uid: a one-off event becomes from/to in the window's time zone (TZID, UTC and floating
times converted exactly), an all-day event whole local days, a recurring event (RRULE with
EXDATE) a recurrence freeze, written only when it means exactly the calendar's occurrences in the
window's zone (checked occurrence by occurrence over ten years).

Importing again updates by UID: an event imported before replaces its freeze, a new one is
added, a cancelled one (STATUS:CANCELLED) is removed; a freeze whose event is gone from the
calendar is kept unless --prune is given. Freezes without a uid (written by hand) are never
touched. An event that cannot be a freeze is refused by name (SUMMARY and UID) with the reason —
RECURRENCE-ID, RDATE, no UID or SUMMARY, an event longer than 366 days, a recurring event whose
zone moves against the window's — and nothing is written. The window is validated as the
controller validates it before the file is written.

--window NAME is clusters/<cluster>/windows/NAME.yaml (--cluster says which when several clusters
have one); --fleet-window NAME is fleet/windows/NAME/NAME.yaml, one change for every cluster that
takes it. A fleet window's one-off timed events are written with their UTC offset, the same
instants on every cluster; all-day events are whole local days of each cluster; a recurring event
must be exact in the zone of every cluster that takes the window (kustomize renders each cluster's
windows/ to learn it; --kustomize PATH says which kustomize). Commit and push the change to apply
it; --dry-run prints the diff.

Examples:
  fluxgate freeze import change-freezes.ics --window apps-rw
  fluxgate freeze import holidays.ics --fleet-window prod-changes --dry-run
  fluxgate freeze import team.ics --window apps-rw --cluster edge-paris --prune`,
  options: {
    window: { type: "string" },
    cluster: { type: "string" },
    "fleet-window": { type: "string" },
    prune: { type: "boolean" },
    repo: { type: "string" },
    "dry-run": { type: "boolean" },
    kustomize: { type: "string" },
  },
  args: { min: 1, max: 1, names: "CALENDAR.ics" },
};

/** `fluxgate demo` (demo.ts). */
const demo: CommandSpec = {
  usage: "fluxgate demo [--ci] [--mode Suspend|Gate|both | --fleet] [--keep]",
  summary: "Play the reconciliation-window story on a local cluster with the real Flux controllers",
  help: `Starts a local control plane (etcd, kube-apiserver, Flux's source- and kustomize-controller,
a Git server; built from Go modules on the first run, which needs Go and git),
installs fluxgate's CRDs, runs the controller in this process and plays the users' scenario:
nginx split into nginx-rt (a ConfigMap, real time) and nginx-rw (Deployment and Service, held
by a window that opens at the next whole minute for 30s). It prints a timeline: what was
committed, what Flux applied, what waits and until when, what fluxgate did and why. While the
window is closed it deletes the Deployment: in Suspend mode it stays deleted until the window
opens, in Gate mode Flux recreates it at the pinned revision. Both modes play at the same time,
each in its own namespace; Suspend mode is told first, then Gate mode. Everything is stopped and
removed at the end and on Ctrl-C. See docs/demo.md.

With --fleet, the fleet instead: three clusters in three zones (Berlin, New York, Tokyo), each a
kube-apiserver (one etcd shared under a prefix each) with source-, kustomize- and
notification-controller and a fluxgate controller, one Git server with a fleet repository in
the fleet folder layout (laid out by fluxgate init), and one Config Service receiving every
cluster's pushed status (about 2.2 GiB of memory). A fleet window added through the API in one
commit, each cluster opening at its own local time, a freeze of ring=canary holding one cluster
while the others take a change, its end, and the fleet status from the clusters' pushes; each
fleet commit's files and lines are shown (a few files in fleet/, whatever the fleet's size).

Flags:
  --mode MODE   Suspend, Gate or both (default both)
  --fleet       play the fleet's story instead (not with --mode)
  --ci          play once without a terminal: the timeline goes to stderr and one line per
                expectation ("ok  ..." or "FAIL ...") to stdout; exit 0 only if all held
  --keep        keep the cluster and the controller running after the story, until Ctrl-C

Examples:
  fluxgate demo
  fluxgate demo --mode Gate --keep
  fluxgate demo --ci
  fluxgate demo --fleet`,
  options: {
    ci: { type: "boolean" },
    mode: { type: "string" },
    fleet: { type: "boolean" },
    keep: { type: "boolean" },
  },
};

/** `fluxgate completion` (completion.ts). */
const completion: CommandSpec = {
  usage: "fluxgate completion bash|zsh|fish",
  summary: "Print the shell completion script for bash, zsh or fish",
  help: `Completes commands, flags, -o formats, contexts, namespaces, and from the cluster the flags
point at: window names (open, freeze, schedule preview), objects (explain) and overrides
(overrides cancel). The script asks fluxgate itself, so it never goes stale.

Examples:
  source <(fluxgate completion bash)      # add to ~/.bashrc
  source <(fluxgate completion zsh)       # add to ~/.zshrc
  fluxgate completion fish | source       # add to ~/.config/fish/config.fish`,
  options: {},
  args: { min: 1, max: 1, names: "bash|zsh|fish" },
};

/** `fluxgate __complete` (completion.ts). */
const complete: CommandSpec = {
  hidden: true,
  usage: "fluxgate __complete -- WORD...",
  summary: "Print the completion candidates for the words typed so far (used by the completion scripts)",
  help: "The last word is the one being typed (may be empty). One candidate per line, a tab and a description where there is one.",
  options: {},
  args: { min: 0, max: Infinity, names: "WORD..." },
};

/** `fluxgate version` (version.ts). */
const version: CommandSpec = {
  usage: "fluxgate version [-o text|json]",
  summary: "Print the version of fluxgate",
  help: "Examples:\n  fluxgate version\n  fluxgate version -o json",
  options: { output: OUTPUT },
};

/** Every command by name, in the order of the overview. */
export const COMMANDS: Readonly<Record<string, Command>> = {
  status: { spec: status, load: async () => (await import("./status.ts")).runStatus },
  explain: { spec: explain, load: async () => (await import("./explain.ts")).runExplain },
  open: { spec: overrideSpec("Open"), load: async () => (await import("./open.ts")).runOpen },
  freeze: { spec: overrideSpec("Freeze"), load: async () => (await import("./open.ts")).runFreeze },
  "freeze import": { spec: freezeImport, load: async () => (await import("./freeze-import.ts")).runFreezeImport },
  overrides: { spec: overrides, load: async () => (await import("./overrides.ts")).runOverrides },
  release: { spec: release, load: async () => (await import("./release.ts")).runRelease },
  "schedule preview": { spec: schedulePreview, load: async () => (await import("./schedule-preview.ts")).runSchedulePreview },
  controller: { spec: controller, load: async () => (await import("./controller-bundle.ts")).loadControllerCommand() },
  approve: { spec: approve, load: async () => (await import("./approve.ts")).runApprove },
  check: { spec: check, load: async () => (await import("./check.ts")).runCheck },
  init: { spec: init, load: async () => (await import("./init.ts")).runInit },
  migrate: { spec: migrate, load: async () => (await import("./migrate.ts")).runMigrate },
  serve: { spec: serve, load: async () => (await import("./serve.ts")).runServe },
  "serve token add": { spec: serveTokenAdd, load: async () => (await import("./serve.ts")).runTokenAdd },
  "serve cluster-key add": { spec: serveClusterKeyAdd, load: async () => (await import("./serve.ts")).runClusterKeyAdd },
  split: { spec: split, load: async () => (await import("./split.ts")).runSplit },
  "fleet window add": { spec: fleetWindowAdd, load: async () => (await import("./fleet-windows.ts")).runFleetWindowAdd },
  "fleet window patch": { spec: fleetWindowPatch, load: async () => (await import("./fleet-windows.ts")).runFleetWindowPatch },
  "fleet window list": { spec: fleetWindowList, load: async () => (await import("./fleet-windows.ts")).runFleetWindowList },
  "fleet window remove": { spec: fleetWindowRemove, load: async () => (await import("./fleet-windows.ts")).runFleetWindowRemove },
  "fleet migrate": { spec: fleetMigrate, load: async () => (await import("./fleet-migrate.ts")).runFleetMigrate },
  "fleet freeze": { spec: fleetFreeze, load: async () => (await import("./fleet-freeze.ts")).runFleetFreeze },
  "fleet freeze list": { spec: fleetFreezeList, load: async () => (await import("./fleet-freeze.ts")).runFleetFreezeList },
  "fleet freeze end": { spec: fleetFreezeEnd, load: async () => (await import("./fleet-freeze.ts")).runFleetFreezeEnd },
  demo: { spec: demo, load: async () => (await import("./demo.ts")).runDemo },
  completion: { spec: completion, load: async () => (await import("./completion.ts")).runCompletion },
  __complete: { spec: complete, load: async () => (await import("./completion.ts")).runComplete },
  version: { spec: version, load: async () => (await import("./version.ts")).runVersion },
};
