// What a CLI command is (its spec and its run), and the flags and functions the commands share; loads nothing heavy.

import type { ParseArgsConfig } from "node:util";
import { UsageError } from "./errors.ts";
import type { ClusterFlags } from "./kube.ts";

/** The flags as parseArgs read them. */
export type Values = Record<string, string | boolean | string[] | undefined>;

/** What a command may use besides its flags: the real stdout (for output that streams), whether it takes colour, and the other commands' specs. */
export interface CommandIO {
  stdout: NodeJS.WritableStream;
  color: boolean;
  /** Every command's name and spec, in the order of the overview (for completion). */
  commands(): Array<{ name: string; spec: CommandSpec }>;
}

/** The output, or the output with an exit code (a check that found errors prints them and exits 1). */
export type CommandResult = string | { output: string; exitCode: number };

/** What main.ts, --help and completion know of a command without running it. */
export interface CommandSpec {
  /** Left out of the overview (the completion helper). */
  hidden?: boolean;
  usage: string;
  summary: string;
  help: string;
  options: NonNullable<ParseArgsConfig["options"]>;
  /** Positional arguments the command takes (none when absent); `names` is how the usage line spells them. */
  args?: { min: number; max: number; names: string };
}

/**
 * How a command runs: its flags as parseArgs read them and its positional arguments in, its output
 * out. Each command's file (src/cli/<command>.ts) exports its run; specs.ts says which is whose.
 */
export type Run = (values: Values, positionals: string[], io: CommandIO) => Promise<CommandResult>;

export const OUTPUT = { type: "string", short: "o" } as const;

/** The value of -o, which must be one of `allowed`. */
export function outputOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`-o ${typeof value === "string" ? value : JSON.stringify(value)}: output must be one of ${allowed.join(", ")}`);
}

export function str(value: string | boolean | string[] | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** A repeatable flag's values. */
export function list(value: string | boolean | string[] | undefined): string[] {
  return Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
}

/** kubectl's flags, for the commands that talk to a cluster. */
export const KUBE = {
  kubeconfig: { type: "string" },
  context: { type: "string" },
  namespace: { type: "string", short: "n" },
} as const;
export const ALL_NAMESPACES = { "all-namespaces": { type: "boolean", short: "A" } } as const;
export const KUBE_HELP = `
Cluster flags, as kubectl's:
  --kubeconfig FILE        kubeconfig (default: $KUBECONFIG, ~/.kube/config, in-cluster)
  --context NAME           kubeconfig context (default: the current one)
  -n, --namespace NS       namespace (default: the context's, else "default")`;

export function kube(v: Values): ClusterFlags {
  return { kubeconfig: str(v.kubeconfig), context: str(v.context), namespace: str(v.namespace) };
}
