// `fluxgate fleet freeze`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { list, str, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
  usage: "fluxgate fleet freeze --selector SELECTOR (--for D | --until T) --reason TEXT [--name NAME] [--window NAME ...] [--repo PATH] [--dry-run] [--kustomize PATH]",
  summary: "Stop changes now on every cluster whose labels match a selector, in one change to the repository",
  help: `Adds a WindowOverride with action Freeze for every window of every cluster of fluxgate.yaml
whose labels match --selector (Kubernetes label-selector syntax, e.g. region=eu): the windows a
cluster runs are what kustomize renders of its windows/ folder (fleet windows included);
--window limits it to those windows. Each override is clusters/<cluster>/windows/overrides/
NAME-<window>.yaml (listed in windows/kustomization.yaml, the layout of the Config Service's
overrides), labelled fluxgate.io/fleet-override: NAME and stamped fluxgate.io/requested-at, so
the freeze is listed and ended as one. NAME defaults to fleet-freeze-<UTC time>. --for is a Go
duration (48h), --until an RFC 3339 time with a zone; at most 7 days ahead. Refused, with nothing
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

export async function run(v: Values): Promise<CommandResult> {
  const { fleetFreeze } = await import("../fleet-freeze.ts");
  return fleetFreeze({
    repo: str(v.repo) ?? ".",
    selector: str(v.selector),
    for: str(v.for),
    until: str(v.until),
    reason: str(v.reason),
    name: str(v.name),
    windows: list(v.window),
    dryRun: v["dry-run"] === true,
    kustomize: str(v.kustomize),
    env: process.env,
    now: Date.now(),
  });
}
