// `fluxgate fleet window add`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { list, str, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
  usage:
    "fluxgate fleet window add NAME --selector SELECTOR (--start CRON (--end CRON | --duration D) [--time-zone ZONE] --target KIND/NAME ... | --file W.yaml) [--repo PATH] [--dry-run]",
  summary: "Add one window shared by every cluster whose labels match a selector",
  help: `Writes the window once, as a kustomize base under fleet/windows/NAME/ (NAME.yaml and a
kustomization.yaml), and adds it to the resources of the windows/kustomization.yaml of every
cluster of fluxgate.yaml whose labels match --selector (Kubernetes label-selector syntax, e.g.
ring=prod,region in (eu,us)); comments stay. The window carries the label
fluxgate.io/fleet-window: NAME and the annotation fluxgate.io/fleet-selector (the selector),
which fluxgate check compares with the clusters' labels. The window is --file (a
ReconciliationWindow manifest), or one schedule from --start with --end or --duration, in
--time-zone (default UTC), governing each --target KIND/NAME. Refused, with nothing written: a
bad name, selector or window, a selector no cluster matches, a fleet window that exists, a
selected cluster without windows/kustomization.yaml or with a window of that name.
--repo is the repository (default: the current directory). The change is one commit for the
whole fleet; --dry-run prints the diff and writes nothing.

Examples:
  fluxgate fleet window add prod-changes --selector ring=prod --start "0 8 * * MON-THU" --end "0 17 * * MON-THU" --time-zone Europe/Berlin --target Kustomization/apps-rw
  fluxgate fleet window add eu-nightly --selector "region in (eu)" --file nightly.yaml --dry-run`,
  options: {
    selector: { type: "string", short: "l" },
    start: { type: "string" },
    end: { type: "string" },
    duration: { type: "string" },
    "time-zone": { type: "string" },
    target: { type: "string", multiple: true },
    file: { type: "string", short: "f" },
    repo: { type: "string" },
    "dry-run": { type: "boolean" },
  },
  args: { min: 1, max: 1, names: "NAME" },
};

export async function run(v: Values, [name]: string[]): Promise<CommandResult> {
  const { fleetWindowAdd } = await import("../fleet-windows.ts");
  return fleetWindowAdd({
    repo: str(v.repo) ?? ".",
    name: name as string,
    selector: str(v.selector),
    start: str(v.start),
    end: str(v.end),
    duration: str(v.duration),
    timeZone: str(v["time-zone"]),
    targets: list(v.target),
    file: str(v.file),
    dryRun: v["dry-run"] === true,
    now: Date.now(),
  });
}
