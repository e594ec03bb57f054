// `fluxgate open`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import type { CommandIO, CommandResult, CommandSpec, Values } from "../command.ts";
import { overrideSpec, runOverride } from "./override.ts";

export const spec: CommandSpec = overrideSpec("Open");

export function run(v: Values, positionals: string[], io: CommandIO): Promise<CommandResult> {
  return runOverride("Open", v, positionals, io);
}
