// What the CLI loads: shell completion (run on every TAB) and --help load no Kubernetes client, web framework or schema library; a command loads its own module
// only.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";

const run = promisify(execFile);
const CLI = new URL("../../../src/cli/main.ts", import.meta.url).pathname;

/** A module hook that records every module the process loads (import and require), written out at exit. */
const RECORDER = `
import { registerHooks } from "node:module";
import { writeFileSync } from "node:fs";
const seen = [];
registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } });
process.on("exit", () => writeFileSync(process.env.LOADED_OUT, seen.join("\\n")));
`;

/** Runs the CLI with `args` and returns its output and the modules it loaded. */
async function loaded(args: string[]): Promise<{ stdout: string; modules: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-startup-"));
  try {
    const hook = join(dir, "record.mjs");
    const out = join(dir, "loaded.txt");
    await writeFile(hook, RECORDER);
    const { stdout } = await run(process.execPath, ["--import", hook, CLI, ...args], {
      env: { ...process.env, LOADED_OUT: out, KUBECONFIG: join(dir, "none") },
    });
    return { stdout, modules: (await readFile(out, "utf8")).split("\n").filter((l) => l !== "") };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const HEAVY = ["@kubernetes/client-node", "/hono/", "@hono/", "/zod/"];

function heavyIn(modules: readonly string[]): string[] {
  return modules.filter((m) => HEAVY.some((h) => m.includes(`node_modules/${h.replace(/^\//, "")}`)));
}

test("completing a command, a flag, a -o format or explain's kinds loads neither client-node, hono nor zod", async () => {
  for (const words of [["st"], ["status", "--w"], ["status", "-o", ""], ["schedule", ""], ["explain", ""], ["explain", "he"]]) {
    const { stdout, modules } = await loaded(["__complete", "--", ...words]);
    assert.notEqual(stdout, "", `candidates for ${words.join(" ")}`);
    assert.deepEqual(heavyIn(modules), [], `fluxgate __complete -- ${words.join(" ")}`);
    assert.ok(!modules.some((m) => m.includes("/node_modules/")), `no dependency at all: ${modules.filter((m) => m.includes("/node_modules/")).join(", ")}`);
  }
});

test("--help and a command's --help load the specs only, not the commands' files", async () => {
  for (const args of [["--help"], ["status", "--help"], ["serve", "--help"]]) {
    const { stdout, modules } = await loaded(args);
    assert.match(stdout, /Usage: fluxgate/);
    assert.deepEqual(heavyIn(modules), [], `fluxgate ${args.join(" ")}`);
    const implementations = modules.filter((m) => /\/src\/cli\/(status|serve|explain|check)\.ts$/.test(m));
    assert.deepEqual(implementations, [], `fluxgate ${args.join(" ")} loads no implementation`);
  }
});

/** The files of the commands (src/cli/<command>.ts), as specs.ts loads them. */
const COMMAND_FILES =
  /\/src\/cli\/(approve|check|completion|controller|demo|explain|fleet-freeze|fleet-windows|init|migrate|open|overrides|release|schedule-preview|serve|split|status|version)\.ts$/;

test("a command loads its own file and not the others'", async () => {
  const { stdout, modules } = await loaded(["version"]);
  assert.match(stdout, /^fluxgate /);
  assert.deepEqual(
    modules.filter((m) => COMMAND_FILES.test(m)).map((m) => m.replace(/^.*\/src\//, "src/")),
    ["src/cli/version.ts"],
    "the file of version alone",
  );
  assert.deepEqual(heavyIn(modules), []);
});

test("--help of every command loads no command's file", async () => {
  const { stdout, modules } = await loaded(["--help"]);
  assert.match(stdout, /Usage: fluxgate COMMAND/);
  assert.deepEqual(
    modules.filter((m) => COMMAND_FILES.test(m)),
    [],
  );
});

/** The Kubernetes client and its dependencies (its package.json), and theirs that matter (socks, tar-stream, oauth4webapi, jose). */
const CLIENT = [
  "@kubernetes/client-node",
  "node-fetch",
  "ws",
  "isomorphic-ws",
  "tar-fs",
  "tar-stream",
  "socks",
  "socks-proxy-agent",
  "hpagent",
  "form-data",
  "js-yaml",
  "jsonpath-plus",
  "openid-client",
  "oauth4webapi",
  "jose",
  "rfc4648",
  "stream-buffers",
];

function clientIn(modules: readonly string[]): string[] {
  return modules.filter((m) => CLIENT.some((c) => m.includes(`/node_modules/${c}/`)));
}

test("schedule preview (from a file or from flags), check and init load no Kubernetes client", async () => {
  const repository = await mkdtemp(join(tmpdir(), "fluxgate-startup-repo-"));
  try {
    const windowFile = new URL("../../fixtures/windows/recurrence.yaml", import.meta.url).pathname;
    const range = ["--from", "2026-01-05T00:00:00Z", "--to", "2026-01-12T00:00:00Z"];
    const cases: Array<[string[], RegExp]> = [
      [["schedule", "preview", "--start", "0 8 * * MON-FRI", "--duration", "1h", ...range], /open intervals?/],
      [["schedule", "preview", "--start", "0 8 * * MON-FRI", "--duration", "1h", ...range, "-o", "json"], /"open"/],
      [["schedule", "preview", "--file", windowFile, ...range], /Window /],
      [["init", repository, "--cluster", "edge"], /Cluster edge is set up/],
      [["check", repository], /No findings in 1 cluster/],
    ];
    for (const [args, expected] of cases) {
      const { stdout, modules } = await loaded(args);
      assert.match(stdout, expected, `fluxgate ${args.join(" ")}`);
      assert.ok(
        modules.some((m) => m.includes("/node_modules/")),
        "the recorder sees dependencies",
      );
      const client = clientIn(modules);
      assert.equal(client.length, 0, `fluxgate ${args.join(" ")} loads ${client.length} modules of the client, the first ${client[0]}`);
    }
  } finally {
    await rm(repository, { recursive: true, force: true });
  }
});

test("schedule preview from flags loads no YAML library unless it writes YAML; from a file it reads one", async () => {
  const range = ["--from", "2026-01-05T00:00:00Z", "--to", "2026-01-12T00:00:00Z"];
  const flags = ["schedule", "preview", "--start", "0 8 * * MON-FRI", "--duration", "1h", "--tz", "Europe/Berlin", ...range];
  const yamlIn = (modules: readonly string[]): string[] => modules.filter((m) => m.includes("/node_modules/yaml/"));
  for (const [args, expected] of [
    [flags, /open intervals?/],
    [[...flags, "-o", "json"], /"timeZone": "Europe\/Berlin"/],
  ] as const) {
    const { stdout, modules } = await loaded([...args]);
    assert.match(stdout, expected);
    assert.deepEqual(yamlIn(modules), [], `fluxgate ${args.join(" ")} loads the YAML library`);
  }
  const asYaml = await loaded([...flags, "-o", "yaml"]);
  assert.match(asYaml.stdout, /^timeZone: "Europe\/Berlin"\nopen:\n {2}- start: "2026-01-05T07:00:00Z"\n {4}end: "2026-01-05T08:00:00Z"\n/);
  assert.ok(yamlIn(asYaml.modules).length > 0, "YAML output is written with the YAML library's own quoting of the zone");
  const windowFile = new URL("../../fixtures/windows/recurrence.yaml", import.meta.url).pathname;
  const fromFile = await loaded(["schedule", "preview", "--file", windowFile, ...range]);
  assert.match(fromFile.stdout, /Window /);
  assert.ok(yamlIn(fromFile.modules).length > 0, "a manifest is read with the YAML library");
});
