// `fluxgate schedule preview`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { KUBE, OUTPUT, kube, outputOf, str, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
  usage: "fluxgate schedule preview (WINDOW [-n NS] | --file WINDOW.yaml [--name NAME] | --start CRON (--end CRON | --duration D) [--tz ZONE]) [--from T] [--to T] [-o table|json|yaml]",
  summary: "Show when a window is open over a range of time",
  help: `Shows the merged open intervals of a window (allow schedules minus freezes) between --from
and --to (RFC 3339; default: now to now + 7 days), in the window's zone and in UTC, with a
text timeline. -o json prints {"timeZone": ..., "open": [{"start": ..., "end": ...}]} in UTC.
WINDOW previews a window in the cluster (--kubeconfig, --context, -n as kubectl's), with the
overrides it has.

Examples:
  fluxgate schedule preview weekday-changes -n flux-system
  fluxgate schedule preview --file config/samples/fluxgate.io_v1alpha1_reconciliationwindow.yaml
  fluxgate schedule preview --start "0 8 * * MON" --end "0 17 * * THU" --tz Europe/Berlin
  fluxgate schedule preview --start "30 2 * * *" --duration 1h --tz Europe/Berlin \\
      --from 2026-03-28T00:00:00Z --to 2026-03-31T00:00:00Z -o json`,
  options: {
    file: { type: "string", short: "f" },
    name: { type: "string" },
    start: { type: "string" },
    end: { type: "string" },
    duration: { type: "string" },
    tz: { type: "string" },
    from: { type: "string" },
    to: { type: "string" },
    output: OUTPUT,
    ...KUBE,
  },
  args: { min: 0, max: 1, names: "WINDOW" },
};

export async function run(v: Values, [window]: string[]): Promise<CommandResult> {
  const { schedulePreview } = await import("../schedule-preview.ts");
  return schedulePreview({
    ...kube(v),
    window,
    file: str(v.file),
    name: str(v.name),
    start: str(v.start),
    end: str(v.end),
    duration: str(v.duration),
    tz: str(v.tz),
    from: str(v.from),
    to: str(v.to),
    output: outputOf(v.output, ["table", "json", "yaml"] as const, "table"),
    now: Date.now(),
  });
}
