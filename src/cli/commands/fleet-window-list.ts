// `fluxgate fleet window list`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { OUTPUT, outputOf, str, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
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

export async function run(v: Values): Promise<CommandResult> {
  const { fleetWindowList } = await import("../fleet-windows.ts");
  return fleetWindowList({ repo: str(v.repo) ?? ".", selector: str(v.selector), output: outputOf(v.output, ["table", "json"] as const, "table") });
}
