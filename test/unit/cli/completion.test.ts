// Shell completion: the bash script run in a real bash, the candidates fluxgate gives for each position, and the zsh and fish scripts.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { complete, completion, type ClusterNames, type CompletionCommand } from "../../../src/cli/completion.ts";

const run = promisify(execFile);
const CLI = new URL("../../../src/cli/main.ts", import.meta.url).pathname;

/**
 * Completes each of `lines` (words; the last is being typed) in one real bash that loaded the script
 * `fluxgate completion bash` prints, and returns the candidates of each.
 */
async function bashComplete(...lines: string[][]): Promise<string[][]> {
  const calls = lines.map(
    (words) =>
      `COMP_WORDS=(fluxgate ${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length}; _fluxgate_complete; printf '%s\\n' "\${COMPREPLY[@]}" "---"`,
  );
  const script = `fluxgate() { "$NODE" "$CLI" "$@"; }\nsource <(fluxgate completion bash)\n${calls.join("\n")}\n`;
  let bash: string;
  try {
    bash = (await run("sh", ["-c", "command -v bash"])).stdout.trim();
  } catch {
    throw new Error("bash is needed for this test: install it (apt-get install bash)");
  }
  const { stdout } = await run(bash, ["-c", script], { env: { ...process.env, NODE: process.execPath, CLI } });
  return stdout
    .split("---\n")
    .slice(0, lines.length)
    .map((block) => block.split("\n").filter((l) => l !== ""));
}

test("bash: commands, subcommands, flags, -o formats and argument choices", async () => {
  const [sta, top, schedule, output, watch, shells, overrides, kinds, flags] = await bashComplete(
    ["sta"],
    [""],
    ["schedule", ""],
    ["status", "-o", ""],
    ["status", "--w"],
    ["completion", ""],
    ["overrides", ""],
    ["explain", "kus"],
    ["open", "weekday-changes", "--"],
  );
  assert.deepEqual(sta, ["status"]);
  for (const c of ["status", "explain", "open", "freeze", "overrides", "schedule", "completion", "version"])
    assert.ok(top?.includes(c), `${c} in ${top?.join(" ")}`);
  assert.ok(!top?.some((c) => c.startsWith("__")), "the helper command stays hidden");
  assert.deepEqual(schedule, ["preview"]);
  assert.deepEqual(output, ["table", "wide", "json", "yaml"]);
  assert.deepEqual(watch, ["--watch"]);
  assert.deepEqual(shells, ["bash", "zsh", "fish"]);
  assert.deepEqual(overrides, ["list", "cancel"]);
  assert.deepEqual(kinds, ["kustomization/"]);
  for (const f of ["--kubeconfig", "--context", "--namespace", "--for", "--until", "--reason", "--name", "--no-wait", "--output", "--help"])
    assert.ok(flags?.includes(f), `${f} in ${flags?.join(" ")}`);
});

test("bash: contexts from the kubeconfig the words name", async () => {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-completion-"));
  try {
    const kubeconfig = join(dir, "config");
    await writeFile(
      kubeconfig,
      `apiVersion: v1
kind: Config
clusters: [{name: a, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: edge-berlin, context: {cluster: a, user: u}}, {name: edge-paris, context: {cluster: a, user: u}}]
current-context: edge-berlin
`,
    );
    assert.deepEqual(await bashComplete(["status", "--kubeconfig", kubeconfig, "--context", "edge-"]), [["edge-berlin", "edge-paris"]]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

const COMMANDS: CompletionCommand[] = [
  {
    name: "open",
    summary: "Open a window",
    usage: "fluxgate open WINDOW [-o text|json|yaml]",
    options: { namespace: { type: "string", short: "n" }, kubeconfig: { type: "string" }, output: { type: "string", short: "o" } },
    args: { min: 1, max: 1, names: "WINDOW" },
  },
  {
    name: "freeze",
    summary: "Freeze a window",
    usage: "fluxgate freeze WINDOW",
    options: { namespace: { type: "string", short: "n" } },
    args: { min: 1, max: 1, names: "WINDOW" },
  },
  {
    name: "freeze import",
    summary: "Import a calendar",
    usage: "fluxgate freeze import CALENDAR.ics",
    options: {},
    args: { min: 1, max: 1, names: "CALENDAR.ics" },
  },
  {
    name: "explain",
    summary: "Explain",
    usage: "fluxgate explain KIND/NAME",
    options: { namespace: { type: "string", short: "n" } },
    args: { min: 1, max: 2, names: "KIND/NAME" },
  },
  {
    name: "overrides",
    summary: "Overrides",
    usage: "fluxgate overrides [list|cancel NAME]",
    options: { namespace: { type: "string", short: "n" } },
    args: { min: 0, max: 2, names: "[list|cancel NAME]" },
  },
  { name: "serve", summary: "Serve", usage: "fluxgate serve", options: { port: { type: "string" } } },
  { name: "serve token add", summary: "Add a token", usage: "fluxgate serve token add", options: { name: { type: "string" } } },
];

/** A stand-in for the cluster, to check which names are asked for with which flags (the real lookups run in the integration tests). */
function fakeNames(asked: string[]): ClusterNames {
  return {
    windows: (flags, all) => {
      asked.push(`windows ns=${flags.namespace ?? ""} kubeconfig=${flags.kubeconfig ?? ""} all=${String(all)}`);
      return Promise.resolve([
        { name: "weekday-changes", description: "Closed, opens in 2h13m, Mon 08:00 CET" },
        { name: "weekend", description: "" },
      ]);
    },
    overrides: (flags) => {
      asked.push(`overrides ns=${flags.namespace ?? ""}`);
      return Promise.resolve([{ name: "hotfix", description: "Open weekday-changes until 2026-11-23T10:00:00Z (Active)" }]);
    },
    objects: (flags, kind) => {
      asked.push(`objects ${kind} ns=${flags.namespace ?? ""}`);
      return Promise.resolve(["apps-rt", "apps-rw"]);
    },
    namespaces: () => Promise.resolve(["edge", "flux-system"]),
    contexts: () => Promise.resolve(["kind-edge"]),
  };
}

test("the candidates: names from the cluster with descriptions, for the namespace and kubeconfig typed so far", async () => {
  const asked: string[] = [];
  const names = fakeNames(asked);
  assert.equal(
    await complete(["open", "--kubeconfig", "k.yaml", "-n", "flux-system", "week"], COMMANDS, names),
    "weekday-changes\tClosed, opens in 2h13m, Mon 08:00 CET\nweekend\n",
  );
  assert.deepEqual(asked, ["windows ns=flux-system kubeconfig=k.yaml all=false"]);
  assert.equal(await complete(["open", "weekday-changes", ""], COMMANDS, names), "", "one window only");
  assert.equal(await complete(["open", "-o", "j"], COMMANDS, names), "json\n");
  assert.equal(await complete(["open", "-n", ""], COMMANDS, names), "edge\nflux-system\n");
  assert.equal(await complete(["explain", "--namespace=edge", "kustomization/apps-r"], COMMANDS, names), "kustomization/apps-rt\nkustomization/apps-rw\n");
  assert.equal(asked[asked.length - 1], "objects kustomization ns=edge");
  assert.equal(
    await complete(["overrides", "cancel", "-n", "edge", ""], COMMANDS, names),
    "hotfix\tOpen weekday-changes until 2026-11-23T10:00:00Z (Active)\n",
  );
  assert.equal(await complete(["overrides", "list", ""], COMMANDS, names), "");
  assert.equal(await complete(["serve", ""], COMMANDS, names), "token\n");
  assert.equal(await complete(["serve", "token", ""], COMMANDS, names), "add\tAdd a token\n");
  assert.equal(await complete(["serve", "-"], COMMANDS, names), "--port\n--help\n");
  assert.equal(await complete(["nope", ""], COMMANDS, names), "");
  // A command with an argument and a sub-command: both (fluxgate freeze WINDOW, fluxgate freeze import).
  assert.equal(await complete(["freeze", ""], COMMANDS, names), "import\tImport a calendar\nweekday-changes\tClosed, opens in 2h13m, Mon 08:00 CET\nweekend\n");
  assert.equal(await complete(["freeze", "week"], COMMANDS, names), "weekday-changes\tClosed, opens in 2h13m, Mon 08:00 CET\nweekend\n");
  assert.equal(await complete(["freeze", "weekend", ""], COMMANDS, names), "", "one window only");
});

test("zsh and fish scripts ask fluxgate for the candidates and fall back to files; other shells are bad usage", async () => {
  const zsh = await completion("zsh");
  assert.match(zsh, /^#compdef fluxgate\n/);
  assert.match(zsh, /__complete -- "\$\{\(@\)words\[2,CURRENT\]\}"/);
  assert.match(zsh, /_describe -t values fluxgate described/);
  assert.match(zsh, /\|\| _files/);
  assert.match(zsh, /compdef _fluxgate fluxgate/);
  const fish = await completion("fish");
  assert.match(fish, /\$tokens\[1\] __complete -- \$tokens\[2\.\.-1\] "\$current"/);
  assert.match(fish, /__fish_complete_path "\$current"/);
  assert.match(fish, /^complete -c fluxgate -f -a '\(__fluxgate_complete\)'$/m);
  await assert.rejects(completion("powershell"), /completion powershell: the shells are bash, zsh and fish/);
});
