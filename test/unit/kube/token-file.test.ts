// A kubeconfig user's tokenFile, as kubectl reads it: relative to its kubeconfig (also among several files of $KUBECONFIG), read again after a minute, an
// inline token wins over it.

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { stringify } from "yaml";
import { loadKubeConfig } from "../../../src/kube/connection.ts";

const dir = mkdtempSync(join(tmpdir(), "fluxgate-token-file-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function kubeconfig(path: string, users: Record<string, Record<string, unknown>>, cluster = "c"): string {
  const doc = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: cluster, cluster: { server: "https://127.0.0.1:6443" } }],
    users: Object.entries(users).map(([name, user]) => ({ name, user })),
    contexts: Object.keys(users).map((name) => ({ name, context: { cluster, user: name } })),
    "current-context": Object.keys(users)[0] ?? "",
  };
  writeFileSync(path, stringify(doc));
  return path;
}

async function authorization(path: string | undefined, context?: string): Promise<string | undefined> {
  const kc = loadKubeConfig({ kubeconfig: path, context });
  const opts: { headers?: Record<string, string> } = {};
  await kc.applyToHTTPSOptions(opts);
  return opts.headers?.["Authorization"];
}

test("a relative tokenFile is read from the kubeconfig's directory, and read again when the file is replaced and a minute has passed", async (t) => {
  mkdirSync(join(dir, "a"));
  writeFileSync(join(dir, "a", "token"), "first");
  const path = kubeconfig(join(dir, "a", "config"), { u: { tokenFile: "token" } });
  assert.equal(await authorization(path), "Bearer first");

  t.mock.timers.enable({ apis: ["Date"], now: Date.now() });
  const kc = loadKubeConfig({ kubeconfig: path });
  const header = async (): Promise<string | undefined> => {
    const opts: { headers?: Record<string, string> } = {};
    await kc.applyToHTTPSOptions(opts);
    return opts.headers?.["Authorization"];
  };
  assert.equal(await header(), "Bearer first");
  writeFileSync(join(dir, "a", "token"), "second");
  assert.equal(await header(), "Bearer first", "read at most once a minute");
  t.mock.timers.tick(61_000);
  assert.equal(await header(), "Bearer second");
});

test("an inline token wins over a tokenFile, as in kubectl", async () => {
  writeFileSync(join(dir, "unused-token"), "from-file");
  const path = kubeconfig(join(dir, "both.yaml"), { u: { token: "inline", tokenFile: join(dir, "unused-token") } });
  assert.equal(await authorization(path), "Bearer inline");
});

test("with several files in $KUBECONFIG, a tokenFile is relative to the file that names it", async (t) => {
  mkdirSync(join(dir, "b"));
  mkdirSync(join(dir, "c"));
  writeFileSync(join(dir, "b", "token"), "from-b");
  writeFileSync(join(dir, "c", "token"), "from-c");
  const b = kubeconfig(join(dir, "b", "config"), { other: { tokenFile: "token" } }, "cb");
  const c = kubeconfig(join(dir, "c", "config"), { u: { tokenFile: "token" } }, "cc");
  const previous = process.env["KUBECONFIG"];
  t.after(() => {
    if (previous === undefined) delete process.env["KUBECONFIG"];
    else process.env["KUBECONFIG"] = previous;
  });
  process.env["KUBECONFIG"] = [b, c].join(":");
  assert.equal(await authorization(undefined, "u"), "Bearer from-c");
  assert.equal(await authorization(undefined, "other"), "Bearer from-b");
});
