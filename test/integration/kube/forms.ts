// What the kubeconfig-form tests share: kubeconfig files as users write them, client certificates, bound ServiceAccount tokens, who the API server saw, and the
// controller as a process.

import { execFile } from "node:child_process";
import { request } from "node:https";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { stringify } from "yaml";
import { Connection, loadKubeConfig } from "../../../src/kube/connection.ts";
import { controllerServiceAccount, fluxgateNamespace, waitFor, type ControlPlane } from "../../harness/index.ts";

/** The CA kube-apiserver serves with, as a kubeconfig's certificate-authority-data. */
export function caDataOf(cp: ControlPlane): string {
  const caData = cp.kubeConfig.getCurrentCluster()?.caData;
  if (caData === undefined) throw new Error("the admin kubeconfig has no certificate-authority-data");
  return caData;
}

/**
 * Writes a kubeconfig file by hand, with `user` exactly as a user (or kubectl) writes it, so that
 * the loader reads the real field names (`tokenFile`, `client-certificate`, `exec`, ...); `cluster`
 * adds fields to the cluster's (`proxy-url`).
 */
export async function writeUserKubeconfig(
  path: string,
  cp: ControlPlane,
  user: Record<string, unknown>,
  cluster: Record<string, unknown> = {},
): Promise<string> {
  const doc = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "local", cluster: { server: cp.server, "certificate-authority-data": caDataOf(cp), ...cluster } }],
    users: [{ name: "someone", user }],
    contexts: [{ name: "local", context: { cluster: "local", user: "someone" } }],
    "current-context": "local",
  };
  await writeFile(path, stringify(doc), { mode: 0o600 });
  return path;
}

export interface ClientCertificates {
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
  /** The user kube-apiserver reads from the certificate's CN. */
  readonly user: string;
}

/** A client CA and a certificate it signed for `user` (CN) in `group` (O), made with openssl in `dir`. */
export async function clientCertificates(dir: string, user: string, group: string): Promise<ClientCertificates> {
  const openssl = async (...args: string[]): Promise<void> => {
    await promisify(execFile)("openssl", args, { cwd: dir }).catch((e: unknown) => {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") throw new Error("the client-certificate tests need openssl (Debian: apt-get install openssl)");
      throw e;
    });
  };
  await openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "1", "-subj", "/CN=fluxgate-test-client-ca");
  await openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "client.key", "-out", "client.csr", "-subj", `/CN=${user}/O=${group}`);
  await openssl("x509", "-req", "-in", "client.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "client.crt", "-days", "1");
  return { caFile: join(dir, "ca.crt"), certFile: join(dir, "client.crt"), keyFile: join(dir, "client.key"), user };
}

/** Who the API server took a client for, from a SelfSubjectReview. */
export interface Seen {
  readonly username: string;
  /** The `authentication.kubernetes.io/credential-id` of a ServiceAccount token: `JTI=<id>`, naming the very token. */
  readonly credentialId: string | undefined;
}

/** Asks the API server who `connection` authenticates as (a SelfSubjectReview). */
export async function whoIs(connection: Connection): Promise<Seen> {
  const review = await connection.authentication.createSelfSubjectReview({ body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" } });
  const info = review.status?.userInfo;
  return { username: info?.username ?? "", credentialId: info?.extra?.["authentication.kubernetes.io/credential-id"]?.[0] };
}

/** Loads the kubeconfig file as the controller does and asks the API server who that is. */
export async function whoAmI(kubeconfig: string): Promise<Seen> {
  const connection = new Connection(loadKubeConfig({ kubeconfig }));
  try {
    return await whoIs(connection);
  } finally {
    connection.close();
  }
}

/** The username of the controller's ServiceAccount. */
export const controllerUser = `system:serviceaccount:${fluxgateNamespace}:${controllerServiceAccount}`;

export interface BoundToken {
  readonly token: string;
  /** As a SelfSubjectReview reports it: `JTI=<jti>`. */
  readonly credentialId: string;
  /** Deletes the Secret the token is bound to: from then on the API server refuses the token. */
  invalidate(): Promise<void>;
}

/**
 * A token of the controller's ServiceAccount bound to a Secret of its own (as a kubelet binds one to
 * its Pod), so that deleting the Secret invalidates it before it expires.
 */
export async function boundControllerToken(cp: ControlPlane, secretName: string, expirationSeconds = 3600): Promise<BoundToken> {
  const connection = new Connection(cp.kubeConfig);
  try {
    const secret = await connection.core.createNamespacedSecret({ namespace: fluxgateNamespace, body: { metadata: { name: secretName } } });
    const review = await connection.core.createNamespacedServiceAccountToken({
      namespace: fluxgateNamespace,
      name: controllerServiceAccount,
      body: { spec: { audiences: [], expirationSeconds, boundObjectRef: { apiVersion: "v1", kind: "Secret", name: secretName, uid: secret.metadata?.uid } } },
    });
    const token = review.status?.token ?? "";
    const payload = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as { jti?: string };
    return {
      token,
      credentialId: `JTI=${payload.jti ?? ""}`,
      invalidate: async () => {
        const admin = new Connection(cp.kubeConfig);
        try {
          await admin.core.deleteNamespacedSecret({ namespace: fluxgateNamespace, name: secretName });
        } finally {
          admin.close();
        }
      },
    };
  } finally {
    connection.close();
  }
}

/** The HTTP status kube-apiserver answers GET /api with `token` (401 once the token is invalid). */
export function statusWithToken(cp: ControlPlane, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${cp.server}/api`, { ca: Buffer.from(caDataOf(cp), "base64"), headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

/** The API server refuses `token` (a deleted bound object takes effect within moments, not at once on every server). */
export async function waitRefused(cp: ControlPlane, token: string): Promise<void> {
  await waitFor("the old token to be refused", async () => ((await statusWithToken(cp, token)) === 401 ? true : undefined), { timeoutMs: 20_000 });
}
