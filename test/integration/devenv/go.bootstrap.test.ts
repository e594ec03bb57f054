// A machine whose only Go is Debian's golang-go (1.19): `npm run tools` fetches a current Go through the Go module proxy, caches it and builds with it.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { BOOTSTRAP_GO_VERSION, goMinor, MINIMUM_GO_MINOR } from "../../../src/devenv/go.ts";
import { repoRoot } from "../../../src/devenv/paths.ts";

const execFileAsync = promisify(execFile);

/** Debian's golang-go: /usr/lib/go-1.NN/bin/go, older than the tools need. */
async function debianGo(): Promise<string> {
  const dirs = existsSync("/usr/lib") ? (await readdir("/usr/lib")).filter((d) => /^go-1\.\d+$/.test(d)) : [];
  const old = dirs.filter((d) => goMinor(d.replace("go-", "go")) < MINIMUM_GO_MINOR).map((d) => join("/usr/lib", d, "bin", "go"));
  const found = old.find((p) => existsSync(p));
  if (found === undefined) {
    throw new Error(
      `this test needs an old Go as Debian ships it (/usr/lib/go-1.NN with NN < ${MINIMUM_GO_MINOR}): install it with \`apt-get install golang-go\` (.ci/run does)`,
    );
  }
  return found;
}

/** A PATH with node, git and the given go only (no other Go). */
async function pathWith(go: string | null): Promise<string> {
  const bin = await mkdtemp(join(tmpdir(), "fluxgate-path-"));
  await symlink(process.execPath, join(bin, "node"));
  const { stdout } = await execFileAsync("sh", ["-c", "command -v git"], { encoding: "utf8" });
  await symlink(stdout.trim(), join(bin, "git"));
  if (go !== null) await symlink(go, join(bin, "go"));
  return bin;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function tools(path: string, cache: string, ...args: string[]): Promise<Run> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [join(repoRoot, "scripts", "tools.ts"), ...args], {
      cwd: repoRoot,
      env: { ...process.env, PATH: path, FLUXGATE_CACHE_DIR: cache },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

test(`only Debian's Go on PATH: the tools fetch Go ${BOOTSTRAP_GO_VERSION} through the module proxy once, cache it and build with it`, async () => {
  const old = await debianGo();
  const bin = await pathWith(old);
  const cache = await mkdtemp(join(tmpdir(), "fluxgate-cache-"));
  try {
    const first = await tools(bin, cache, "cron-oracle");
    assert.equal(first.code, 0, `npm run tools failed:\n${first.stderr}`);
    const platformDir = (await readdir(cache)).find((d) => d.startsWith(`go-${BOOTSTRAP_GO_VERSION}-`));
    assert.ok(platformDir !== undefined, `no fetched toolchain in ${cache}: ${(await readdir(cache)).join(", ")}`);
    const goroot = join(cache, platformDir);
    assert.match(
      first.stderr,
      new RegExp(`Go on PATH is go1\\.\\d+.*fetching golang\\.org/toolchain@v0\\.0\\.1-go${BOOTSTRAP_GO_VERSION.replaceAll(".", "\\.")}\\.`),
    );
    assert.match(first.stderr, new RegExp(`fetched Go ${BOOTSTRAP_GO_VERSION.replaceAll(".", "\\.")} in \\d+s`));
    // The fetched Go runs by itself (its commands got their execute bits back) and built the tool.
    const { stdout: version } = await execFileAsync(join(goroot, "bin", "go"), ["env", "GOVERSION"], {
      env: { ...process.env, GOROOT: goroot, GOTOOLCHAIN: "local" },
      encoding: "utf8",
    });
    assert.equal(version.trim(), `go${BOOTSTRAP_GO_VERSION}`);
    const oracle = first.stdout.split("\n").find((l) => l.trim().startsWith("cron-oracle"));
    const binary = oracle?.trim().split(/\s+/).at(-1) ?? "";
    assert.ok(binary.startsWith(cache) && existsSync(binary), `the cron oracle was built into the test's cache: ${oracle ?? first.stdout}`);
    const { stdout: answer } = await execFileAsync("sh", ["-c", `echo '{"op":"validate","schedule":"0 9 * * 1-5"}' | "${binary}"`], { encoding: "utf8" });
    assert.match(answer, /"ok":\s*true/, "the built oracle answers");
    // Nothing of the download is left behind but the toolchain.
    assert.deepEqual(
      (await readdir(cache)).filter((d) => d.startsWith(".go-fetch-")),
      [],
    );

    // Warm: the cached toolchain is used; nothing is fetched again.
    await rm(dirname(binary), { recursive: true });
    const second = await tools(bin, cache, "cron-oracle");
    assert.equal(second.code, 0, second.stderr);
    assert.doesNotMatch(second.stderr, /fetching/);
    assert.ok(existsSync(binary), "rebuilt with the cached toolchain");
  } finally {
    await rm(cache, { recursive: true, force: true });
    await rm(bin, { recursive: true, force: true });
  }
});

test("no Go on PATH at all: the tools say how to get one, and build nothing", async () => {
  const bin = await pathWith(null);
  const cache = await mkdtemp(join(tmpdir(), "fluxgate-cache-"));
  try {
    const run = await tools(bin, cache, "cron-oracle");
    assert.equal(run.code, 1);
    assert.match(run.stderr, /`go` was not found on PATH/);
    assert.match(run.stderr, /apt-get install golang-go/);
    assert.match(run.stderr, new RegExp(`fetches Go ${BOOTSTRAP_GO_VERSION.replaceAll(".", "\\.")} through the Go module proxy`));
    const left = await readdir(cache, { recursive: true });
    assert.deepEqual(
      left.filter((f) => f.startsWith("go-") || f.endsWith("/cron-oracle")),
      [],
      "nothing was fetched or built",
    );
  } finally {
    await rm(cache, { recursive: true, force: true });
    await rm(bin, { recursive: true, force: true });
  }
});
