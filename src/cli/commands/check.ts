// `fluxgate check`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { OUTPUT, list, outputOf, str, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
  usage: "fluxgate check REPO [--cluster NAME|PATH ... | --selector SELECTOR] [--kustomization NAME=PATH ...] [--source NAME] [-o text|json|sarif] [--strict] [--kustomize PATH]",
  summary: "Check a GitOps repository's clusters for what would break windows",
  help: `Renders every Flux Kustomization of each cluster with kustomize (in parallel, cached by
content) and reports findings: duplicate-object, suspend-in-git, window-in-window,
cross-type-reference, unmatched-target, ungoverned-window-type, invalid-schedule, mode-conflict,
pinned-ref-in-git, source-not-gated, cronjob-window, cronjob-window-ambiguous,
cronjob-window-never-runs, kustomize-build-failed, fleet-patch-not-applied,
fleet-window-unselected, fleet-window-not-included (see docs/gitops.md).
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

export async function run(v: Values, [repo]: string[]): Promise<CommandResult> {
  const { check } = await import("../check.ts");
  const result = await check({
    repo: repo as string,
    clusters: list(v.cluster),
    selector: str(v.selector),
    kustomizations: list(v.kustomization),
    source: str(v.source),
    output: outputOf(v.output, ["text", "json", "sarif"] as const, "text"),
    strict: v.strict === true,
    kustomize: str(v.kustomize),
    env: process.env,
    now: Date.now(),
  });
  return { output: result.output, exitCode: result.exitCode };
}
