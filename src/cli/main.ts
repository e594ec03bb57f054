#!/usr/bin/env node
// The `fluxgate` command: finds the command argv names and parses its flags by its spec (specs.ts), loads
// that command's file only then and runs it, and maps typed errors to exit codes.

import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { CommandSpec } from "./command.ts";
import { Failure, InputError } from "../errors.ts";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError } from "./errors.ts";
import { colorEnabled } from "./format/color.ts";
import { controllerV8Flags, loadControllerBuiltins, serverHeapFlags } from "./heap.ts";
import { COMMANDS, type Command } from "./specs.ts";

const HELP = { type: "boolean", short: "h" } as const;

/** Every command's name and spec, in the order of the overview. */
function allSpecs(): Array<{ name: string; spec: CommandSpec }> {
  return Object.entries(COMMANDS).map(([name, { spec }]) => ({ name, spec }));
}

function overview(): string {
  const shown = allSpecs().filter(({ spec }) => spec.hidden !== true);
  const width = Math.max(...shown.map(({ name }) => name.length));
  const lines = shown.map(({ name, spec }) => `  ${name.padEnd(width)}   ${spec.summary}`);
  return `fluxgate: reconciliation windows for Flux CD.

Usage: fluxgate COMMAND [flags]

Commands:
${lines.join("\n")}

Run "fluxgate COMMAND --help" for a command's flags and examples.
`;
}

/**
 * Reads boolean flags also as Go programs (and so Flux's controllers) write them: `--flag=true`
 * is `--flag`, `--flag=false` is its absence. Everything after `--` is left as it is.
 */
function goBooleans(args: readonly string[], options: CommandSpec["options"]): string[] {
  const out: string[] = [];
  for (const [i, arg] of args.entries()) {
    if (arg === "--") return [...out, ...args.slice(i)];
    const m = /^--([^=]+)=(true|false)$/.exec(arg);
    if (m !== null && options[m[1] as string]?.type === "boolean") {
      if (m[2] === "true") out.push(`--${m[1] as string}`);
      continue;
    }
    out.push(arg);
  }
  return out;
}

/** What parseArgs found wrong, in fluxgate's words where Node's own are not (its unknown-option message leaves a quote open). */
function parseError(e: unknown, spec: CommandSpec): string {
  const unknown = (e as NodeJS.ErrnoException).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? /^Unknown option '([^']+)'/.exec((e as Error).message) : null;
  if (unknown === null) return (e as Error).message;
  const flag = unknown[1] as string;
  // Only a command that takes arguments can be given one that starts with '-'.
  return (spec.args?.max ?? 0) > 0 ? `unknown flag '${flag}' (an argument that starts with '-' goes after '--', as in '-- ${flag}')` : `unknown flag '${flag}'`;
}

/** Finds the command named by the first words of argv (commands have one to three words). */
function lookup(argv: readonly string[]): { name: string; command: Command; rest: string[] } | null {
  for (const words of [3, 2, 1]) {
    const name = argv.slice(0, words).join(" ");
    const command = COMMANDS[name];
    if (command !== undefined && argv.length >= words) return { name, command, rest: argv.slice(words) };
  }
  return null;
}

/** Runs the CLI; returns the exit code. Output goes to the given streams. */
export async function main(argv: readonly string[], stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): Promise<number> {
  try {
    if (argv.length === 0 || argv[0] === "help" || argv[0] === "--help" || argv[0] === "-h") {
      stdout.write(overview());
      return EXIT_OK;
    }
    if (argv[0] === "--version") argv = ["version"];
    const found = lookup(argv);
    if (found === null) {
      const group = Object.keys(COMMANDS).filter((c) => c.startsWith(`${argv[0]} `));
      const hint = group.length > 0 ? `"${argv[0]}" needs a subcommand: ${group.join(", ")}` : `unknown command "${argv[0]}"`;
      throw new UsageError(`${hint}\nRun "fluxgate --help" for the list of commands.`);
    }
    const { name, rest, command } = found;
    const { spec } = command;
    let parsed: ReturnType<typeof parseArgs>;
    try {
      parsed = parseArgs({ args: goBooleans(rest, spec.options), options: { ...spec.options, help: HELP }, allowPositionals: true, strict: true });
    } catch (e) {
      throw new UsageError(`${parseError(e, spec)}\nUsage: ${spec.usage}`, { cause: e });
    }
    if (parsed.values.help === true) {
      stdout.write(`Usage: ${spec.usage}\n\n${spec.summary}.\n\n${spec.help}\n`);
      return EXIT_OK;
    }
    const args = spec.args ?? { min: 0, max: 0, names: "" };
    if (parsed.positionals.length > args.max) {
      const what = args.max === 0 ? "no arguments" : `only ${args.names}`;
      throw new UsageError(`${name} takes ${what}, got "${parsed.positionals.join(" ")}"\nUsage: ${spec.usage}`);
    }
    if (parsed.positionals.length < args.min) throw new UsageError(`${name} needs ${args.names}\nUsage: ${spec.usage}`);
    const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
    const run = await command.load();
    const result = await run(values, parsed.positionals, { stdout, color: colorEnabled(stdout, process.env), commands: allSpecs });
    if (typeof result === "string") {
      stdout.write(result);
      return EXIT_OK;
    }
    stdout.write(result.output);
    return result.exitCode;
  } catch (e) {
    // The one mapping of errors to exit codes: bad input 2, a failure 1; anything else is a defect, shown with its stack.
    if (e instanceof InputError || e instanceof Failure) {
      stderr.write(`error: ${e.message}\n`);
      return e instanceof InputError ? EXIT_USAGE : EXIT_FAILED;
    }
    stderr.write(`error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    return EXIT_FAILED;
  }
}

/** True when this file is the process's entry point (also through npm's bin symlink), not imported by tests. */
function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  const major = Number(process.versions.node.split(".")[0]);
  if (major < 24) {
    process.stderr.write(`error: fluxgate needs Node.js 24 or newer; this is ${process.version}\n`);
    process.exitCode = EXIT_FAILED;
  } else {
    // `fluxgate serve` runs as a long-lived service: its heap is sized as one before its modules load.
    if (process.argv[2] === "serve") serverHeapFlags(process.execArgv, process.env["NODE_OPTIONS"]);
    // `fluxgate controller` runs V8 for memory (heap.ts). Its compiled code comes from the caches in
    // $NODE_COMPILE_CACHE where it names a directory (the image's, made at build: Node's of the CLI's
    // modules, controller-bundle.ts's of the bundle); without it the controller writes nothing to disk
    // (test/integration/controller/process.readonly.test.ts).
    if (process.argv[2] === "controller") {
      loadControllerBuiltins();
      controllerV8Flags(process.execArgv);
    }
    process.exitCode = await main(process.argv.slice(2), process.stdout, process.stderr);
  }
}
