// Errors people meet, with a hint and the right exit code: no CRDs, no cluster, a bad kubeconfig, RBAC that says no.

import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { installFluxgate, serviceAccountKubeconfig, sharedControlPlane } from "../../harness/index.ts";
import { fluxgate, kustomization, window } from "./helpers.ts";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";

// A control plane with Flux's CRDs but not fluxgate's, until the RBAC tests install them.
const plane = sharedControlPlane();

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === "object" && address !== null ? address.port : 0;
}

test("a cluster without fluxgate's CRDs: every command says so and how to install them (exit 1)", async () => {
  const cp = plane();
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  await kustomization(custom, "default", "apps-rw");
  const k = ["--kubeconfig", cp.kubeconfigPath, "-n", "default"];
  const message = `error: the fluxgate CRDs are not installed in this cluster: ${cp.server} does not serve fluxgate.io/v1alpha1 reconciliationwindows\nInstall them with: kubectl apply -k config/default\nIf fluxgate was uninstalled on purpose, give back any target it left suspended with: fluxgate release --all\n`;
  for (const args of [
    ["status", ...k],
    ["status", "--kubeconfig", cp.kubeconfigPath, "-A", "-o", "json"],
    ["status", ...k, "--watch"],
    ["explain", "kustomization/apps-rw", ...k],
    ["open", "weekday-changes", ...k, "--for", "1h", "--reason", "hotfix"],
    ["schedule", "preview", "weekday-changes", ...k],
  ]) {
    const r = await fluxgate(...args);
    assert.equal(r.code, 1, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stdout, "");
    assert.equal(r.stderr, message, args.join(" "));
  }
  const overrides = await fluxgate("overrides", ...k);
  assert.equal(overrides.code, 1);
  assert.match(
    overrides.stderr,
    /does not serve fluxgate\.io\/v1alpha1 windowoverrides\nInstall them with: kubectl apply -k config\/default\nIf fluxgate was uninstalled on purpose, give back any target it left suspended with: fluxgate release --all\n$/,
  );
});

test("no cluster at the kubeconfig's address: exit 1, naming the address and what to check", async () => {
  const cp = plane();
  const port = await closedPort();
  const path = join(cp.dir, "kubeconfigs", "closed-port.yaml");
  await writeFile(path, (await readFile(cp.kubeconfigPath, "utf8")).replace(cp.server, `https://127.0.0.1:${port}`));
  for (const args of [
    ["status"],
    ["status", "--watch"],
    ["explain", "ks/apps-rw"],
    ["open", "w", "--for", "1h", "--reason", "x"],
    ["overrides", "cancel", "x"],
  ]) {
    const r = await fluxgate(...args, "--kubeconfig", path);
    assert.equal(r.code, 1, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stdout, "");
    assert.match(
      r.stderr,
      new RegExp(
        `^error: cannot reach the cluster at https://127\\.0\\.0\\.1:${port} \\(context [^)]+\\): .*ECONNREFUSED.*\\nCheck that the cluster is up and that --kubeconfig and --context \\(or \\$KUBECONFIG\\) point at it\\.\\n$`,
      ),
      args.join(" "),
    );
  }
});

test("a kubeconfig that does not exist, or a context it does not have: bad input (exit 2)", async () => {
  const cp = plane();
  const missing = await fluxgate("status", "--kubeconfig", "/nonexistent/kubeconfig");
  assert.equal(missing.code, 2);
  assert.equal(missing.stderr, "error: --kubeconfig /nonexistent/kubeconfig: no such file\n");
  const context = await fluxgate("status", "--kubeconfig", cp.kubeconfigPath, "--context", "prod-eu");
  assert.equal(context.code, 2);
  assert.match(context.stderr, /^error: --context prod-eu: is not in the kubeconfig \(contexts: .+\)\n$/);
});

test("no kubeconfig anywhere and not in a cluster: exit 1, saying how to name one", async () => {
  const saved = { HOME: process.env.HOME, KUBECONFIG: process.env.KUBECONFIG };
  process.env.HOME = join(plane().dir, "no-home");
  delete process.env.KUBECONFIG;
  try {
    const r = await fluxgate("status");
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      "error: no cluster to talk to: no kubeconfig ($KUBECONFIG, ~/.kube/config) and not running in a cluster\nPass --kubeconfig FILE, or set KUBECONFIG.\n",
    );
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
});

test("RBAC that says no: exit 1, naming the user, the verb, the resource and the role to ask for", async () => {
  const cp = plane();
  await installFluxgate(cp);
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  const namespace = "team-a";
  await cp.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
  await kustomization(custom, namespace, "apps-rw");
  await window(custom, namespace, "weekday-changes", {
    schedules: [{ start: "0 0 1 1 *", duration: "1m" }],
    targets: [{ kind: "Kustomization", name: "apps-rw" }],
  });
  // Reads windows and overrides in its namespace, but may not watch, write, or read Flux objects.
  const reader = await serviceAccountKubeconfig(cp, {
    namespace,
    name: "reader",
    rules: [{ apiGroups: ["fluxgate.io"], resources: ["reconciliationwindows", "windowoverrides"], verbs: ["get", "list"] }],
  });
  const user = `system:serviceaccount:${namespace}:reader`;
  const k = ["--kubeconfig", reader.kubeconfigPath, "-n", namespace];

  const allowed = await fluxgate("status", ...k);
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(allowed.stdout, /^weekday-changes\s+Unknown\s/m);
  assert.match(allowed.stdout, /weekday-changes: not reconciled yet: is the fluxgate controller running\?/);

  const cases: Array<[string[], string]> = [
    [
      ["status", "--kubeconfig", reader.kubeconfigPath, "-A"],
      `error: not allowed by RBAC: User "${user}" may not list reconciliationwindows.fluxgate.io in all namespaces\nAsk for a RoleBinding to the ClusterRole fluxgate-viewer (kubectl apply -k config/rbac/optional installs it). Or look in one namespace you may read with -n NAMESPACE.\n`,
    ],
    [
      ["status", ...k, "--watch"],
      `error: not allowed by RBAC: User "${user}" may not watch reconciliationwindows.fluxgate.io in namespace ${namespace}\nAsk for a RoleBinding in namespace ${namespace} to the ClusterRole fluxgate-viewer (kubectl apply -k config/rbac/optional installs it).\n`,
    ],
    [
      ["open", "weekday-changes", ...k, "--for", "1h", "--reason", "hotfix", "--name", "hotfix"],
      `error: not allowed by RBAC: User "${user}" may not create windowoverrides.fluxgate.io "hotfix" in namespace ${namespace}\nAsk for a RoleBinding in namespace ${namespace} to the ClusterRole fluxgate-override-editor (kubectl apply -k config/rbac/optional installs it).\n`,
    ],
    [
      ["explain", "ks/apps-rw", ...k],
      `error: not allowed by RBAC: User "${user}" may not get kustomizations.kustomize.toolkit.fluxcd.io "apps-rw" in namespace ${namespace}\nAsk for read access in namespace ${namespace} (the built-in ClusterRole view grants it).\n`,
    ],
  ];
  for (const [args, message] of cases) {
    const r = await fluxgate(...args);
    assert.equal(r.code, 1, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stderr, message, args.join(" "));
  }

  const nobody = await serviceAccountKubeconfig(cp, { namespace, name: "nobody" });
  const none = await fluxgate("status", "--kubeconfig", nobody.kubeconfigPath, "-n", namespace);
  assert.equal(none.code, 1);
  assert.match(
    none.stderr,
    new RegExp(
      `^error: not allowed by RBAC: User "system:serviceaccount:${namespace}:nobody" may not list reconciliationwindows\\.fluxgate\\.io in namespace ${namespace}\\n`,
    ),
  );
});
