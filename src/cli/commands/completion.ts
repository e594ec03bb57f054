// `fluxgate completion`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import type { CommandResult, CommandSpec, Values } from "../command.ts";

export const spec: CommandSpec = {
  usage: "fluxgate completion bash|zsh|fish",
  summary: "Print the shell completion script for bash, zsh or fish",
  help: `Completes commands, flags, -o formats, contexts, namespaces, and from the cluster the flags
point at: window names (open, freeze, schedule preview), objects (explain) and overrides
(overrides cancel). The script asks fluxgate itself, so it never goes stale.

Examples:
  source <(fluxgate completion bash)      # add to ~/.bashrc
  source <(fluxgate completion zsh)       # add to ~/.zshrc
  fluxgate completion fish | source       # add to ~/.config/fish/config.fish`,
  options: {},
  args: { min: 1, max: 1, names: "bash|zsh|fish" },
};

export async function run(_v: Values, [shell]: string[]): Promise<CommandResult> {
  const { completion } = await import("../completion.ts");
  return completion(shell as string);
}
