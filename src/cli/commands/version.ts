// `fluxgate version`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { OUTPUT, outputOf, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
  usage: "fluxgate version [-o text|json]",
  summary: "Print the version of fluxgate",
  help: "Examples:\n  fluxgate version\n  fluxgate version -o json",
  options: { output: OUTPUT },
};

export async function run(v: Values): Promise<CommandResult> {
  const { version } = await import("../version.ts");
  return version({ output: outputOf(v.output, ["text", "json"] as const, "text") });
}
