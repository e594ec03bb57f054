// `fluxgate __complete`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import type { CommandIO, CommandResult, CommandSpec, Values } from "../command.ts";

export const spec: CommandSpec = {
  hidden: true,
  usage: "fluxgate __complete -- WORD...",
  summary: "Print the completion candidates for the words typed so far (used by the completion scripts)",
  help: "The last word is the one being typed (may be empty). One candidate per line, a tab and a description where there is one.",
  options: {},
  args: { min: 0, max: Infinity, names: "WORD..." },
};

export async function run(_v: Values, words: string[], io: CommandIO): Promise<CommandResult> {
  const { complete } = await import("../completion.ts");
  const commands = (await io.commands()).filter(({ spec }) => spec.hidden !== true);
  return complete(words, commands.map(({ name, spec }) => ({ name, summary: spec.summary, usage: spec.usage, options: spec.options, args: spec.args })));
}
