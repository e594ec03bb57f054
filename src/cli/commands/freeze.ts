// `fluxgate freeze`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import type { CommandIO, CommandResult, CommandSpec, Values } from "../command.ts";
import { overrideSpec, runOverride } from "./override.ts";

export const spec: CommandSpec = overrideSpec("Freeze");

export function run(v: Values, positionals: string[], io: CommandIO): Promise<CommandResult> {
  return runOverride("Freeze", v, positionals, io);
}
