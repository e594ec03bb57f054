// `fluxgate explain`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { KUBE, KUBE_HELP, OUTPUT, kube, outputOf, type CommandIO, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
  usage: "fluxgate explain KIND/NAME [-n NS] [-o text|json|yaml]",
  summary: "Explain what decides one Flux object: windows, overrides, rule, revisions, next change",
  help: `For one Flux object (kustomization/NAME, helmrelease/NAME, ks/NAME, hr/NAME, ...): the decision
now (may it take changes?) and the rule that made it — which schedule, freeze or override of
which window — and which other windows it beats; the next change; spec.suspend and who set
it; the revision applied and the one waiting; every window that selects it, with what it alone
would decide; and the overrides of those windows. -o json|yaml prints the same as a stable
structure (docs/cli.md).
${KUBE_HELP}

Examples:
  fluxgate explain kustomization/apps-rw -n flux-system
  fluxgate explain hr/podinfo -n apps -o json`,
  options: { ...KUBE, output: OUTPUT },
  args: { min: 1, max: 2, names: "KIND/NAME" },
};

export async function run(v: Values, [object, name]: string[], io: CommandIO): Promise<CommandResult> {
  const { explain } = await import("../explain.ts");
  return explain({
    ...kube(v),
    object: object as string,
    name,
    output: outputOf(v.output, ["text", "json", "yaml"] as const, "text"),
    color: io.color,
    now: Date.now(),
  });
}
