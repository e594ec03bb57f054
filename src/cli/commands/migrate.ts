// `fluxgate migrate`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { OUTPUT, list, outputOf, str, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
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
};

export async function run(v: Values, [repo]: string[]): Promise<CommandResult> {
  const { migrate } = await import("../migrate.ts");
  return migrate({
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
  });
}
