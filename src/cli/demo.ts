// `fluxgate demo`: plays the reconciliation-window story on a local control plane with the real Flux controllers.

import { runDemo as play } from "../demo/run.ts";
import { runFleetDemo } from "../demo/fleet/run.ts";
import { DEMO_MODES, type DemoMode } from "../demo/scenario.ts";
import { EXIT_FAILED, EXIT_OK, UsageError } from "./errors.ts";
import { exitCodeOf, stopSignals } from "./signals.ts";
import { str, type CommandResult, type Values } from "./command.ts";

/** Runs `fluxgate demo` (its spec: specs.ts). */
export function runDemo(v: Values): Promise<CommandResult> {
  return demo({
    ci: v.ci === true,
    mode: str(v.mode),
    fleet: v.fleet === true,
    keep: v.keep === true,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
}

/** What `--mode` selects when it is not given. */
export const DEFAULT_DEMO_MODE = "both";

export interface DemoOptions {
  /** Play once without a terminal: the timeline goes to stderr, one `ok`/`FAIL` line per expectation to stdout. */
  ci: boolean;
  /** Suspend, Gate or both (default both). */
  mode: string | undefined;
  /** Play the fleet's story (three clusters, a Config Service) instead of the modes'. */
  fleet?: boolean;
  /** Keep the cluster and the controller running after the story, until Ctrl-C. */
  keep: boolean;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** The modes `--mode` names, in the order they play: Suspend first. */
export function demoModes(mode: string | undefined): DemoMode[] {
  const value = (mode ?? DEFAULT_DEMO_MODE).toLowerCase();
  if (value === "both") return [...DEMO_MODES];
  const found = DEMO_MODES.find((m) => m.toLowerCase() === value);
  if (found === undefined) throw new UsageError(`--mode ${mode ?? ""}: must be Suspend, Gate or both`);
  return [found];
}

/**
 * Runs the demo and returns its exit code: 0 when every expectation held. Ctrl-C (or SIGTERM)
 * stops and removes everything the demo started.
 *
 * @example await demo({ ci: true, mode: "Suspend", keep: false, stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) })
 */
export async function demo(options: DemoOptions): Promise<{ output: string; exitCode: number }> {
  const modes = demoModes(options.mode);
  if (options.fleet === true && options.mode !== undefined) throw new UsageError("--fleet plays the fleet's story, in Suspend mode: leave out --mode");
  if (options.ci && options.keep) throw new UsageError("--keep waits for Ctrl-C after the story; --ci runs it once and exits: use one of them");
  const line =
    (write: (text: string) => void) =>
    (text: string): void =>
      write(`${text}\n`);
  const out = line(options.ci ? options.stderr : options.stdout);
  let stop!: () => void;
  const stopRequested = new Promise<void>((resolve) => (stop = resolve));
  const signals = stopSignals((signal) => {
    options.stderr(`\n${signal}: stopping the local cluster and removing it\n`);
    stop();
    // The control plane's own handler cleans up and exits; before it starts (while tools build), this does.
    setImmediate(() => process.exit(exitCodeOf(signal)));
  });
  try {
    const common = {
      keep: options.keep,
      out,
      results: line(options.stdout),
      progress: line((text) => options.stderr(`[fluxgate demo] ${text}`)),
      stopRequested,
    };
    const outcome = options.fleet === true ? await runFleetDemo(common) : await play({ modes, ...common });
    return { output: "", exitCode: outcome.results.every((r) => r.ok) ? EXIT_OK : EXIT_FAILED };
  } finally {
    signals.dispose();
  }
}
