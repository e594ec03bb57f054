// `fluxgate version`: the version of this build and the runtime it runs on.

import { readFileSync } from "node:fs";
import { outputOf, type CommandResult, type Values } from "./command.ts";

/** Runs `fluxgate version` (its spec: specs.ts). */
export function runVersion(v: Values): Promise<CommandResult> {
  return version({ output: outputOf(v.output, ["text", "json"] as const, "text") });
}

export interface VersionOptions {
  output: "text" | "json";
}

/** fluxgate's version, read from the package manifest shipped beside the code. */
export function fluxgateVersion(): string {
  const manifest = new URL("../../package.json", import.meta.url);
  const parsed = JSON.parse(readFileSync(manifest, "utf8")) as { version?: unknown };
  return typeof parsed.version === "string" ? parsed.version : "unknown";
}

/**
 * Prints the version.
 *
 * @example await version({ output: "json" }) // {"fluxgate":"0.1.0","node":"v24.21.0"}
 */
export function version(options: VersionOptions): Promise<string> {
  const info = { fluxgate: fluxgateVersion(), node: process.version };
  return Promise.resolve(options.output === "json" ? `${JSON.stringify(info)}\n` : `fluxgate ${info.fluxgate} (node ${info.node})\n`);
}
