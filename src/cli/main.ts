#!/usr/bin/env node
// The `fluxgate` command: parses argv, runs one command, and maps typed errors to exit codes.

import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { approve } from "./approve.ts";
import { check } from "./check.ts";
import { complete, completion, type CompletionCommand } from "./completion.ts";
import { controller } from "./controller.ts";
import { demo } from "./demo.ts";
import { init } from "./init.ts";
import { migrate } from "./migrate.ts";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, OperationalError, UsageError } from "./errors.ts";
import { explain } from "./explain.ts";
import { colorEnabled } from "./format/color.ts";
import type { ClusterFlags } from "./kube.ts";
import { openOrFreeze } from "./open.ts";
import { overrides, overridesArgs } from "./overrides.ts";
import { release } from "./release.ts";
import { schedulePreview } from "./schedule-preview.ts";
import { split } from "./split.ts";
import { status } from "./status.ts";
import { portOf, serve, tokenAdd } from "./serve.ts";
import { version } from "./version.ts";

/** What a command may use besides its flags: the real stdout (for output that streams) and whether it takes colour. */
interface CommandIO {
  stdout: NodeJS.WritableStream;
  color: boolean;
}

interface Command {
  /** Left out of the overview (the completion helper). */
  hidden?: boolean;
  usage: string;
  summary: string;
  help: string;
  options: NonNullable<ParseArgsConfig["options"]>;
  /** Positional arguments the command takes (none when absent); `names` is how the usage line spells them. */
  args?: { min: number; max: number; names: string };
  /** The output, or the output with an exit code (a check that found errors prints them and exits 1). */
  run(values: Record<string, string | boolean | string[] | undefined>, positionals: string[], io: CommandIO): Promise<string | { output: string; exitCode: number }>;
}

const OUTPUT = { type: "string", short: "o" } as const;
const HELP = { type: "boolean", short: "h" } as const;

function outputOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`-o ${typeof value === "string" ? value : JSON.stringify(value)}: output must be one of ${allowed.join(", ")}`);
}

function str(value: string | boolean | string[] | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function list(value: string | boolean | string[] | undefined): string[] {
  return Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
}

/** kubectl's flags, for the commands that talk to a cluster. */
const KUBE = {
  kubeconfig: { type: "string" },
  context: { type: "string" },
  namespace: { type: "string", short: "n" },
} as const;
const ALL_NAMESPACES = { "all-namespaces": { type: "boolean", short: "A" } } as const;
const KUBE_HELP = `
Cluster flags, as kubectl's:
  --kubeconfig FILE        kubeconfig (default: $KUBECONFIG, ~/.kube/config, in-cluster)
  --context NAME           kubeconfig context (default: the current one)
  -n, --namespace NS       namespace (default: the context's, else "default")`;

function kube(v: Record<string, string | boolean | string[] | undefined>): ClusterFlags {
  return { kubeconfig: str(v.kubeconfig), context: str(v.context), namespace: str(v.namespace) };
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

function overrideCommand(action: "Open" | "Freeze"): Command {
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
status, events and by "fluxgate overrides". -o json|yaml prints the WindowOverride.
${KUBE_HELP}

Examples:
  fluxgate ${verb} weekday-changes -n flux-system --for 2h --reason "${action === "Open" ? "hotfix INC-4711, approved by the on-call lead" : "incident INC-4712: stop all rollouts"}"
  fluxgate ${verb} weekday-changes -n flux-system --until 2026-11-23T18:00 --reason "${action === "Open" ? "planned migration, CHG-981" : "customer demo until 18:00"}"`,
    options: OVERRIDE_FLAGS,
    args: { min: 1, max: 1, names: "WINDOW" },
    run: (v, [window], io) =>
      openOrFreeze({
        ...kube(v),
        action,
        window: window as string,
        for: str(v.for),
        until: str(v.until),
        reason: str(v.reason),
        name: str(v.name),
        wait: v["no-wait"] !== true,
        output: outputOf(v.output, ["text", "json", "yaml"] as const, "text"),
        color: io.color,
        now: Date.now(),
      }),
  };
}

/** What completion knows of the commands. */
function completionCommands(): CompletionCommand[] {
  return Object.entries(COMMANDS)
    .filter(([, c]) => c.hidden !== true)
    .map(([name, c]) => ({ name, summary: c.summary, usage: c.usage, options: c.options, args: c.args }));
}

const COMMANDS: Readonly<Record<string, Command>> = {
  status: {
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
    run: (v, _args, io) =>
      status({
        ...kube(v),
        allNamespaces: v["all-namespaces"] === true,
        output: outputOf(v.output, ["table", "wide", "json", "yaml"] as const, "table"),
        watch: v.watch === true,
        color: io.color,
        now: () => Date.now(),
        out: io.stdout,
      }),
  },
  explain: {
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
    run: (v, [object, name], io) =>
      explain({
        ...kube(v),
        object: object as string,
        name,
        output: outputOf(v.output, ["text", "json", "yaml"] as const, "text"),
        color: io.color,
        now: Date.now(),
      }),
  },
  open: overrideCommand("Open"),
  freeze: overrideCommand("Freeze"),
  overrides: {
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
    run: (v, positionals, io) =>
      overrides({
        ...kube(v),
        ...overridesArgs(positionals, v.output !== undefined),
        allNamespaces: v["all-namespaces"] === true,
        output: outputOf(v.output, ["table", "wide", "json", "yaml"] as const, "table"),
        wait: v["no-wait"] !== true,
        color: io.color,
        now: Date.now(),
      }),
  },
  release: {
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
    run: (v) =>
      release({
        ...kube(v),
        all: v.all === true,
        allNamespaces: v["all-namespaces"] === true,
        dryRun: v["dry-run"] === true,
        output: outputOf(v.output, ["text", "json", "yaml"] as const, "text"),
      }),
  },
  "schedule preview": {
    usage: "fluxgate schedule preview (WINDOW [-n NS] | --file WINDOW.yaml [--name NAME] | --start CRON (--end CRON | --duration D) [--tz ZONE]) [--from T] [--to T] [-o table|json|yaml]",
    summary: "Show when a window is open over a range of time",
    help: `Shows the merged open intervals of a window (allow schedules minus freezes) between --from
and --to (RFC 3339; default: now to now + 7 days), in the window's zone and in UTC, with a
text timeline. -o json prints {"timeZone": ..., "open": [{"start": ..., "end": ...}]} in UTC.
WINDOW previews a window in the cluster (--kubeconfig, --context, -n as kubectl's), with the
overrides it has.

Examples:
  fluxgate schedule preview weekday-changes -n flux-system
  fluxgate schedule preview --file config/samples/fluxgate.io_v1alpha1_reconciliationwindow.yaml
  fluxgate schedule preview --start "0 8 * * MON" --end "0 17 * * THU" --tz Europe/Berlin
  fluxgate schedule preview --start "30 2 * * *" --duration 1h --tz Europe/Berlin \\
      --from 2026-03-28T00:00:00Z --to 2026-03-31T00:00:00Z -o json`,
    options: {
      file: { type: "string", short: "f" },
      name: { type: "string" },
      start: { type: "string" },
      end: { type: "string" },
      duration: { type: "string" },
      tz: { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
      output: OUTPUT,
      ...KUBE,
    },
    args: { min: 0, max: 1, names: "WINDOW" },
    run: (v, [window]) =>
      schedulePreview({
        ...kube(v),
        window,
        file: str(v.file),
        name: str(v.name),
        start: str(v.start),
        end: str(v.end),
        duration: str(v.duration),
        tz: str(v.tz),
        from: str(v.from),
        to: str(v.to),
        output: outputOf(v.output, ["table", "json", "yaml"] as const, "table"),
        now: Date.now(),
      }),
  },
  controller: {
    usage:
      "fluxgate controller [--kubeconfig FILE] [--context NAME] [--namespace NS ...] [--target-kinds KINDS] [--no-cross-namespace-refs] [--metrics-addr ADDR] [--health-addr ADDR] [--leader-elect] [--resync-period D] [--events-address URL] [--log-level debug|info|error]",
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
      "log-level": { type: "string" },
    },
    run: (v) =>
      controller({
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
      }),
  },
  approve: {
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
    run: (v, args) =>
      approve({
        window: args[0] as string,
        revision: str(v.revision),
        reason: str(v.reason),
        namespace: str(v.namespace),
        kubeconfig: str(v.kubeconfig),
        context: str(v.context),
        now: Date.now(),
      }),
  },
  check: {
    usage: "fluxgate check REPO [--cluster NAME|PATH ...] [--kustomization NAME=PATH ...] [--source NAME] [-o text|json|sarif] [--strict] [--kustomize PATH]",
    summary: "Check a GitOps repository's clusters for what would break windows",
    help: `Renders every Flux Kustomization of each cluster with kustomize (in parallel, cached by
content) and reports findings: duplicate-object, suspend-in-git, window-in-window,
cross-type-reference, unmatched-target, ungoverned-window-type, invalid-schedule, mode-conflict,
pinned-ref-in-git, source-not-gated, cronjob-window, cronjob-window-ambiguous,
cronjob-window-never-runs, kustomize-build-failed (see docs/gitops.md).
Clusters: --cluster (a name from fluxgate.yaml or a bootstrap path; repeatable), else every
cluster of fluxgate.yaml, else every directory with a flux-system/ bootstrap. --kustomization
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
  fluxgate check . --cluster clusters/lab --kustomization apps=./deploy/lab --strict
  fluxgate check . --kustomization bootstrap=./platform/flux --source source`,
    options: {
      cluster: { type: "string", multiple: true },
      kustomization: { type: "string", multiple: true },
      source: { type: "string" },
      strict: { type: "boolean" },
      kustomize: { type: "string" },
      output: OUTPUT,
    },
    args: { min: 1, max: 1, names: "REPO" },
    run: async (v, [repo]) => {
      const result = await check({
        repo: repo as string,
        clusters: list(v.cluster),
        kustomizations: list(v.kustomization),
        source: str(v.source),
        output: outputOf(v.output, ["text", "json", "sarif"] as const, "text"),
        strict: v.strict === true,
        kustomize: str(v.kustomize),
        env: process.env,
        now: Date.now(),
      });
      return { output: result.output, exitCode: result.exitCode };
    },
  },
  init: {
    usage: "fluxgate init REPO --cluster NAME [--path PATH] [--types rt,rw] [--time-zone ZONE] [--dry-run]",
    summary: "Scaffold the window-enabled layout of a cluster in a GitOps repository",
    help: `Adds the cluster (and the types) to fluxgate.yaml, and writes what is missing of the layout
(docs/gitops.md): per type a Flux Kustomization apps-<type> in the cluster's directory and an
entry directory deploy/<cluster>/<type>; per window type a ReconciliationWindow in the
cluster's windows/ (a placeholder schedule to edit). Window types depend on the real-time
types. Files that exist are kept; running it again changes nothing.
--types lists the types: the first is real time and the others window types, unless a name
says :window or :realtime (default: rt,rw, or the types fluxgate.yaml has). --time-zone is the
zone of the cluster's windows (default UTC). --dry-run prints the unified diff and writes nothing.

Examples:
  fluxgate init . --cluster edge-berlin --time-zone Europe/Berlin
  fluxgate init . --cluster edge-paris --types rt,rw,nightly --dry-run`,
    options: {
      cluster: { type: "string" },
      path: { type: "string" },
      types: { type: "string" },
      "time-zone": { type: "string" },
      "dry-run": { type: "boolean" },
    },
    args: { min: 1, max: 1, names: "REPO" },
    run: (v, [repo]) =>
      init({
        repo: repo as string,
        cluster: str(v.cluster),
        path: str(v.path),
        types: str(v.types),
        timeZone: str(v["time-zone"]),
        dryRun: v["dry-run"] === true,
      }),
  },
  migrate: {
    usage: "fluxgate migrate REPO --cluster NAME|PATH [--time-zone ZONE] [-o yaml|json] [--write | --dry-run] [--force] [--kustomization NAME=PATH ...] [--source NAME] [--kustomize PATH]",
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
    run: (v, [repo]) =>
      migrate({
        repo: repo as string,
        cluster: str(v.cluster),
        kustomizations: list(v.kustomization),
        source: str(v.source),
        timeZone: str(v["time-zone"]),
        output: outputOf(v.output, ["yaml", "json"] as const, "yaml"),
        write: v.write === true,
        dryRun: v["dry-run"] === true,
        force: v.force === true,
        kustomize: str(v.kustomize),
        env: process.env,
        now: Date.now(),
      }),
  },
  serve: {
    usage: "fluxgate serve [--repo PATH] [--host H] [--port P] [--tokens-file F] [--anonymous-read] [--cluster-context NAME=CONTEXT ...] [--kubeconfig F] [--sync-interval D]",
    summary: "Serve the REST API and dashboard over a Git working copy",
    help: `Serves the Config Service: the REST API (/api/v1, OpenAPI at /openapi.json, docs at /docs)
and the dashboard (/) over the Git working copy --repo, laid out as "fluxgate init" does. Every
write is one commit, authored by the token's holder and pushed to origin when there is one.
Callers need a bearer token from --tokens-file (add them with "fluxgate serve token add");
--anonymous-read lets anyone read. --cluster-context NAME=CONTEXT (repeatable) connects a
cluster of fluxgate.yaml to a kubeconfig context for live status and direct overrides.
Without --repo, serves an example fleet from the data directory and prints tokens for it.
See docs/config-service.md.

Examples:
  fluxgate serve
  fluxgate serve --repo ./fleet --tokens-file tokens.yaml --port 8080
  fluxgate serve --repo ./fleet --tokens-file tokens.yaml --cluster-context edge-berlin=kind-berlin`,
    options: {
      repo: { type: "string" },
      host: { type: "string" },
      port: { type: "string" },
      "tokens-file": { type: "string" },
      "anonymous-read": { type: "boolean" },
      "cluster-context": { type: "string", multiple: true },
      kubeconfig: { type: "string" },
      "sync-interval": { type: "string" },
    },
    run: (v) =>
      serve({
        repo: str(v.repo),
        host: str(v.host) ?? "127.0.0.1",
        port: portOf(str(v.port), 8080),
        tokensFile: str(v["tokens-file"]),
        anonymousRead: v["anonymous-read"] === true,
        clusterContexts: list(v["cluster-context"]),
        kubeconfig: str(v.kubeconfig),
        syncInterval: str(v["sync-interval"]) ?? "30s",
        env: process.env,
        now: Date.now(),
        print: (text) => process.stdout.write(text),
      }),
  },
  "serve token add": {
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
    run: (v) => tokenAdd({ tokensFile: str(v["tokens-file"]), name: str(v.name), role: str(v.role), email: str(v.email), now: Date.now() }),
  },
  split: {
    usage: "fluxgate split APP_DIR --type TYPE=KIND|FILE,... [--type ...] [--default TYPE] [--cluster NAME|PATH ...] [--kustomization NAME=PATH ...] [--source NAME] [--repo PATH] [--dry-run] [--kustomize PATH]",
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
    run: (v, [app]) =>
      split({
        app: app as string,
        types: list(v.type),
        fallback: str(v.default),
        clusters: list(v.cluster),
        kustomizations: list(v.kustomization),
        source: str(v.source),
        repo: str(v.repo),
        dryRun: v["dry-run"] === true,
        kustomize: str(v.kustomize),
        env: process.env,
      }),
  },
  demo: {
    usage: "fluxgate demo [--ci] [--mode Suspend|Gate|both] [--keep]",
    summary: "Play the reconciliation-window story on a local cluster with the real Flux controllers",
    help: `Starts a local control plane (etcd, kube-apiserver, Flux's source-, kustomize- and
helm-controller, a Git server; built from Go modules on the first run, which needs Go and git),
installs fluxgate's CRDs, runs the controller in this process and plays the users' scenario:
nginx split into nginx-rt (a ConfigMap, real time) and nginx-rw (Deployment and Service, held
by a window that opens at the next whole minute for 30s). It prints a timeline: what was
committed, what Flux applied, what waits and until when, what fluxgate did and why. While the
window is closed it deletes the Deployment: in Suspend mode it stays deleted until the window
opens, in Gate mode Flux recreates it at the pinned revision. Suspend mode plays first, then
Gate mode. Everything is stopped and removed at the end and on Ctrl-C. See docs/demo.md.

Flags:
  --mode MODE   Suspend, Gate or both (default both)
  --ci          play once without a terminal: the timeline goes to stderr and one line per
                expectation ("ok  ..." or "FAIL ...") to stdout; exit 0 only if all held
  --keep        keep the cluster and the controller running after the story, until Ctrl-C

Examples:
  fluxgate demo
  fluxgate demo --mode Gate --keep
  fluxgate demo --ci`,
    options: {
      ci: { type: "boolean" },
      mode: { type: "string" },
      keep: { type: "boolean" },
    },
    run: (v) =>
      demo({
        ci: v.ci === true,
        mode: str(v.mode),
        keep: v.keep === true,
        stdout: (text) => process.stdout.write(text),
        stderr: (text) => process.stderr.write(text),
      }),
  },
  completion: {
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
    run: (_v, [shell]) => completion(shell as string),
  },
  __complete: {
    hidden: true,
    usage: "fluxgate __complete -- WORD...",
    summary: "Print the completion candidates for the words typed so far (used by the completion scripts)",
    help: "The last word is the one being typed (may be empty). One candidate per line, a tab and a description where there is one.",
    options: {},
    args: { min: 0, max: Infinity, names: "WORD..." },
    run: (_v, words) => complete(words, completionCommands()),
  },
  version: {
    usage: "fluxgate version [-o text|json]",
    summary: "Print the version of fluxgate",
    help: "Examples:\n  fluxgate version\n  fluxgate version -o json",
    options: { output: OUTPUT },
    run: (v) => version({ output: outputOf(v.output, ["text", "json"] as const, "text") }),
  },
};

function overview(): string {
  const shown = Object.entries(COMMANDS).filter(([, c]) => c.hidden !== true);
  const width = Math.max(...shown.map(([name]) => name.length));
  const lines = shown.map(([name, c]) => `  ${name.padEnd(width)}   ${c.summary}`);
  return `fluxgate: reconciliation windows for Flux CD.

Usage: fluxgate COMMAND [flags]

Commands:
${lines.join("\n")}

Run "fluxgate COMMAND --help" for a command's flags and examples.
`;
}

/**
 * Reads boolean flags also as Go programs (and so Flux's controllers) write them: `--flag=true`
 * is `--flag`, `--flag=false` is its absence. Everything after `--` is left as it is.
 */
function goBooleans(args: readonly string[], options: Command["options"]): string[] {
  const out: string[] = [];
  for (const [i, arg] of args.entries()) {
    if (arg === "--") return [...out, ...args.slice(i)];
    const m = /^--([^=]+)=(true|false)$/.exec(arg);
    if (m !== null && options[m[1] as string]?.type === "boolean") {
      if (m[2] === "true") out.push(`--${m[1] as string}`);
      continue;
    }
    out.push(arg);
  }
  return out;
}

/** Finds the command named by the first words of argv (commands have one to three words). */
function lookup(argv: readonly string[]): { name: string; command: Command; rest: string[] } | null {
  for (const words of [3, 2, 1]) {
    const name = argv.slice(0, words).join(" ");
    const command = COMMANDS[name];
    if (command !== undefined && argv.length >= words) return { name, command, rest: argv.slice(words) };
  }
  return null;
}

/** Runs the CLI; returns the exit code. Output goes to the given streams. */
export async function main(argv: readonly string[], stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): Promise<number> {
  try {
    if (argv.length === 0 || argv[0] === "help" || argv[0] === "--help" || argv[0] === "-h") {
      stdout.write(overview());
      return EXIT_OK;
    }
    if (argv[0] === "--version") argv = ["version"];
    const found = lookup(argv);
    if (found === null) {
      const group = Object.keys(COMMANDS).filter((c) => c.startsWith(`${argv[0]} `));
      const hint = group.length > 0 ? `"${argv[0]}" needs a subcommand: ${group.join(", ")}` : `unknown command "${argv[0]}"`;
      throw new UsageError(`${hint}\nRun "fluxgate --help" for the list of commands.`);
    }
    const { name, command, rest } = found;
    let parsed: ReturnType<typeof parseArgs>;
    try {
      parsed = parseArgs({ args: goBooleans(rest, command.options), options: { ...command.options, help: HELP }, allowPositionals: true, strict: true });
    } catch (e) {
      throw new UsageError(`${(e as Error).message}\nUsage: ${command.usage}`, { cause: e });
    }
    if (parsed.values.help === true) {
      stdout.write(`Usage: ${command.usage}\n\n${command.summary}.\n\n${command.help}\n`);
      return EXIT_OK;
    }
    const args = command.args ?? { min: 0, max: 0, names: "" };
    if (parsed.positionals.length > args.max) {
      const what = args.max === 0 ? "no arguments" : `only ${args.names}`;
      throw new UsageError(`${name} takes ${what}, got "${parsed.positionals.join(" ")}"\nUsage: ${command.usage}`);
    }
    if (parsed.positionals.length < args.min) throw new UsageError(`${name} needs ${args.names}\nUsage: ${command.usage}`);
    const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
    const result = await command.run(values, parsed.positionals, { stdout, color: colorEnabled(stdout, process.env) });
    if (typeof result === "string") {
      stdout.write(result);
      return EXIT_OK;
    }
    stdout.write(result.output);
    return result.exitCode;
  } catch (e) {
    if (e instanceof UsageError) {
      stderr.write(`error: ${e.message}\n`);
      return EXIT_USAGE;
    }
    if (e instanceof OperationalError) {
      stderr.write(`error: ${e.message}\n`);
      return EXIT_FAILED;
    }
    stderr.write(`error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    return EXIT_FAILED;
  }
}

/** True when this file is the process's entry point (also through npm's bin symlink), not imported by tests. */
function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  const major = Number(process.versions.node.split(".")[0]);
  if (major < 24) {
    process.stderr.write(`error: fluxgate needs Node.js 24 or newer; this is ${process.version}\n`);
    process.exitCode = EXIT_FAILED;
  } else {
    process.exitCode = await main(process.argv.slice(2), process.stdout, process.stderr);
  }
}
