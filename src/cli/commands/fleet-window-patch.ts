// `fluxgate fleet window patch`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { str, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
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

export async function run(v: Values, [name]: string[]): Promise<CommandResult> {
  const { fleetWindowPatch } = await import("../fleet-windows.ts");
  return fleetWindowPatch({
    repo: str(v.repo) ?? ".",
    name: name as string,
    cluster: str(v.cluster),
    timeZone: str(v["time-zone"]),
    start: str(v.start),
    end: str(v.end),
    duration: str(v.duration),
    remove: v.remove === true,
    dryRun: v["dry-run"] === true,
    now: Date.now(),
  });
}
