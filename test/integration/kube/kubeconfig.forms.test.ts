// Every kubeconfig form a user has authenticates the controller's client against a real kube-apiserver: tokens, token files, client certificates, exec
// credential plugins.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { chmod, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { KubeClient } from "../../../src/kube/client.ts";
import { Connection, loadKubeConfig } from "../../../src/kube/connection.ts";
import { WINDOWS } from "../../../src/kube/resources.ts";
import { startControlPlane, type ControlPlane } from "../../harness/index.ts";
import { createKustomization, createWindow, setup, waitForSuspend, YEARLY } from "../controller/helpers.ts";
import { boundControllerToken, clientCertificates, controllerUser, waitRefused, whoAmI, writeUserKubeconfig, type ClientCertificates } from "./forms.ts";
import { startControllerProcess, waitControllerReady } from "../../support/controller-process.ts";

const dir = mkdtempSync(join(tmpdir(), "fluxgate-kubeconfig-forms-"));
const CERT_USER = "fluxgate-cert-user";
let cp: ControlPlane | undefined;
let certs: ClientCertificates | undefined;

before(async () => {
  certs = await clientCertificates(dir, CERT_USER, "fluxgate-cert-group");
  cp = await startControlPlane({ clientCaFile: certs.caFile });
});

after(async () => {
  await cp?.stop();
  await rm(dir, { recursive: true, force: true });
});

function plane(): ControlPlane {
  if (cp === undefined) throw new Error("the control plane did not start; see the before hook's error");
  return cp;
}

/** Reads a window through the controller's KubeClient built from the kubeconfig file, and says who the API server saw. */
async function readWindowAs(kubeconfig: string, namespace: string, name: string): Promise<{ username: string; window: string | undefined }> {
  const client = new KubeClient(loadKubeConfig({ kubeconfig }));
  try {
    const window = await client.get(WINDOWS, namespace, name);
    return { username: (await whoAmI(kubeconfig)).username, window: window?.metadata?.name };
  } finally {
    client.close();
  }
}

test("token: the kubeconfig's bearer token authenticates", async () => {
  const s = await setup(plane());
  await createWindow(s, "w", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps" }] });
  const bound = await boundControllerToken(plane(), `token-${s.namespace}`);
  const path = await writeUserKubeconfig(join(dir, "token.yaml"), plane(), { token: bound.token });
  assert.deepEqual(await readWindowAs(path, s.namespace, "w"), { username: controllerUser, window: "w" });
});

test("tokenFile: the token is read from the file (relative to the kubeconfig); a client made after the file is replaced sends the new one", async () => {
  const s = await setup(plane());
  await createWindow(s, "w", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps" }] });
  const first = await boundControllerToken(plane(), `tokenfile-a-${s.namespace}`);
  const tokenFile = join(dir, "token");
  await writeFile(tokenFile, first.token, { mode: 0o600 });
  // Relative to the kubeconfig's directory, as kubectl reads it.
  const path = await writeUserKubeconfig(join(dir, "token-file.yaml"), plane(), { tokenFile: "token" });
  assert.deepEqual(await readWindowAs(path, s.namespace, "w"), { username: controllerUser, window: "w" });
  assert.equal((await whoAmI(path)).credentialId, first.credentialId, "the file's token was sent");
  const second = await boundControllerToken(plane(), `tokenfile-b-${s.namespace}`);
  await writeFile(tokenFile, second.token, { mode: 0o600 });
  await first.invalidate();
  await waitRefused(plane(), first.token);
  // A client made now (as the controller makes one at start) reads the new token.
  assert.equal((await whoAmI(path)).credentialId, second.credentialId);
});

test("client certificate: client-certificate and client-key files", async () => {
  const s = await setup(plane());
  await grantControllerRole(s.namespace, CERT_USER);
  await createWindow(s, "w", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps" }] });
  const c = certs as ClientCertificates;
  const path = await writeUserKubeconfig(join(dir, "cert-files.yaml"), plane(), { "client-certificate": c.certFile, "client-key": c.keyFile });
  assert.deepEqual(await readWindowAs(path, s.namespace, "w"), { username: CERT_USER, window: "w" });
});

test("client certificate: client-certificate-data and client-key-data", async () => {
  const s = await setup(plane());
  await grantControllerRole(s.namespace, CERT_USER);
  await createWindow(s, "w", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps" }] });
  const c = certs as ClientCertificates;
  const data = async (file: string): Promise<string> => (await readFile(file)).toString("base64");
  const path = await writeUserKubeconfig(join(dir, "cert-data.yaml"), plane(), {
    "client-certificate-data": await data(c.certFile),
    "client-key-data": await data(c.keyFile),
  });
  assert.deepEqual(await readWindowAs(path, s.namespace, "w"), { username: CERT_USER, window: "w" });
});

test("the API server's certificate is checked against the kubeconfig's CA: another CA is refused, and insecure-skip-tls-verify takes it", async () => {
  const s = await setup(plane());
  await grantControllerRole(s.namespace, CERT_USER);
  await createWindow(s, "w", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps" }] });
  const c = certs as ClientCertificates;
  const user = { "client-certificate": c.certFile, "client-key": c.keyFile };
  // The client CA signed no certificate of the API server's. Both kubeconfigs name it: their clients share one secure context (src/kube/pooled.ts), and
  // whether the server's certificate is checked is still each connection's.
  const otherCa = (await readFile(c.caFile)).toString("base64");
  const wrong = await writeUserKubeconfig(join(dir, "other-ca.yaml"), plane(), user, { "certificate-authority-data": otherCa });
  const client = new KubeClient(loadKubeConfig({ kubeconfig: wrong }));
  try {
    await assert.rejects(client.get(WINDOWS, s.namespace, "w"), (e: Error) => {
      const cause = (e as { cause?: unknown }).cause;
      assert.match(`${e.message} ${cause instanceof Error ? cause.message : ""}`, /certificate/i);
      return true;
    });
  } finally {
    client.close();
  }
  const skip = await writeUserKubeconfig(join(dir, "other-ca-skip.yaml"), plane(), user, {
    "certificate-authority-data": otherCa,
    "insecure-skip-tls-verify": true,
  });
  const skipping = new KubeClient(loadKubeConfig({ kubeconfig: skip }));
  try {
    assert.equal((await skipping.get(WINDOWS, s.namespace, "w"))?.metadata?.name, "w");
  } finally {
    skipping.close();
  }
});

/**
 * An exec credential plugin as cloud CLIs are: prints a client.authentication.k8s.io/v1
 * ExecCredential with the token it finds in `tokenFile`, valid `seconds`; counts its calls.
 */
async function execPlugin(name: string, tokenFile: string, seconds: number): Promise<{ path: string; calls: () => Promise<number> }> {
  const path = join(dir, name);
  const calls = join(dir, `${name}.calls`);
  await writeFile(
    path,
    `#!/bin/sh
set -eu
echo call >> "${calls}"
expires=$(date -u -d "@$(( $(date +%s) + ${seconds} ))" +%Y-%m-%dT%H:%M:%SZ)
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s","expirationTimestamp":"%s"}}\\n' "$(cat "${tokenFile}")" "$expires"
`,
  );
  await chmod(path, 0o755);
  return { path, calls: async () => (await readFile(calls, "utf8").catch(() => "")).split("\n").filter((l) => l !== "").length };
}

function execUser(plugin: string): Record<string, unknown> {
  return { exec: { apiVersion: "client.authentication.k8s.io/v1", command: plugin, args: [], interactiveMode: "Never", provideClusterInfo: false } };
}

test("exec credential plugin: its credential is used until it expires, then the plugin runs again and its new token is used", async () => {
  const s = await setup(plane());
  await createWindow(s, "w", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps" }] });
  const first = await boundControllerToken(plane(), `exec-a-${s.namespace}`);
  const tokenFile = join(dir, "exec-token");
  await writeFile(tokenFile, first.token);
  const plugin = await execPlugin("exec-plugin", tokenFile, 4);
  const path = await writeUserKubeconfig(join(dir, "exec.yaml"), plane(), execUser(plugin.path));
  const client = new KubeClient(loadKubeConfig({ kubeconfig: path }));
  try {
    assert.equal((await client.get(WINDOWS, s.namespace, "w"))?.metadata?.name, "w");
    assert.equal((await client.get(WINDOWS, s.namespace, "w"))?.metadata?.name, "w");
    assert.equal(await plugin.calls(), 1, "a credential that has not expired is reused");
    // The plugin's source now hands out another token; the old one stops working.
    const second = await boundControllerToken(plane(), `exec-b-${s.namespace}`);
    await writeFile(tokenFile, second.token);
    await first.invalidate();
    await waitRefused(plane(), first.token);
    await sleep(4_500);
    assert.equal((await client.get(WINDOWS, s.namespace, "w"))?.metadata?.name, "w", "the renewed credential is used");
    assert.equal(await plugin.calls(), 2, "the plugin ran again once its credential expired");
  } finally {
    client.close();
  }
});

test("the controller process with an exec credential plugin gets ready and enforces a window", async () => {
  const s = await setup(plane());
  const bound = await boundControllerToken(plane(), `exec-process-${s.namespace}`);
  const tokenFile = join(dir, "exec-process-token");
  await writeFile(tokenFile, bound.token);
  const plugin = await execPlugin("exec-process-plugin", tokenFile, 600);
  const path = await writeUserKubeconfig(join(dir, "exec-process.yaml"), plane(), execUser(plugin.path));
  await createKustomization(s, "apps-rw");
  await createWindow(s, "closed", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const controller = startControllerProcess(["--kubeconfig", path, "--namespace", s.namespace]);
  try {
    await waitControllerReady(controller);
    await waitForSuspend(s, "apps-rw", true);
    assert.ok((await plugin.calls()) >= 1, "the controller ran the plugin");
  } finally {
    await controller.stop();
  }
});

/** Binds the controller's ClusterRole to `user` in `namespace`, so a certificate user may do what the controller does there. */
async function grantControllerRole(namespace: string, user: string): Promise<void> {
  const admin = new Connection(plane().kubeConfig);
  try {
    await admin.rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: "controller-as-cert-user" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "fluxgate-controller" },
        subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user }],
      },
    });
  } finally {
    admin.close();
  }
}
