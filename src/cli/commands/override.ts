// What `fluxgate open` and `fluxgate freeze` share: flags, help and the run that creates the WindowOverride.

import { KUBE, KUBE_HELP, OUTPUT, kube, outputOf, str, type CommandIO, type CommandResult, type CommandSpec, type Values } from "../command.ts";

const OVERRIDE_FLAGS = {
  ...KUBE,
  for: { type: "string" },
  until: { type: "string" },
  reason: { type: "string" },
  name: { type: "string" },
  "no-wait": { type: "boolean" },
  output: OUTPUT,
} as const;

/** The spec of `fluxgate open` or `fluxgate freeze`. */
export function overrideSpec(action: "Open" | "Freeze"): CommandSpec {
  const verb = action === "Open" ? "open" : "freeze";
  return {
    usage: `fluxgate ${verb} WINDOW (--for D | --until T) --reason TEXT [--name NAME] [-n NS] [--no-wait] [-o text|json|yaml]`,
    summary:
      action === "Open"
        ? "Open a window now, even in a freeze, until an end at most 7 days ahead"
        : "Freeze a window now, even when it is open, until an end at most 7 days ahead",
    help: `Creates a WindowOverride (action ${action}) in the window's namespace, named
<window>-${verb}-<UTC time> unless --name says otherwise, and waits until the controller took it
and the targets followed (--no-wait: return at once). It ends on its own at its end; end it
sooner with "fluxgate overrides cancel NAME". ${action === "Open" ? "A Freeze override still beats it." : "It beats every Open override and schedule."}
--for is a Go duration (90m, 2h, 36h; at most 168h); --until is RFC 3339 (2026-11-23T18:00:00Z)
or a local time in the window's zone (2026-11-23T18:00). The reason is required: it is shown in
status, events and by "fluxgate overrides". -o json|yaml prints the WindowOverride.
${KUBE_HELP}

Examples:
  fluxgate ${verb} weekday-changes -n flux-system --for 2h --reason "${action === "Open" ? "hotfix INC-4711, approved by the on-call lead" : "incident INC-4712: stop all rollouts"}"
  fluxgate ${verb} weekday-changes -n flux-system --until 2026-11-23T18:00 --reason "${action === "Open" ? "planned migration, CHG-981" : "customer demo until 18:00"}"`,
    options: OVERRIDE_FLAGS,
    args: { min: 1, max: 1, names: "WINDOW" },
  };
}

/** Runs `fluxgate open` or `fluxgate freeze`. */
export async function runOverride(action: "Open" | "Freeze", v: Values, [window]: string[], io: CommandIO): Promise<CommandResult> {
  const { openOrFreeze } = await import("../open.ts");
  return openOrFreeze({
    ...kube(v),
    action,
    window: window as string,
    for: str(v.for),
    until: str(v.until),
    reason: str(v.reason),
    name: str(v.name),
    wait: v["no-wait"] !== true,
    output: outputOf(v.output, ["text", "json", "yaml"] as const, "text"),
    color: io.color,
    now: Date.now(),
  });
}
