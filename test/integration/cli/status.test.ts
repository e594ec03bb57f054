// `fluxgate status`: the table a person reads (snapshot), the JSON and YAML contract, namespaces, against a real API server and controller.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify, stripVTControlCharacters } from "node:util";
import { test } from "node:test";
import { parse } from "yaml";
import { status } from "../../../src/cli/status.ts";
import { FLEET_NOW, fluxgate, sharedFleet } from "./helpers.ts";

const fleet = sharedFleet();
const ESC = "\u001b";
const SNAPSHOTS = new URL("__snapshots__/", import.meta.url).pathname;
let kubeconfig = "";

const read = async (options: {
  namespace?: string;
  allNamespaces?: boolean;
  output?: "table" | "wide" | "json" | "yaml";
  color?: boolean;
}): Promise<string> => {
  kubeconfig = (await fleet()).kubeconfig;
  return status({
    kubeconfig,
    namespace: options.namespace,
    allNamespaces: options.allNamespaces ?? false,
    output: options.output ?? "table",
    watch: false,
    color: options.color ?? false,
    now: () => FLEET_NOW,
  });
};

test("the table of every namespace: state, since, next change in the window's zone, targets, what waits and when it goes, what needs attention", async (t) => {
  const out = await read({ allNamespaces: true });
  t.assert.fileSnapshot(out, `${SNAPSHOTS}status-all-namespaces.txt`, { serializers: [(v) => String(v)] });
  // What the snapshot must say, so that an update cannot quietly lose it.
  assert.match(out, /^flux-system\s+holiday-freeze\s+Frozen\s+2d10h\s+freeze ends in 13d13h, Tue 2027-01-05 00:00 CET\s+0\/1 open\s+1\s+-$/m);
  assert.match(out, /^flux-system\s+weekday-changes\s+Open\s+1d2h\s+closes in 2d6h, Thu 17:00 CET\s+0\/1 open\s+1\s+-$/m);
  assert.match(out, /^edge\s+nightly\s+Closed\s+4h47m\s+opens in 17h13m, Tue 22:00 EST\s+0\/1 open\s+1\s+-$/m);
  assert.match(
    out,
    /^ {2}flux-system\s+Kustomization\/apps-rw\s+main@sha1:7d3e1f0a9b8c\s+2h47m\s+holiday-freeze, weekday-changes\s+in 13d13h, Tue 2027-01-05 00:00 CET$/m,
  );
  assert.match(out, /edge\/legacy: invalid spec, its targets are left as they are: spec\.schedules\[0\]\.start: /);
});

test("-o wide adds the mode and the controller's reason", async () => {
  const out = await read({ namespace: "flux-system", output: "wide" });
  const header = out.split("\n")[0] ?? "";
  assert.match(header, /^NAME\s+STATE\s+SINCE\s+NEXT\s+TARGETS\s+PENDING\s+OVERRIDE\s+MODE\s+REASON$/);
  assert.match(out, /^holiday-freeze .*Suspend\s+Frozen by freeze "Holiday freeze" \(2026-12-20T00:00 → 2027-01-05T00:00\) until Tue 2027-01-05 00:00 CET$/m);
});

test("-n shows one namespace without a NAMESPACE column; an empty one says how to look elsewhere", async () => {
  const out = await read({ namespace: "edge" });
  assert.equal(out.split("\n")[0]?.startsWith("NAME "), true, out);
  assert.doesNotMatch(out, /weekday-changes/);
  assert.match(out, /^legacy\s+Invalid\s+-\s+-\s+-\s+0\s+-$/m);
  const r = await fluxgate("status", "--kubeconfig", kubeconfig, "-n", "nothing-here");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "No windows in namespace nothing-here.\n");
});

test("-o json is exactly the documented structure, times in RFC 3339 UTC", async () => {
  kubeconfig = (await fleet()).kubeconfig;
  const r = await fluxgate("status", "--kubeconfig", kubeconfig, "-A", "-o", "json");
  assert.equal(r.code, 0, r.stderr);
  const got = JSON.parse(r.stdout);
  // The CLI's clock does not matter here: these fields are what the controller reported at FLEET_NOW.
  assert.deepEqual(got, {
    windows: [
      { namespace: "edge", name: "legacy", state: "Invalid", since: null, nextTransition: null, targets: null, pending: 0, override: null },
      {
        namespace: "edge",
        name: "nightly",
        state: "Closed",
        since: "2026-12-22T05:00:00Z",
        nextTransition: "2026-12-23T03:00:00Z",
        targets: { matched: 1, open: 0 },
        pending: 1,
        override: null,
      },
      {
        namespace: "flux-system",
        name: "holiday-freeze",
        state: "Frozen",
        since: "2026-12-19T23:00:00Z",
        nextTransition: "2027-01-04T23:00:00Z",
        targets: { matched: 1, open: 0 },
        pending: 1,
        override: null,
      },
      {
        namespace: "flux-system",
        name: "live-config",
        state: "Open",
        since: null,
        nextTransition: null,
        targets: { matched: 1, open: 1 },
        pending: 0,
        override: null,
      },
      {
        namespace: "flux-system",
        name: "weekday-changes",
        state: "Open",
        since: "2026-12-21T07:00:00Z",
        nextTransition: "2026-12-24T16:00:00Z",
        targets: { matched: 1, open: 0 },
        pending: 1,
        override: null,
      },
    ],
  });
  for (const w of got.windows) assert.deepEqual(Object.keys(w), ["namespace", "name", "state", "since", "nextTransition", "targets", "pending", "override"]);
});

test("-o yaml holds the same structure as -o json", async () => {
  kubeconfig = (await fleet()).kubeconfig;
  const json = await fluxgate("status", "--kubeconfig", kubeconfig, "-A", "-o", "json");
  const yaml = await fluxgate("status", "--kubeconfig", kubeconfig, "-A", "-o", "yaml");
  assert.equal(yaml.code, 0, yaml.stderr);
  assert.deepEqual(parse(yaml.stdout), JSON.parse(json.stdout));
  assert.match(yaml.stdout, /nextTransition: "2026-12-24T16:00:00Z"/);
});

test("colour only when asked for (a terminal), and the columns stay aligned", async () => {
  const plain = await read({ allNamespaces: true });
  const coloured = await read({ allNamespaces: true, color: true });
  assert.ok(!plain.includes(ESC));
  assert.ok(coloured.includes(`${ESC}[32mOpen${ESC}[39m`), coloured);
  assert.equal(stripVTControlCharacters(coloured), plain);
});

test("an unknown output format is bad usage (exit 2)", async () => {
  kubeconfig = (await fleet()).kubeconfig;
  const r = await fluxgate("status", "--kubeconfig", kubeconfig, "-o", "xml");
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /^error: -o xml: output must be one of table, wide, json, yaml\n$/);
});

/** Runs the real command in a pseudo-terminal (util-linux `script`), as a person at a terminal would. */
async function inTerminal(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const command = [process.execPath, new URL("../../../src/cli/main.ts", import.meta.url).pathname, ...args].map((a) => `'${a}'`).join(" ");
  try {
    // A person's terminal: Node counts any terminal as two-colour when CI is set, so CI is left out.
    const { CI: _ci, ...base } = process.env;
    const { stdout } = await promisify(execFile)("script", ["-qec", command, "/dev/null"], { env: { ...base, TERM: "xterm-256color", ...env } });
    return stdout;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT")
      throw new Error("this test needs script(1) from util-linux for a pseudo-terminal: apt-get install bsdutils", { cause: e });
    throw e;
  }
}

test("the real binary at a terminal colours the states; NO_COLOR and a pipe do not", async () => {
  kubeconfig = (await fleet()).kubeconfig;
  const args = ["status", "--kubeconfig", kubeconfig, "-A"];
  const terminal = await inTerminal(args, {});
  assert.ok(terminal.includes(`${ESC}[36mFrozen${ESC}[39m`), terminal);
  const noColor = await inTerminal(args, { NO_COLOR: "1" });
  assert.ok(!noColor.includes(ESC), noColor);
  assert.match(noColor, /holiday-freeze\s+Frozen/);
  const piped = await fluxgate(...args);
  assert.ok(!piped.stdout.includes(ESC));
});
