// `fluxgate overrides`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { ALL_NAMESPACES, KUBE, KUBE_HELP, OUTPUT, kube, outputOf, type CommandIO, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
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

export async function run(v: Values, positionals: string[], io: CommandIO): Promise<CommandResult> {
  const { overrides, overridesArgs } = await import("../overrides.ts");
  return overrides({
    ...kube(v),
    ...overridesArgs(positionals, v.output !== undefined),
    allNamespaces: v["all-namespaces"] === true,
    output: outputOf(v.output, ["table", "wide", "json", "yaml"] as const, "table"),
    wait: v["no-wait"] !== true,
    color: io.color,
    now: Date.now(),
  });
}
