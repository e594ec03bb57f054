// The controller runs as the image runs it: a non-root user, a read-only root filesystem, only an empty /tmp to write to.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFile, chmod, mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { sharedControlPlane, waitFor } from "../../harness/index.ts";
import { createKustomization, createWindow, setup, waitForSuspend, YEARLY } from "./helpers.ts";

const plane = sharedControlPlane();
const REPO = new URL("../../../", import.meta.url).pathname;

/**
 * What the process wrote under `dir`, its /tmp: every entry except the directories that lead to
 * `keep` (the checkout, mounted back there when it lives under /tmp) and the checkout itself.
 */
async function written(dir: string, keep: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory() && entry.name === keep[0]) {
      if (keep.length > 1) out.push(...(await written(join(dir, entry.name), keep.slice(1))).map((e) => join(entry.name, e)));
      continue;
    }
    out.push(entry.name);
  }
  return out;
}

/** The user and group of config/manager/deployment.yaml's securityContext, and its container's environment. */
async function podUser(): Promise<{ uid: number; gid: number; env: Record<string, string> }> {
  const deployment = parse(await readFile(join(REPO, "config/manager/deployment.yaml"), "utf8")) as {
    spec: { template: { spec: { securityContext: { runAsUser: number; runAsGroup: number }; containers: { env?: { name: string; value?: string }[] }[] } } };
  };
  const pod = deployment.spec.template.spec;
  const env = Object.fromEntries((pod.containers[0]?.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value as string]));
  return { uid: pod.securityContext.runAsUser, gid: pod.securityContext.runAsGroup, env };
}

test("as the Deployment's non-root user on a read-only root filesystem, the controller enforces a window and writes nothing", async () => {
  if (process.getuid?.() !== 0) {
    assert.fail(
      "this test needs root (CAP_SYS_ADMIN) to build a read-only mount namespace and switch to the pod's user: run the suite as root, as .ci/run does",
    );
  }
  const s = await setup(plane());
  const { uid, gid, env } = await podUser();
  await createKustomization(s, "apps-rw");
  await createWindow(s, "closed", { schedules: [YEARLY], targets: [{ kind: "Kustomization", name: "apps-rw" }] });
  // The kubeconfig, readable by the pod's user, on a bind mount as a projected token would be.
  const secrets = await mkdtemp(join(tmpdir(), "fluxgate-ro-"));
  await chmod(secrets, 0o755);
  await copyFile(s.controllerKubeconfigPath, join(secrets, "kubeconfig"));
  await chmod(join(secrets, "kubeconfig"), 0o644);
  assert.match(env.NODE_OPTIONS ?? "", /--max-old-space-size=\d+/, "the Deployment bounds the heap");
  // The pod's /tmp is an empty emptyDir. A checkout that lives under /tmp (a fresh clone in /tmp/x) would be
  // hidden by it: the tmpfs is prepared aside, the checkout mounted back at its path inside it, then moved onto /tmp.
  const inTmp = relative("/tmp", REPO.replace(/\/$/, ""));
  const under = inTmp !== "" && !inTmp.startsWith("..") && !inTmp.startsWith(sep) ? inTmp.split(sep) : [];
  await mkdir(join(secrets, "stage"));
  const script = [
    "set -e",
    "mount --make-rprivate /",
    "mount --bind / /",
    "mount -o remount,bind,ro /",
    `mount --bind ${secrets} /mnt`,
    "mount -t tmpfs -o size=64m tmpfs /mnt/stage",
    ...(under.length > 0 ? [`mkdir -p /mnt/stage/${under.join("/")}`, `mount --bind ${REPO} /mnt/stage/${under.join("/")}`] : []),
    // -n: the root filesystem is read-only, so mount(8) cannot record it in /run/mount/utab.
    "mount -n --move /mnt/stage /tmp",
    `cd ${REPO}`,
    `exec setpriv --reuid ${uid} --regid ${gid} --clear-groups --inh-caps=-all -- ${process.execPath} src/cli/main.ts controller --kubeconfig /mnt/kubeconfig --namespace ${s.namespace} --target-kinds Kustomization --metrics-addr 127.0.0.1:0 --health-addr 127.0.0.1:0`,
  ].join("\n");
  const child = spawn("unshare", ["--mount", "--", "sh", "-c", script], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...env } });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  try {
    const started = await waitFor("the controller to start", () => {
      if (child.exitCode !== null) assert.fail(`the controller exited with ${child.exitCode}: ${stderr}`);
      const line = stderr.split("\n").find((l) => l.includes('"Started controller"'));
      return Promise.resolve(line === undefined ? undefined : (JSON.parse(line) as { healthAddr: string }));
    });
    await waitForSuspend(s, "apps-rw", true);
    const ready = await fetch(`http://${started.healthAddr}/readyz`);
    assert.equal(ready.status, 200);

    const pid = child.pid as number;
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    assert.match(status, new RegExp(`^Uid:\\s+${uid}\\s+${uid}\\s+${uid}\\s+${uid}$`, "m"), "runs as the pod's user, not root");
    assert.match(status, /^CapEff:\s+0+$/m, "with no capabilities");
    const mounts = await readFile(`/proc/${pid}/mounts`, "utf8");
    assert.match(mounts, /^\S+ \/ \S+ ro[,\s]/m, "its root filesystem is read-only");
    assert.match(mounts, /^tmpfs \/tmp tmpfs /m, "its /tmp is the empty tmpfs");
    // It needed nothing on disk: its /tmp (the pod's emptyDir) is still empty, but for the way to the checkout.
    assert.deepEqual(await written(`/proc/${pid}/root/tmp`, under), []);
    assert.doesNotMatch(stderr, /EROFS|EACCES|read-only file system/i);
  } finally {
    child.kill("SIGTERM");
    await exited;
    await rm(secrets, { recursive: true, force: true });
  }
});
