// `fluxgate status`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { ALL_NAMESPACES, KUBE, KUBE_HELP, OUTPUT, kube, outputOf, type CommandIO, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
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

export async function run(v: Values, _args: string[], io: CommandIO): Promise<CommandResult> {
  const { status } = await import("../status.ts");
  return status({
    ...kube(v),
    allNamespaces: v["all-namespaces"] === true,
    output: outputOf(v.output, ["table", "wide", "json", "yaml"] as const, "table"),
    watch: v.watch === true,
    color: io.color,
    now: () => Date.now(),
    out: io.stdout,
  });
}
