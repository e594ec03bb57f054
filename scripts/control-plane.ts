// `npm run control-plane -- start --dir DIR [--flux]` / `stop --dir DIR`: a real control plane that outlives the command.
import { parseArgs } from "node:util";
import { startControlPlane, stopControlPlane } from "../src/devenv/control-plane.ts";
import { HarnessError } from "../src/devenv/errors.ts";

const usage = "usage: npm run control-plane -- start --dir DIR [--flux]\n       npm run control-plane -- stop --dir DIR";

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { dir: { type: "string" }, flux: { type: "boolean", default: false }, help: { type: "boolean", short: "h" } },
  });
  if (values.help === true) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  const [command] = positionals;
  if (values.dir === undefined || (command !== "start" && command !== "stop") || positionals.length !== 1) {
    throw new HarnessError("UsageError", usage);
  }
  if (command === "stop") {
    await stopControlPlane(values.dir);
    process.stdout.write(`stopped the control plane in ${values.dir}\n`);
    return;
  }
  const started = Date.now();
  const cp = await startControlPlane({ dir: values.dir, flux: values.flux, detached: true });
  const lines = [
    `control plane running (started in ${((Date.now() - started) / 1000).toFixed(1)}s)`,
    `  apiserver:  ${cp.server}`,
    `  kubeconfig: ${cp.kubeconfigPath}`,
  ];
  if (cp.gitUrl !== undefined) lines.push(`  git:        ${cp.gitUrl} (bare repositories in ${cp.gitRoot})`);
  if (cp.artifactUrl !== undefined) lines.push(`  artifacts:  ${cp.artifactUrl}`);
  if (cp.eventsUrl !== undefined) lines.push(`  events:     ${cp.eventsUrl} (notification-controller)`);
  lines.push(`  logs:       ${cp.dir}/logs`, `stop it with: npm run control-plane -- stop --dir ${values.dir}`);
  process.stdout.write(lines.join("\n") + "\n");
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
