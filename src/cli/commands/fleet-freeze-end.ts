// `fluxgate fleet freeze end`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { str, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
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

export async function run(v: Values, [name]: string[]): Promise<CommandResult> {
  const { fleetFreezeEnd } = await import("../fleet-freeze.ts");
  return fleetFreezeEnd({ repo: str(v.repo) ?? ".", name: name as string, dryRun: v["dry-run"] === true, now: Date.now() });
}
