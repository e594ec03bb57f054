// Every `$ curl ...` example in docs/config-service.md runs against a served fixture fleet and prints exactly what the page shows.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { after, before, test } from "node:test";
import { addClusterKey } from "../../../src/server/status/keys.ts";
import { startService, type RunningService } from "../../../src/server/server.ts";
import { NOW, tempDir, writeFleet, testServiceOptions, writeTokens, type Tokens } from "../../support/server.ts";
import { kustomizeRunner, writeGeneratedFleet } from "../../support/fleet.ts";

const PAGE = new URL("../../../docs/config-service.md", import.meta.url);
/** The address the page writes; the test's server listens on a free port instead. */
const DOCUMENTED = "http://localhost:8080";
/** The address of the page's fleet examples: a generated fleet of eight labelled clusters with fleet windows, rendered by the real kustomize. */
const DOCUMENTED_FLEET = "http://localhost:8081";

interface Example {
  line: number;
  command: string;
  expected: string;
  /** Variable assignments shown before it in its block. */
  variables: string;
}

/** A line that sets a shell variable, e.g. `EVENT='{...}'`. */
export const SHELL_VARIABLE = /^[A-Z_][A-Z0-9_]*=/;

/** The curl examples of the page, in order: each `$ curl` line (with continuations) and the lines up to the next `$`. */
export function curlExamples(text: string): Example[] {
  const out: Example[] = [];
  for (const block of text.matchAll(/^```console\n([\s\S]*?)^```$/gm)) {
    const first = text.slice(0, block.index).split("\n").length + 1;
    const lines = (block[1] as string).split("\n");
    lines.pop();
    let current: Example | null = null;
    // `$ NAME=...` lines set variables for the block's curl commands, as a reader's shell would.
    let variables = "";
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as string;
      if (line.startsWith("$ ")) {
        if (current !== null) out.push(current);
        let command = line.slice(2);
        while (command.endsWith("\\") && i + 1 < lines.length) command += `\n${lines[++i]}`;
        if (SHELL_VARIABLE.test(command)) variables += `${command}\n`;
        current = command.startsWith("curl ") ? { line: first + i, command, expected: "", variables } : null;
      } else if (current !== null) current.expected += `${line}\n`;
    }
    if (current !== null) out.push(current);
  }
  return out;
}

let service: RunningService;
let fleetService: RunningService;
let tokens: Tokens;
let repo: string;
let clusterKey: string;
let cleanup: () => Promise<void>;

before(async () => {
  const temp = await tempDir("docs");
  cleanup = temp.cleanup;
  repo = join(temp.dir, "fleet");
  await mkdir(repo);
  await writeFleet(repo);
  tokens = await writeTokens(temp.dir);
  const keysFile = join(temp.dir, "cluster-keys.yaml");
  clusterKey = await addClusterKey(keysFile, { cluster: "edge-berlin", now: NOW });
  service = await startService(
    testServiceOptions(repo, tokens.file, { version: "0.1.0", push: { keysFile, store: join(temp.dir, "status.db"), staleAfterMs: 15 * 60_000 } }),
  );
  const fleetRepo = join(temp.dir, "generated");
  await mkdir(fleetRepo);
  await writeGeneratedFleet(fleetRepo, 8);
  fleetService = await startService(testServiceOptions(fleetRepo, tokens.file, { version: "0.1.0", kustomize: (await kustomizeRunner()).runner }));
});

after(async () => {
  await service?.close();
  await fleetService?.close();
  await cleanup?.();
});

const examples = curlExamples(await readFile(PAGE, "utf8"));

test("the page has curl examples for every endpoint", () => {
  const all = examples.map((e) => e.command).join("\n");
  for (const path of [
    "/api/v1/clusters?",
    "/windows?",
    "/windows/apps-rw",
    "/overrides",
    "/timeline",
    "/calendar.ics",
    "/status",
    "/preview",
    "/healthz",
    "/metrics",
    "/events",
    "/fleet/status",
    "/fleet/clusters",
    "/fleet/windows/",
    "/windows/prod-changes/patch",
    "/fleet/overrides",
  ]) {
    assert.ok(all.includes(path), `an example of ${path}`);
  }
});

for (const example of examples) {
  test(`docs/config-service.md:${example.line}: ${example.command.split("\n")[0]}`, async () => {
    const command = `${example.variables}${example.command}`.replaceAll(DOCUMENTED, service.url).replaceAll(DOCUMENTED_FLEET, fleetService.url);
    // bash runs the line as a reader would paste it; the tokens are in the environment, as the page says.
    const { stdout } = await promisify(execFile)("bash", ["-c", command], {
      env: { PATH: process.env.PATH, TOKEN: tokens.editor, VIEWER_TOKEN: tokens.viewer, BREAKGLASS_TOKEN: tokens.breakglass, CLUSTER_KEY: clusterKey },
    }).catch((e: unknown) => {
      if ((e as NodeJS.ErrnoException).code === "ENOENT")
        throw new Error("the docs examples need bash, curl and openssl (Debian: apt-get install curl openssl)");
      throw e;
    });
    // The calendar's lines end with CRLF, as RFC 5545 wants, and JSON bodies end without a newline;
    // the page shows both as plain lines.
    const shown = stdout.replace(/\r\n/g, "\n");
    assert.equal(shown.endsWith("\n") ? shown : `${shown}\n`, example.expected);
  });
}

test("the page's git log line is the commit its PATCH example made, as git log --oneline shows it", async () => {
  const text = await readFile(PAGE, "utf8");
  const shown = /reads as a change log:\n\n```\n(.+)\n```/.exec(text)?.[1];
  assert.ok(shown !== undefined, "the page shows a git log line");
  const { stdout } = await promisify(execFile)("git", ["log", "--oneline", "--abbrev=7"], { cwd: repo });
  assert.ok(stdout.split("\n").includes(shown), `"${shown}" in:\n${stdout}`);
});
