// Credentials of the local control plane: service-account signing keys, the admin token, and kubeconfig files.
import { KubeConfig } from "../kube/types.ts";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { stringify } from "yaml";

/** Files kube-apiserver reads for authentication, written before it starts. */
export interface ApiserverCredentials {
  readonly adminToken: string;
  readonly tokenFile: string;
  readonly serviceAccountPublicKey: string;
  readonly serviceAccountSigningKey: string;
}

/**
 * Writes the service-account key pair (so the TokenRequest API works) and a static token file whose
 * only user, `fluxgate-admin`, is in `system:masters`.
 */
export async function writeApiserverCredentials(pkiDir: string): Promise<ApiserverCredentials> {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  const serviceAccountPublicKey = join(pkiDir, "sa.pub");
  const serviceAccountSigningKey = join(pkiDir, "sa.key");
  await writeFile(serviceAccountPublicKey, publicKey, { mode: 0o600 });
  await writeFile(serviceAccountSigningKey, privateKey, { mode: 0o600 });
  const adminToken = randomBytes(24).toString("hex");
  const tokenFile = join(pkiDir, "tokens.csv");
  await writeFile(tokenFile, `${adminToken},fluxgate-admin,fluxgate-admin,"system:masters"\n`, { mode: 0o600 });
  return { adminToken, tokenFile, serviceAccountPublicKey, serviceAccountSigningKey };
}

/** Builds a KubeConfig for `server` that authenticates with a bearer token. */
export function tokenKubeConfig(server: string, caData: string, user: string, token: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "fluxgate-test", server, caData, skipTLSVerify: false }],
    users: [{ name: user, token }],
    contexts: [{ name: user, cluster: "fluxgate-test", user, namespace: "default" }],
    currentContext: user,
  });
  return kc;
}

/** The serving certificate kube-apiserver generated in its cert dir (self-signed, with its CA), base64 for a kubeconfig. */
export async function apiserverCaData(certDir: string): Promise<string> {
  return (await readFile(join(certDir, "apiserver.crt"))).toString("base64");
}

/** Writes `kc` as a kubeconfig file that kubectl and Flux read (mode 0600: it holds a token). */
export async function writeKubeConfig(path: string, kc: KubeConfig): Promise<void> {
  const doc: unknown = JSON.parse(kc.exportConfig());
  await writeFile(path, stringify(doc), { mode: 0o600 });
}
