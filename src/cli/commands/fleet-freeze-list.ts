// `fluxgate fleet freeze list`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { OUTPUT, outputOf, str, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
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

export async function run(v: Values): Promise<CommandResult> {
  const { fleetFreezeList } = await import("../fleet-freeze.ts");
  return fleetFreezeList({ repo: str(v.repo) ?? ".", selector: str(v.selector), output: outputOf(v.output, ["table", "json"] as const, "table"), now: Date.now() });
}
