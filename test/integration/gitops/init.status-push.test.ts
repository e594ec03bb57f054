// init --status-url: each cluster's Provider and Alert that push its status, rendered by the real kustomize; the key never in Git.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parseAllDocuments } from "yaml";
import { build, fluxgate, kustomize, removeRepo, snapshot, writeRepo } from "./helpers.ts";

let bin = "";
before(async () => {
  bin = await kustomize();
});

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await removeRepo(d);
});

const LABELLED = `apiVersion: fluxgate.io/v1alpha1
kind: Repository
types:
  - name: rt
    window: false
  - name: rw
    window: true
clusters:
  - name: edge-berlin
    path: clusters/edge-berlin
    timeZone: Europe/Berlin
    labels:
      ring: prod
  - name: edge-tokyo
    path: clusters/edge-tokyo
    timeZone: Asia/Tokyo
    labels:
      ring: prod
`;

/** Each cluster's own kustomization.yaml, as a repository that lists its resources has it. */
function rootKustomization(): string {
  return "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n";
}

interface Rendered {
  kind: string;
  metadata: { name: string; namespace: string };
  spec: Record<string, unknown>;
}

async function render(dir: string, cluster: string): Promise<Rendered[]> {
  const text = await build(bin, join(dir, "clusters", cluster));
  return parseAllDocuments(text).map((d) => d.toJS() as Rendered);
}

test("init --status-url writes each selected cluster's Provider and Alert; kustomize renders them with the cluster's own address and no Secret", async () => {
  const dir = await writeRepo({
    "fluxgate.yaml": LABELLED,
    "clusters/edge-berlin/kustomization.yaml": rootKustomization(),
    "clusters/edge-tokyo/kustomization.yaml": rootKustomization(),
  });
  dirs.push(dir);
  const r = await fluxgate("init", dir, "--selector", "ring=prod", "--status-url", "https://fluxgate.example.com/");
  assert.equal(r.stderr, "");
  assert.equal(r.code, 0);

  for (const cluster of ["edge-berlin", "edge-tokyo"]) {
    const objects = await render(dir, cluster);
    const byKind = (kind: string): Rendered[] => objects.filter((o) => o.kind === kind);
    assert.deepEqual(byKind("Secret"), [], "no Secret is rendered: the key is created in the cluster, never committed");
    const [provider] = byKind("Provider");
    assert.ok(provider !== undefined, `${cluster}: no Provider rendered`);
    assert.deepEqual(provider.metadata, { name: "fluxgate-status", namespace: "flux-system" });
    assert.deepEqual(provider.spec, {
      type: "generic-hmac",
      address: `https://fluxgate.example.com/api/v1/clusters/${cluster}/events`,
      secretRef: { name: "fluxgate-status" },
    });
    const [alert] = byKind("Alert");
    assert.ok(alert !== undefined, `${cluster}: no Alert rendered`);
    assert.deepEqual(alert.spec["providerRef"], { name: "fluxgate-status" });
    assert.deepEqual(alert.spec["eventSources"], [
      { kind: "Kustomization", name: "*" },
      { kind: "HelmRelease", name: "*" },
    ]);
    // The rest of the layout renders beside them.
    assert.deepEqual(
      byKind("ReconciliationWindow").map((w) => w.metadata.name),
      ["apps-rw"],
    );
  }

  const files = await snapshot(dir);
  const pushFile = files.get("clusters/edge-berlin/fluxgate-status.yaml") ?? "";
  // The Secret is a placeholder in a comment, saying how to create it.
  assert.match(pushFile, /^# {3}kubectl -n flux-system create secret generic fluxgate-status --from-literal=token=KEY$/m);
  assert.match(pushFile, /^# {3}kind: Secret$/m);
  assert.match(pushFile, /fluxgate serve cluster-key add --cluster edge-berlin/);
  assert.doesNotMatch(pushFile, /^\s*(token|data|stringData):/m, "nothing uncommented holds a key");

  // Run again: nothing changes.
  const again = await fluxgate("init", dir, "--selector", "ring=prod", "--status-url", "https://fluxgate.example.com/");
  assert.equal(again.code, 0);
  assert.match(again.stdout, /already set up; nothing changed/);
  assert.deepEqual(await snapshot(dir), files);

  // The repository still passes check, rendered by the same kustomize.
  const check = await fluxgate("check", dir, "--kustomize", bin);
  assert.equal(check.stderr, "");
  assert.match(check.stdout, /^No findings in 2 clusters/m);
  assert.equal(check.code, 0);
});

test("init --status-url with an address that is not http(s) is refused and writes nothing", async () => {
  const dir = await writeRepo({ "fluxgate.yaml": LABELLED });
  dirs.push(dir);
  const before = await snapshot(dir);
  const r = await fluxgate("init", dir, "--cluster", "edge-berlin", "--status-url", "fluxgate.example.com");
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^error: --status-url fluxgate\.example\.com: must be the http\(s\) address clusters reach fluxgate serve at/);
  assert.deepEqual(await snapshot(dir), before);
});

test("init without --status-url writes no push manifests", async () => {
  const dir = await writeRepo({ "fluxgate.yaml": LABELLED, "clusters/edge-berlin/kustomization.yaml": rootKustomization() });
  dirs.push(dir);
  assert.equal((await fluxgate("init", dir, "--cluster", "edge-berlin")).code, 0);
  const objects = await render(dir, "edge-berlin");
  assert.deepEqual(
    objects.filter((o) => o.kind === "Provider" || o.kind === "Alert"),
    [],
  );
});

test("the file docs/config-service.md shows is the one init writes", async () => {
  const page = await readFile(new URL("../../../docs/config-service.md", import.meta.url), "utf8");
  const m = /<!-- push-manifests: (\S+) (\S+) -->\n {3}```yaml\n([\s\S]*?)\n {3}```\n/.exec(page);
  assert.ok(m !== null, "docs/config-service.md shows no push-manifests block");
  const [, cluster, url, block] = m as unknown as [string, string, string, string];
  const dir = await writeRepo({ "fluxgate.yaml": LABELLED });
  dirs.push(dir);
  assert.equal((await fluxgate("init", dir, "--cluster", cluster, "--status-url", url)).code, 0);
  const written = (await snapshot(dir)).get(`clusters/${cluster}/fluxgate-status.yaml`);
  const shown = `${block
    .split("\n")
    .map((l) => l.replace(/^ {3}/, ""))
    .join("\n")}\n`;
  assert.equal(shown, written);
});
