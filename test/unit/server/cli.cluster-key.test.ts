// `fluxgate serve cluster-key add` through the CLI's entry point: the key once, the file a secret, the manifests to commit.

import assert from "node:assert/strict";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { parseAllDocuments } from "yaml";
import { ClusterKeys, signatureOf } from "../../../src/server/status/keys.ts";
import { fluxgate as run } from "../../support/cli.ts";
import { tempDir } from "../../support/server.ts";

test("cluster-key add prints the key once, keeps it in a 0600 file the service reads, and prints the Secret command and the Provider and Alert", async (t) => {
  const { dir, cleanup } = await tempDir("cluster-key");
  t.after(cleanup);
  const file = join(dir, "cluster-keys.yaml");
  const r = await run("serve", "cluster-key", "add", "--keys-file", file, "--cluster", "edge-berlin", "--url", "https://fluxgate.example.com/");
  assert.equal(r.code, 0, r.stderr);
  const key = /^ {2}(fgk_[A-Za-z0-9_-]{43})$/m.exec(r.stdout)?.[1];
  assert.ok(key !== undefined, r.stdout);
  assert.equal((await stat(file)).mode & 0o777, 0o600);
  assert.match(r.stdout, new RegExp(`kubectl -n flux-system create secret generic fluxgate-status --from-literal=token=${key}`));
  const manifests = r.stdout.slice(r.stdout.indexOf("apiVersion:"));
  assert.ok(!manifests.includes(key), "the manifests to commit do not carry the key");
  const [provider, alert] = parseAllDocuments(manifests).map((d) => d.toJS() as { kind: string; spec: Record<string, unknown> });
  assert.equal(provider?.kind, "Provider");
  assert.deepEqual(provider?.spec, {
    type: "generic-hmac",
    address: "https://fluxgate.example.com/api/v1/clusters/edge-berlin/events",
    secretRef: { name: "fluxgate-status" },
  });
  assert.equal(alert?.kind, "Alert");
  assert.deepEqual(alert?.spec["providerRef"], { name: "fluxgate-status" });
  // The service reads the file and checks signatures made with the printed key.
  const keys = await ClusterKeys.open(file);
  assert.equal(await keys.verify("edge-berlin", Buffer.from("{}"), signatureOf(key, "{}")), true);
  assert.equal(await keys.verify("edge-berlin", Buffer.from("{}"), signatureOf("fgk_other", "{}")), false);
});

test("cluster-key add refuses a second key without --rotate, a bad cluster name or URL, and changes nothing then", async (t) => {
  const { dir, cleanup } = await tempDir("cluster-key");
  t.after(cleanup);
  const file = join(dir, "cluster-keys.yaml");
  assert.equal((await run("serve", "cluster-key", "add", "--keys-file", file, "--cluster", "edge-berlin")).code, 0);
  const before = await readFile(file, "utf8");
  const twice = await run("serve", "cluster-key", "add", "--keys-file", file, "--cluster", "edge-berlin");
  assert.equal(twice.code, 2);
  assert.match(twice.stderr, /cluster "edge-berlin" has a key already; give --rotate to replace it/);
  const bad = await run("serve", "cluster-key", "add", "--keys-file", file, "--cluster", "Edge_Berlin");
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--cluster Edge_Berlin: must be a cluster name/);
  const url = await run("serve", "cluster-key", "add", "--keys-file", file, "--cluster", "edge-tokyo", "--url", "fluxgate.example.com");
  assert.equal(url.code, 2);
  assert.match(url.stderr, /--url fluxgate\.example\.com: must be the http\(s\) address/);
  assert.equal(await readFile(file, "utf8"), before);
  const rotated = await run("serve", "cluster-key", "add", "--keys-file", file, "--cluster", "edge-berlin", "--rotate");
  assert.equal(rotated.code, 0);
  assert.notEqual(await readFile(file, "utf8"), before);
  assert.equal((await readFile(file, "utf8")).match(/cluster: edge-berlin/g)?.length, 1);
});

test("the service refuses a keys file others may read", async (t) => {
  const { dir, cleanup } = await tempDir("cluster-key");
  t.after(cleanup);
  const file = join(dir, "cluster-keys.yaml");
  await writeFile(file, "clusters: []\n", { mode: 0o644 });
  await assert.rejects(ClusterKeys.open(file), /may be read by others \(mode 644\): chmod 600/);
});
