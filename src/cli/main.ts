#!/usr/bin/env node
// The `fluxgate` command: parses argv, runs one command, and maps typed errors to exit codes.

import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { controller } from "./controller.ts";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, OperationalError, UsageError } from "./errors.ts";
import { schedulePreview } from "./schedule-preview.ts";
import { version } from "./version.ts";

interface Command {
  usage: string;
  summary: string;
  help: string;
  options: NonNullable<ParseArgsConfig["options"]>;
  run(values: Record<string, string | boolean | string[] | undefined>, positionals: string[]): Promise<string>;
}

const OUTPUT = { type: "string", short: "o" } as const;
const HELP = { type: "boolean", short: "h" } as const;

function outputOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`-o ${typeof value === "string" ? value : JSON.stringify(value)}: output must be one of ${allowed.join(", ")}`);
}

function str(value: string | boolean | string[] | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

const COMMANDS: Readonly<Record<string, Command>> = {
  "schedule preview": {
    usage: "fluxgate schedule preview (--file WINDOW.yaml [--name NAME] | --start CRON (--end CRON | --duration D) [--tz ZONE]) [--from T] [--to T] [-o table|json|yaml]",
    summary: "Show when a window is open over a range of time",
    help: `Shows the merged open intervals of a window (allow schedules minus freezes) between --from
and --to (RFC 3339; default: now to now + 7 days), in the window's zone and in UTC, with a
text timeline. -o json prints {"timeZone": ..., "open": [{"start": ..., "end": ...}]} in UTC.

Examples:
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
    },
    run: (v) =>
      schedulePreview({
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
      }),
  },
  controller: {
    usage:
      "fluxgate controller [--kubeconfig FILE] [--context NAME] [--namespace NS ...] [--target-kinds KINDS] [--metrics-addr ADDR] [--health-addr ADDR] [--leader-elect] [--resync-period D] [--events-address URL] [--log-level debug|info|error]",
    summary: "Run the controller that enforces windows on Flux objects",
    help: `Watches ReconciliationWindows, WindowOverrides and the Flux objects they select, and owns
spec.suspend of each target (server-side apply, field manager "fluxgate"). Logs are JSON lines on
stderr. Runs until SIGTERM or SIGINT.

Flags:
  --kubeconfig FILE          kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, in-cluster)
  --context NAME             kubeconfig context
  --namespace NS             watch only this namespace; repeat for several (default: all)
  --target-kinds KINDS       kinds to govern (default: Kustomization,HelmRelease,ImageUpdateAutomation)
  --metrics-addr ADDR        Prometheus /metrics (default :8080)
  --health-addr ADDR         /healthz and /readyz (default :8081)
  --leader-elect             only the replica holding the Lease writes
  --leader-election-namespace NS   namespace of the Lease (default $POD_NAMESPACE or fluxgate-system)
  --resync-period D          re-plan everything this often (default 10m)
  --events-address URL       also post events to Flux's notification-controller
  --log-level LEVEL          debug, info or error (default info)

Examples:
  fluxgate controller --kubeconfig ~/.kube/config --namespace flux-system
  fluxgate controller --leader-elect --events-address http://notification-controller.flux-system.svc.cluster.local./`,
    options: {
      kubeconfig: { type: "string" },
      context: { type: "string" },
      namespace: { type: "string", short: "n", multiple: true },
      "target-kinds": { type: "string" },
      "metrics-addr": { type: "string" },
      "health-addr": { type: "string" },
      "leader-elect": { type: "boolean" },
      "leader-election-namespace": { type: "string" },
      "resync-period": { type: "string" },
      "events-address": { type: "string" },
      "log-level": { type: "string" },
    },
    run: (v) =>
      controller({
        kubeconfig: str(v.kubeconfig),
        context: str(v.context),
        namespaces: Array.isArray(v.namespace) ? v.namespace : [],
        targetKinds: str(v["target-kinds"]),
        metricsAddr: str(v["metrics-addr"]) ?? ":8080",
        healthAddr: str(v["health-addr"]) ?? ":8081",
        leaderElect: v["leader-elect"] === true,
        leaderElectionNamespace: str(v["leader-election-namespace"]),
        resyncPeriod: str(v["resync-period"]) ?? "10m",
        logLevel: str(v["log-level"]) ?? "info",
        eventsAddress: str(v["events-address"]),
      }),
  },
  version: {
    usage: "fluxgate version [-o text|json]",
    summary: "Print the version of fluxgate",
    help: "Examples:\n  fluxgate version\n  fluxgate version -o json",
    options: { output: OUTPUT },
    run: (v) => version({ output: outputOf(v.output, ["text", "json"] as const, "text") }),
  },
};

function overview(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}   ${c.summary}`);
  return `fluxgate: reconciliation windows for Flux CD.

Usage: fluxgate COMMAND [flags]

Commands:
${lines.join("\n")}

Run "fluxgate COMMAND --help" for a command's flags and examples.
`;
}

/** Finds the command named by the first words of argv (commands have one or two words). */
function lookup(argv: readonly string[]): { name: string; command: Command; rest: string[] } | null {
  for (const words of [2, 1]) {
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
    const { name, command, rest } = found;
    let parsed: ReturnType<typeof parseArgs>;
    try {
      parsed = parseArgs({ args: rest, options: { ...command.options, help: HELP }, allowPositionals: true, strict: true });
    } catch (e) {
      throw new UsageError(`${(e as Error).message}\nUsage: ${command.usage}`, { cause: e });
    }
    if (parsed.values.help === true) {
      stdout.write(`Usage: ${command.usage}\n\n${command.summary}.\n\n${command.help}\n`);
      return EXIT_OK;
    }
    if (parsed.positionals.length > 0) {
      throw new UsageError(`${name} takes no arguments, got "${parsed.positionals.join(" ")}"\nUsage: ${command.usage}`);
    }
    const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
    stdout.write(await command.run(values, parsed.positionals));
    return EXIT_OK;
  } catch (e) {
    if (e instanceof UsageError) {
      stderr.write(`error: ${e.message}\n`);
      return EXIT_USAGE;
    }
    if (e instanceof OperationalError) {
      stderr.write(`error: ${e.message}\n`);
      return EXIT_FAILED;
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
    process.exitCode = await main(process.argv.slice(2), process.stdout, process.stderr);
  }
}
