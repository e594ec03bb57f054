// In-cluster credentials whose token rotates: the controller's client and the controller process keep working after the kubelet-written token is replaced and
// the old one is invalidated.

import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, test } from "node:test";
import { fluxgateNamespace, sharedControlPlane, waitFor, type ControlPlane } from "../../harness/index.ts";
import { createKustomization, createWindow, setup, waitForSuspend, WINDOWS, YEARLY } from "../controller/helpers.ts";
import { boundControllerToken, caDataOf, controllerUser, waitRefused, type Seen } from "./forms.ts";
import { startControllerProcess, waitControllerReady } from "../../support/controller-process.ts";

const plane = sharedControlPlane();
const dir = mkdtempSync(join(tmpdir(), "fluxgate-in-cluster-"));
after(() => rm(dir, { recursive: true, force: true }));

/** How often client-node reads the token file again (its FileAuth, like client-go's cached file token source). */
const TOKEN_REREAD_MS = 60_000;

/**
 * The production path reads the fixed /var/run/secrets/kubernetes.io/serviceaccount. A child runs in
 * its own user and mount namespaces (unshare, no privileges needed) where that directory is
 * `saDir`, so nothing changes on the machine and no code path exists only for tests.
 */
function inClusterPrefix(saDir: string): string[] {
  const probe = spawnSync("unshare", ["--user", "--map-root-user", "--mount", "true"]);
  if (probe.error !== undefined || probe.status !== 0) {
    throw new Error(
      `the in-cluster tests run the client in its own mount namespace with unshare (util-linux) and need user namespaces enabled (sysctl kernel.unprivileged_userns_clone=1): ${probe.error?.message ?? probe.stderr.toString()}`,
    );
  }
  const script =
    'mount -t tmpfs tmpfs /run && mkdir -p /run/secrets/kubernetes.io/serviceaccount && mount --bind "$0" /run/secrets/kubernetes.io/serviceaccount && exec "$@"';
  return ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script, saDir];
}

/** The environment of a Pod: the API server's Service address and nothing that points to a kubeconfig. */
function podEnv(cp: ControlPlane, home: string): NodeJS.ProcessEnv {
  const port = new URL(cp.server).port;
  return { PATH: process.env.PATH, HOME: home, KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: port };
}

/** Writes the token as the kubelet does: a new file swapped in atomically, no trailing newline. */
async function writeToken(saDir: string, token: string): Promise<void> {
  await writeFile(join(saDir, "..token.tmp"), token, { mode: 0o600 });
  await rename(join(saDir, "..token.tmp"), join(saDir, "token"));
}

/** A process using src/kube's client factory in-cluster, asked who it is on demand. */
function startInClusterClient(
  prefix: string[],
  env: NodeJS.ProcessEnv,
): { first: Promise<Record<string, unknown>>; ask: () => Promise<Seen & { error?: string }>; stop: () => void } {
  const [command, ...args] = [...prefix, process.execPath, "test/integration/kube/in-cluster-client.ts"];
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"], env });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const line = await lines.next();
    if (line.done === true) throw new Error(`the in-cluster client exited (${child.exitCode ?? child.signalCode ?? "?"})`);
    return JSON.parse(line.value) as Record<string, unknown>;
  };
  const first = next();
  return {
    first,
    ask: async () => {
      await first;
      child.stdin.write("who\n");
      return (await next()) as unknown as Seen & { error?: string };
    },
    stop: () => void child.kill("SIGTERM"),
  };
}

test("in-cluster: the token file is replaced and the old token invalidated; the client and the controller process keep working", async (t) => {
  const cp = plane();
  const s = await setup(cp);
  const saDir = join(dir, "serviceaccount");
  const home = join(dir, "home");
  await mkdir(saDir);
  await mkdir(home);
  await writeFile(join(saDir, "ca.crt"), Buffer.from(caDataOf(cp), "base64"));
  await writeFile(join(saDir, "namespace"), fluxgateNamespace);
  const first = await boundControllerToken(cp, "in-cluster-a");
  await writeToken(saDir, first.token);
  const prefix = inClusterPrefix(saDir);
  const env = podEnv(cp, home);

  await createKustomization(s, "apps-rw");
  await createKustomization(s, "apps-rw-2");
  await createWindow(s, "closed", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  const client = startInClusterClient(prefix, env);
  const controller = startControllerProcess(["--namespace", s.namespace], { prefix, env });
  try {
    assert.deepEqual(await client.first, { server: cp.server, user: "inClusterUser" }, "the client found only in-cluster credentials");
    assert.deepEqual(await client.ask(), { username: controllerUser, credentialId: first.credentialId });
    await waitControllerReady(controller);
    await waitForSuspend(s, "apps-rw", true);

    // The kubelet writes a new token before the old one expires; the old one stays valid meanwhile.
    const second = await boundControllerToken(cp, "in-cluster-b");
    await writeToken(saDir, second.token);
    const rotatedAt = Date.now();
    const errors: string[] = [];
    const switched = await waitFor(
      "the client to send the new token",
      async () => {
        const seen = await client.ask();
        if (seen.error !== undefined) errors.push(seen.error);
        return seen.credentialId === second.credentialId ? Date.now() - rotatedAt : undefined;
      },
      { timeoutMs: TOKEN_REREAD_MS + 15_000, intervalMs: 2_000 },
    );
    assert.deepEqual(errors, [], "no request failed while the token rotated");
    // Every client (the controller's too) has read the token file again by now.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, TOKEN_REREAD_MS + 2_000 - (Date.now() - rotatedAt))));

    // The old token becomes invalid (its bound object is gone): both go on with the new one.
    await first.invalidate();
    await waitRefused(cp, first.token);
    assert.deepEqual(await client.ask(), { username: controllerUser, credentialId: second.credentialId });
    await s.custom.patchNamespacedCustomObject({
      ...WINDOWS,
      namespace: s.namespace,
      name: "closed",
      body: [{ op: "add", path: "/spec/targets/-", value: { kind: "Kustomization", name: "apps-rw-2" } }],
    });
    await waitForSuspend(s, "apps-rw-2", true);
    // Addresses and times left out: a port such as 40179 is not a 401.
    const failures = controller.logs.filter((l) =>
      /\b401\b|Unauthorized/i.test(JSON.stringify({ ...l, ts: undefined, healthAddr: undefined, metricsAddr: undefined })),
    );
    assert.deepEqual(failures, [], "the controller never sent a refused token");
    assert.ok(switched <= TOKEN_REREAD_MS + 5_000, `switched ${switched} ms after the rotation`);
    t.diagnostic(`the client sent the new token ${switched} ms after the file was replaced`);
  } finally {
    client.stop();
    await controller.stop();
  }
});
