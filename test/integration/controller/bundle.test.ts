// The controller as the image runs it: `node dist/cli/main.js controller`, which runs dist/cli/controller.cjs, the bundle scripts/bundle.ts makes (src/cli/controller-bundle.ts);
// and `fluxgate schedule preview` from its bundle, dist/cli/schedule-preview.js.

import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { builtinModules, isBuiltin } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { parse } from "yaml";
import { buildCli, ON_DEMAND, type BuiltCli } from "../../../scripts/bundle.ts";
import { writeUserKubeconfig } from "../kube/forms.ts";
import { CONTROLLER_BUILTINS } from "../../../src/cli/heap.ts";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import { startTunnellingProxy } from "../../support/proxy.ts";
import { createKustomization, createWindow, setup, waitForSuspend, YEARLY } from "./helpers.ts";

const plane = sharedControlPlane();
let cli: BuiltCli;

before(async () => {
  cli = await buildCli();
});

after(async () => {
  await cli.remove();
});

/** The build's src/cli/controller-bundle.ts, which runs the bundle as `fluxgate controller` does. */
const loader = (): string => join(dirname(cli.main), "controller-bundle.js");

test("the bundle holds every module the controller loads: it imports only Node's own and the CLI's error classes", () => {
  const output = Object.values(cli.bundle.metafile.outputs).find((o) => o.entryPoint === "src/cli/controller.ts");
  assert.ok(output, "the bundle's entry is src/cli/controller.ts");
  const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
  const foreign = output.imports.filter((i) => !builtins.has(i.path));
  // ../errors.js is dist/errors.js, shared with the CLI's entry; node-fetch tries an optional helper inside try/catch.
  assert.deepEqual([...new Set(foreign.map((i) => i.path))].sort(), ["../errors.js", "encoding"], "only the error classes and optional requires are left out");
  const apis = Object.keys(output.inputs).filter((i) => /\/gen\/apis\/\w+Api\.js$/.test(i));
  assert.deepEqual(apis, [], "no generated API class of client-node is bundled (src/kube/transport.ts sends the few requests the controller makes)");
  // The informers are fluxgate's own (src/kube/informer.ts): client-node's list-watch cache and what only it and its other unused modules need are left out.
  const unused = Object.keys(output.inputs).filter((i) =>
    /\/client-node\/dist\/(gen\/models\/|cache\.js|watch\.js|serializer\.js|cp\.js|attach\.js|portforward\.js)|\/node_modules\/(ws|tar-fs|tar-stream)\//.test(
      i,
    ),
  );
  assert.deepEqual(unused, [], "no generated model, list-watch cache, websocket or tar module is bundled");
});

test("the bundle loads Node's own modules with require(): importing node:http would load Node's undici for its WebSocket getter", () => {
  const output = Object.values(cli.bundle.metafile.outputs).find((o) => o.entryPoint === "src/cli/controller.ts");
  assert.ok(output, "the bundle's entry is src/cli/controller.ts");
  const imported = output.imports.filter((i) => i.kind === "import-statement" && isBuiltin(i.path)).map((i) => i.path);
  assert.deepEqual(imported, [], "no import statement of a built-in module");
  const loaded = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `await (await import(${JSON.stringify(loader())})).loadControllerCommand(); console.log(process.moduleLoadList.filter((m) => /undici/.test(m)).join(","))`,
    ],
    { encoding: "utf8" },
  );
  assert.equal(loaded.status, 0, loaded.stderr);
  assert.equal(loaded.stdout.trim(), "", "loading the bundle loads no undici");
});

test("the bundle loads, as it starts, no public module of Node's own beyond those the controller loads before its V8 flags", () => {
  const loaded = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `for (const id of ${JSON.stringify(CONTROLLER_BUILTINS)}) process.getBuiltinModule(id);
       const before = new Set(process.moduleLoadList);
       await (await import(${JSON.stringify(loader())})).loadControllerCommand();
       console.log(process.moduleLoadList.filter((m) => !before.has(m) && /^NativeModule (?!internal\\/)/.test(m)).join(","))`,
    ],
    { encoding: "utf8" },
  );
  assert.equal(loaded.status, 0, loaded.stderr);
  // Loaded after the flags, a module is compiled without Node's code cache (src/cli/heap.ts, CONTROLLER_BUILTINS).
  assert.equal(loaded.stdout.trim(), "", "every public built-in the bundle loads at its start is in CONTROLLER_BUILTINS");
});

test("bad flags of the built controller are bad usage (exit 2, one line), as from the sources", () => {
  for (const args of [
    ["--resync-period", "bogus"],
    ["--kubeconfig", "/nonexistent/kubeconfig"],
  ]) {
    const built = spawnSync(process.execPath, [cli.main, "controller", ...args], { encoding: "utf8" });
    const source = spawnSync(process.execPath, ["src/cli/main.ts", "controller", ...args], { encoding: "utf8" });
    assert.equal(built.status, 2, `${args.join(" ")}: ${built.stderr}`);
    assert.equal(built.stderr, source.stderr, "the same message as from the sources");
    assert.match(built.stderr, /^error: [^\n]+\n$/, "one line, no stack");
  }
});

/** A kubeconfig of the shared control plane for `user` (writeUserKubeconfig) in a new directory: its path and a remover. */
async function kubeconfigFile(user: Record<string, unknown>, cluster: Record<string, unknown> = {}): Promise<{ path: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-bundle-"));
  const path = await writeUserKubeconfig(join(dir, "kubeconfig"), plane(), user, cluster);
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Runs the built `fluxgate controller` with `kubeconfigPath` on the namespace of `s`, with leader
 * election, until apps-rw (under a closed window) is suspended and /readyz answers 200; then stops
 * it with SIGTERM and checks it stopped cleanly. Returns its log lines.
 */
async function enforcesClosedWindow(
  s: Awaited<ReturnType<typeof setup>>,
  kubeconfigPath: string,
  env: Record<string, string> = {},
): Promise<Array<Record<string, unknown>>> {
  await createKustomization(s, "apps-rw");
  await createWindow(s, "closed", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const child = spawn(
    process.execPath,
    [
      cli.main,
      "controller",
      "--kubeconfig",
      kubeconfigPath,
      "--namespace",
      s.namespace,
      "--target-kinds",
      "Kustomization",
      "--metrics-addr",
      "127.0.0.1:0",
      "--health-addr",
      "127.0.0.1:0",
      "--leader-elect",
      "--leader-election-namespace",
      "fluxgate-system",
    ],
    { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...env } },
  );
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  try {
    await waitForSuspend(s, "apps-rw", true, 60_000);
    const logs = stderr
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const started = logs.find((l) => l.msg === "Started controller") as { healthAddr: string } | undefined;
    assert.ok(started, "it logged its addresses");
    await waitFor("/readyz", async () => ((await fetch(`http://${started.healthAddr}/readyz`)).status === 200 ? true : undefined));
    assert.doesNotMatch(stderr, /Warning|Deprecat/, "no runtime warning from a bundled dependency");
    return logs;
  } finally {
    child.kill("SIGTERM");
    const code = await exited;
    assert.equal(code, 0, `it stops cleanly on SIGTERM: ${stderr.slice(-2000)}`);
  }
}

test("`fluxgate controller` from the build, authenticated by an exec credential plugin, enforces a closed window, leads with a Lease and answers /readyz", async () => {
  const s = await setup(plane());
  // The plugin runs in a child process the bundled client spawns: the part of a kubeconfig a bundle is likeliest to break.
  const token = s.controllerKubeConfig.getCurrentUser()?.token;
  assert.ok(token, "the controller's identity has a token");
  const credential = JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential", status: { token } });
  const kubeconfig = await kubeconfigFile({
    exec: {
      apiVersion: "client.authentication.k8s.io/v1",
      command: process.execPath,
      args: ["-e", `process.stdout.write(${JSON.stringify(credential)})`],
      interactiveMode: "Never",
    },
  });
  try {
    const logs = await enforcesClosedWindow(s, kubeconfig.path);
    assert.ok(
      logs.some((l) => l.msg === "Started leading"),
      "it took the Lease",
    );
  } finally {
    await kubeconfig.remove();
  }
});

test("the packages the bundle loads when first used stand in for themselves: client-node imports each through its stand-in, and the package is bundled behind it", () => {
  const output = Object.values(cli.bundle.metafile.outputs).find((o) => o.entryPoint === "src/cli/controller.ts");
  assert.ok(output, "the bundle's entry is src/cli/controller.ts");
  const inputs = Object.keys(output.inputs);
  for (const name of Object.keys(ON_DEMAND)) {
    assert.ok(inputs.includes(`on-demand:${name}`), `client-node's import of ${name} goes to its stand-in`);
    const importers = Object.entries(cli.bundle.metafile.inputs).filter(
      ([file, input]) => file.includes("/client-node/") && inputs.includes(file) && input.imports.some((i) => i.original === name),
    );
    assert.ok(importers.length > 0, `client-node imports ${name}`);
    for (const [file, input] of importers) {
      const resolved = input.imports.filter((i) => i.original === name).map((i) => i.path);
      assert.deepEqual([...new Set(resolved)], [`on-demand:${name}`], `${file} imports ${name} through its stand-in`);
      // A name imported by name that the stand-in lacks fails the build; one read from a namespace import (oidc.discovery) would not.
      const code = readFileSync(file, "utf8");
      for (const [, alias] of code.matchAll(new RegExp(`import \\* as (\\w+) from ['"]${name}['"]`, "g"))) {
        const used = [...code.matchAll(new RegExp(`\\b${alias as string}\\.(\\w+)`, "g"))].map((m) => m[1] as string);
        assert.ok(used.length > 0, `${file} uses ${name} through ${alias as string}`);
        for (const member of used)
          assert.ok(ON_DEMAND[name]?.includes(member), `${file} uses ${name}'s ${member}, which its stand-in lacks (scripts/bundle.ts, ON_DEMAND)`);
      }
    }
    assert.ok(
      inputs.some((i) => i.startsWith(`node_modules/${name}/`) || i.includes(`/node_modules/${name}/`)),
      `${name} itself is in the bundle, behind its stand-in`,
    );
  }
  const languages = inputs.filter((i) => i.startsWith("node_modules/zod/v4/locales/"));
  assert.deepEqual(
    languages.map((i) => i.replace(/^.*\//, "")),
    ["en.js"],
    "of zod's languages, only English is bundled",
  );
});

test("`fluxgate controller` from the build, through the HTTP proxy its kubeconfig names (loaded when first used), enforces a closed window", async () => {
  const s = await setup(plane());
  const token = s.controllerKubeConfig.getCurrentUser()?.token;
  assert.ok(token, "the controller's identity has a token");
  // A tunnelling proxy, as the proxy agents client-node makes use: it records what it was asked to reach and joins it.
  const proxy = await startTunnellingProxy();
  const kubeconfig = await kubeconfigFile({ token }, { "proxy-url": proxy.url });
  try {
    await enforcesClosedWindow(s, kubeconfig.path);
    const server = new URL(plane().server);
    assert.ok(proxy.asked.length > 0, "the controller's requests went through the proxy");
    assert.deepEqual([...new Set(proxy.asked)], [`${server.hostname}:${server.port}`], "the proxy was asked for the API server's address only");
  } finally {
    await kubeconfig.remove();
    await proxy.close();
  }
});

/**
 * A cache file made from the same bundle as `first` (its mark and the bundle's checksum and length, src/cli/controller-bundle.ts) and as large
 * within a tenth: V8's code cache of the same run is not the same bytes each time.
 */
function usable(file: Buffer, first: Buffer): boolean {
  return file.subarray(0, 12).equals(first.subarray(0, 12)) && Math.abs(file.length - first.length) < first.length / 10;
}

/** `fluxgate controller` of the build with NODE_COMPILE_CACHE=`dir` and NODE_DEBUG=fluxgate, stopped by its missing kubeconfig (as the image's build runs it): its exit code and what it wrote. */
function warmUp(dir: string, env: Record<string, string> = {}): { status: number | null; stderr: string } {
  const run = spawnSync(process.execPath, [cli.main, "controller", "--kubeconfig", "/nonexistent/kubeconfig"], {
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, ...env, NODE_COMPILE_CACHE: dir, NODE_DEBUG: "fluxgate" },
  });
  return { status: run.status, stderr: run.stderr };
}

test("the bundle's code cache: written as the controller exits where NODE_COMPILE_CACHE names a directory, used by the next start, made again when damaged or of another bundle, never where it cannot be written", async () => {
  if (process.getuid?.() !== 0) {
    assert.fail("this test needs root, to run the controller as another user (setpriv) on a read-only directory: run the suite as root, as .ci/run does");
  }
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-code-cache-"));
  const file = join(dir, `fluxgate-controller-${process.version}-${process.arch}`);
  const failure = spawnSync(process.execPath, [cli.main, "controller", "--kubeconfig", "/nonexistent/kubeconfig"], {
    encoding: "utf8",
    timeout: 60_000,
  }).stderr;
  const errorLine = (stderr: string): string =>
    stderr
      .split("\n")
      .filter((l) => l.startsWith("error: "))
      .join("\n") + "\n";
  try {
    const first = warmUp(dir);
    assert.equal(first.status, 2, first.stderr);
    assert.match(first.stderr, /controller code cache .*: none \(ENOENT\)/);
    assert.match(first.stderr, /controller code cache .*: written \(\d+ bytes\)/);
    assert.equal(errorLine(first.stderr), errorLine(failure), "the same error as without a cache");
    const written = readFileSync(file);
    // More than the top level: the functions its start ran (the bundle's top level alone, as Node's compile cache keeps it, is about 0.55 MB).
    assert.ok(written.length > 700_000, `the cache holds the functions the start compiled: ${written.length} bytes`);

    const second = warmUp(dir);
    assert.equal(second.status, 2, second.stderr);
    assert.match(second.stderr, /controller code cache .*: used/);
    assert.doesNotMatch(second.stderr, /written/, "a cache that was used is not written again");
    assert.equal(errorLine(second.stderr), errorLine(failure));
    assert.ok(readFileSync(file).equals(written), "the file is as the first start wrote it");

    // One bit of V8's data changed: its checksum no longer matches, and V8 is never handed it.
    const damaged = Buffer.from(written);
    damaged[damaged.length - 1] = (damaged[damaged.length - 1] as number) ^ 1;
    writeFileSync(file, damaged);
    const third = warmUp(dir);
    assert.equal(third.status, 2, third.stderr);
    assert.match(third.stderr, /controller code cache .*: damaged, not used/);
    assert.match(third.stderr, /written/);
    assert.equal(errorLine(third.stderr), errorLine(failure));
    assert.ok(usable(readFileSync(file), written), "made again from this bundle");

    // Made from another bundle (its checksum in the header): V8 checks a cache against the length of its source alone.
    const other = Buffer.from(written);
    other.writeUInt32LE((other.readUInt32LE(4) + 1) >>> 0, 4);
    writeFileSync(file, other);
    const fourth = warmUp(dir);
    assert.match(fourth.stderr, /controller code cache .*: made from another bundle, not used/);
    assert.ok(usable(readFileSync(file), written), "made again from this bundle");

    // Read-only, as in the pod: used as it is, and a damaged one is not replaced (nor is anything else written).
    writeFileSync(file, damaged);
    chmodSync(dir, 0o555);
    // Another user than root, whom permissions do not stop: the build (a directory of its writer's only) is opened to it meanwhile.
    const build = dirname(dirname(dirname(cli.main)));
    chmodSync(build, 0o755);
    try {
      const readOnly = spawnSync(
        "setpriv",
        ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, cli.main, "controller", "--kubeconfig", "/nonexistent/kubeconfig"],
        {
          encoding: "utf8",
          timeout: 60_000,
          env: { ...process.env, NODE_COMPILE_CACHE: dir, NODE_DEBUG: "fluxgate" },
        },
      );
      assert.equal(readOnly.status, 2, readOnly.stderr);
      assert.match(readOnly.stderr, /controller code cache .*: not written \(EACCES\)/);
      assert.equal(errorLine(readOnly.stderr), errorLine(failure));
      assert.ok(readFileSync(file).equals(damaged), "left as it was");
      assert.deepEqual(
        readdirSync(dir).filter((f) => f.startsWith("fluxgate-")),
        [`fluxgate-controller-${process.version}-${process.arch}`],
        "no partial file left",
      );
    } finally {
      chmodSync(dir, 0o755);
      chmodSync(build, 0o700);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("`fluxgate controller` from the build, started from the code cache its warm-up made (as the image's), enforces a closed window and leaves the cache as it was", async () => {
  const s = await setup(plane());
  const token = s.controllerKubeConfig.getCurrentUser()?.token;
  assert.ok(token, "the controller's identity has a token");
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-code-cache-"));
  const kubeconfig = await kubeconfigFile({ token });
  try {
    // As the pod runs: the Deployment's V8 options (a cache is V8's for one set of flags), in the warm-up as in the start.
    const pod = deploymentEnv();
    assert.equal(warmUp(dir, pod).status, 2);
    const file = join(dir, `fluxgate-controller-${process.version}-${process.arch}`);
    const made = readFileSync(file);
    await enforcesClosedWindow(s, kubeconfig.path, { ...pod, NODE_COMPILE_CACHE: dir });
    // Written again only when it was not used (src/cli/controller-bundle.ts): the start ran on the warm-up's code.
    assert.ok(readFileSync(file).equals(made), "the cache was used, not made again");
  } finally {
    await kubeconfig.remove();
    await rm(dir, { recursive: true, force: true });
  }
});

/** The controller container's environment values in config/manager/deployment.yaml (NODE_OPTIONS, MALLOC_ARENA_MAX), as process.readonly.test.ts reads them. */
function deploymentEnv(): Record<string, string> {
  const deployment = parse(readFileSync(new URL("../../../config/manager/deployment.yaml", import.meta.url), "utf8")) as {
    spec: { template: { spec: { containers: { env?: { name: string; value?: string }[] }[] } } };
  };
  const env = Object.fromEntries(
    (deployment.spec.template.spec.containers[0]?.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value as string]),
  );
  assert.match(env.NODE_OPTIONS ?? "", /--max-semi-space-size=/, "the Deployment sets the controller's V8 options");
  return env;
}

/** Runs `fluxgate` with `args` from the build and from the sources: the status, stdout and stderr of each. */
function bothWays(args: readonly string[]): { built: ReturnType<typeof spawnSync>; source: ReturnType<typeof spawnSync> } {
  const env = { ...process.env, NO_COLOR: "1" };
  return {
    built: spawnSync(process.execPath, [cli.main, ...args], { encoding: "utf8", env }),
    source: spawnSync(process.execPath, ["src/cli/main.ts", ...args], { encoding: "utf8", env }),
  };
}

test("`fluxgate schedule preview` from the build loads its one bundled file (dist/cli/schedule-preview.js), no package, and YAML only inside it when it reads a manifest", async () => {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-preview-bundle-"));
  try {
    const hook = join(dir, "record.mjs");
    writeFileSync(
      hook,
      `import { registerHooks } from "node:module";
import { writeFileSync } from "node:fs";
const seen = [];
registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } });
process.on("exit", () => writeFileSync(process.env.LOADED_OUT, seen.join("\\n")));
`,
    );
    const manifest = join(dir, "window.yaml");
    writeFileSync(
      manifest,
      "apiVersion: fluxgate.io/v1alpha1\nkind: ReconciliationWindow\nmetadata: {name: weekdays}\nspec:\n  schedules: [{start: '0 8 * * 1-5', duration: 8h}]\n  targets: [{kind: Kustomization, name: apps}]\n",
    );
    const distUrl = `file://${dirname(dirname(cli.main))}/`;
    for (const args of [
      ["schedule", "preview", "--start", "0 8 * * MON", "--duration", "8h", "--tz", "Europe/Berlin", "-o", "json"],
      ["schedule", "preview", "--file", manifest],
    ]) {
      const out = join(dir, "loaded.txt");
      const run = spawnSync(process.execPath, ["--import", hook, cli.main, ...args], { encoding: "utf8", env: { ...process.env, LOADED_OUT: out } });
      assert.equal(run.status, 0, run.stderr);
      const modules = readFileSync(out, "utf8")
        .split("\n")
        .filter((m) => m.startsWith("file:"));
      const ours = modules.filter((m) => m.startsWith(distUrl)).map((m) => m.slice(distUrl.length));
      assert.ok(ours.includes("cli/schedule-preview.js"), `the command's file: ${ours.join(", ")}`);
      assert.deepEqual(
        ours.filter((m) => !/^(cli\/(main|specs|command|errors|heap|schedule-preview)|cli\/format\/color|errors)\.js$/.test(m)),
        [],
        "beside the CLI's entry, its specs and the shared error classes, nothing of dist/ but the bundle",
      );
      assert.deepEqual(
        modules.filter((m) => !m.startsWith(distUrl)),
        [],
        "no package from node_modules: the schemas' zod and the YAML library are in the bundle",
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("`fluxgate schedule preview` from the build answers as from the sources, byte for byte: tables, JSON, YAML, holidays, recurrence rules, and bad input", () => {
  const year = ["--from", "2026-01-01T00:00:00Z", "--to", "2027-01-01T00:00:00Z"];
  for (const args of [
    ["--start", "0 8 * * MON", "--end", "0 17 * * THU", "--tz", "Europe/Berlin", ...year],
    [
      "--start",
      "*/30 1-3 * * SUN",
      "--duration",
      "20m",
      "--tz",
      "America/New_York",
      "--from",
      "2026-03-01T00:00:00Z",
      "--to",
      "2026-03-15T00:00:00Z",
      "-o",
      "json",
    ],
    ["--recurrence", "FREQ=MONTHLY;BYDAY=2SU", "--at", "02:30", "--duration", "2h", "--tz", "Europe/Berlin", ...year, "-o", "yaml"],
    [
      "--start",
      "0 6 * * *",
      "--duration",
      "12h",
      "--holidays",
      "DE-BY",
      "--tz",
      "Europe/Berlin",
      "--from",
      "2026-12-20T00:00:00Z",
      "--to",
      "2027-01-10T00:00:00Z",
    ],
    ["--start", "0 25 * * *", "--duration", "1h"],
    ["--start", "0 8 * * *", "--duration", "1h", "--tz", "Mars/Olympus"],
    ["--start", "0 8 * * *", "--duration", "1h", "--from", "2026-01-01T00:00:00Z", "--to", "2028-01-01T00:00:00Z"],
    ["--file", "/nonexistent/window.yaml"],
  ]) {
    const { built, source } = bothWays(["schedule", "preview", ...args]);
    assert.equal(built.status, source.status, `${args.join(" ")}: exit ${String(built.status)}: ${String(built.stderr)}`);
    assert.equal(built.stdout, source.stdout, `${args.join(" ")}: the same output`);
    assert.equal(built.stderr, source.stderr, `${args.join(" ")}: the same errors`);
    assert.ok(String(built.stdout).length > 0 || String(built.stderr).startsWith("error: "), `${args.join(" ")}: an answer or an error`);
  }
});

test("`fluxgate schedule preview` from the build of a window in the cluster (the cluster helpers are dist/'s, not bundled)", async () => {
  const s = await setup(plane());
  await createWindow(s, "nightly", { schedules: [{ start: "0 1 * * *", duration: "2h" }], targets: [{ kind: "Kustomization", name: "apps" }] });
  const args = [
    "schedule",
    "preview",
    "nightly",
    "--kubeconfig",
    s.controllerKubeconfigPath,
    "-n",
    s.namespace,
    "--from",
    "2026-06-01T00:00:00Z",
    "--to",
    "2026-06-04T00:00:00Z",
  ];
  const { built, source } = bothWays([...args, "-o", "json"]);
  assert.equal(built.status, 0, String(built.stderr));
  assert.equal(built.stdout, source.stdout, "the same intervals as from the sources");
  assert.deepEqual((JSON.parse(String(built.stdout)) as { open: unknown[] }).open.length, 3, "three nights");
  const missing = bothWays(["schedule", "preview", "absent", "--kubeconfig", s.controllerKubeconfigPath, "-n", s.namespace]);
  assert.notEqual(missing.built.status, 0, "a window that is not there is an error");
  assert.equal(missing.built.stderr, missing.source.stderr, "the same error as from the sources");
});
