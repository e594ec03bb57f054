// Prometheus' own promtool (Debian's `prometheus` package): lints a /metrics page, checks and unit-tests alerting rules.
import { spawn, spawnSync } from "node:child_process";

/** The promtool binary: $FLUXGATE_PROMTOOL, else `promtool` on PATH; fails with how to get it. */
export function promtool(): string {
  const path = process.env["FLUXGATE_PROMTOOL"] ?? "promtool";
  const probe = spawnSync(path, ["--version"], { encoding: "utf8" });
  if (probe.error !== undefined || probe.status !== 0) {
    throw new Error(
      `promtool is needed to check metrics and alerting rules and was not found (${path}): install Debian's prometheus package (\`apt-get install prometheus\`; .ci/run does), or set FLUXGATE_PROMTOOL`,
    );
  }
  return path;
}

export interface PromtoolResult {
  code: number;
  output: string;
}

/** Runs promtool with `args`, `input` on stdin; resolves with its exit code and everything it printed. */
export function runPromtool(args: readonly string[], input?: string): Promise<PromtoolResult> {
  const bin = promtool();
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (output += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (output += c));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, output }));
    child.stdin.end(input ?? "");
  });
}

/** `promtool check metrics`: the exposition text follows Prometheus' naming and format rules (names, units, help). */
export async function checkMetrics(text: string): Promise<PromtoolResult> {
  return await runPromtool(["check", "metrics"], text);
}
