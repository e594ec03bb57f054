// Per-cluster keys that sign pushed events (Flux's generic-hmac Provider): kept in a file readable only by its owner.

import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { readFile, rename, stat, writeFile } from "node:fs/promises";
import { parseDocument, YAMLSeq } from "yaml";
import { z } from "zod";
import { readYaml } from "../../gitops/yaml-read.ts";
import { ConfigError } from "../model/errors.ts";
import { isObjectName } from "../model/names.ts";

const KeyEntrySchema = z.strictObject({
  cluster: z.string().refine(isObjectName, "must be a cluster name of fluxgate.yaml (a DNS-1123 name)"),
  // HMAC needs the key itself, not a hash: the file is the secret (mode 0600).
  key: z.string().regex(/^fgk_[A-Za-z0-9_-]{43}$/, "must be a key printed by fluxgate serve cluster-key add"),
  createdAt: z.string().optional(),
});
const KeysFileSchema = z.strictObject({ clusters: z.array(KeyEntrySchema).nullable().optional() });
type KeyEntry = z.infer<typeof KeyEntrySchema>;

const HEADER = "# Keys that sign the events each cluster pushes to fluxgate serve (HMAC-SHA256). Keep this file secret: mode 0600.\n";

/** A new random key: `fgk_` and 256 random bits. */
function generateKey(): string {
  return `fgk_${randomBytes(32).toString("base64url")}`;
}

function parseKeys(file: string, text: string): KeyEntry[] {
  const read = readYaml(text);
  if (read.problem !== null) throw new ConfigError(`${file}: ${read.problem}`);
  const parsed = KeysFileSchema.safeParse(read.value ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`${file}: ${issue === undefined ? "is invalid" : `${issue.path.join(".")}: ${issue.message}`}`);
  }
  const keys = parsed.data.clusters ?? [];
  const seen = new Set<string>();
  for (const k of keys) {
    if (seen.has(k.cluster)) throw new ConfigError(`${file}: cluster "${k.cluster}" has two keys`);
    seen.add(k.cluster);
  }
  return keys;
}

/**
 * Adds a key for `cluster` to the keys file (created with mode 0600 when missing, written
 * atomically) and returns it: the only time it is shown. `replace` rotates an existing key.
 *
 * @example const key = await addClusterKey("cluster-keys.yaml", { cluster: "edge-berlin", now: Date.now() });
 */
export async function addClusterKey(file: string, options: { cluster: string; replace?: boolean; now: number }): Promise<string> {
  if (!isObjectName(options.cluster)) throw new ConfigError(`--cluster ${options.cluster}: must be a cluster name of fluxgate.yaml (a DNS-1123 name)`);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw new ConfigError(`${file}: cannot read the keys file: ${(e as Error).message}`, { cause: e });
    text = `${HEADER}clusters: []\n`;
  }
  const existing = parseKeys(file, text);
  const at = existing.findIndex((k) => k.cluster === options.cluster);
  if (at >= 0 && options.replace !== true) throw new ConfigError(`${file}: cluster "${options.cluster}" has a key already; give --rotate to replace it`);
  const doc = parseDocument(text);
  let seq = doc.get("clusters");
  if (!(seq instanceof YAMLSeq)) {
    seq = doc.createNode([]);
    doc.set("clusters", seq);
  }
  const key = generateKey();
  const node = doc.createNode({ cluster: options.cluster, key, createdAt: new Date(options.now).toISOString() });
  const items = (seq as YAMLSeq).items;
  if (at >= 0) items[at] = node;
  else items.push(node);
  (seq as YAMLSeq).flow = false;
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, doc.toString(), { mode: 0o600 });
  await rename(temp, file);
  return key;
}

/** The signature Flux's generic-hmac Provider sends: `sha256=` and the hex HMAC-SHA256 of the body. */
export function signatureOf(key: string, body: Uint8Array | string): string {
  return `sha256=${createHmac("sha256", key).update(body).digest("hex")}`;
}

/** The cluster keys of a keys file, read again when the file changes (a new cluster needs no restart). */
export class ClusterKeys {
  private readonly file: string;
  private keys = new Map<string, Buffer>();
  private mtimeMs = -1;
  private checkedAt = 0;

  private constructor(file: string) {
    this.file = file;
  }

  /** Reads the keys file; a missing or group/world-readable file is an error. */
  static async open(file: string): Promise<ClusterKeys> {
    const keys = new ClusterKeys(file);
    await keys.reload(true);
    return keys;
  }

  get size(): number {
    return this.keys.size;
  }

  private async reload(force: boolean): Promise<void> {
    const now = Date.now();
    if (!force && now - this.checkedAt < 1000) return;
    this.checkedAt = now;
    let info;
    try {
      info = await stat(this.file);
    } catch (e) {
      if (!force) return;
      throw new ConfigError(
        `${this.file}: cannot read the cluster keys file (${(e as NodeJS.ErrnoException).code ?? String(e)}); create it with "fluxgate serve cluster-key add --keys-file ${this.file} --cluster NAME"`,
        { cause: e },
      );
    }
    if ((info.mode & 0o077) !== 0)
      throw new ConfigError(`${this.file}: the cluster keys file may be read by others (mode ${(info.mode & 0o777).toString(8)}): chmod 600 ${this.file}`);
    if (info.mtimeMs === this.mtimeMs) return;
    const entries = parseKeys(this.file, await readFile(this.file, "utf8"));
    this.keys = new Map(entries.map((k) => [k.cluster, Buffer.from(k.key, "utf8")]));
    this.mtimeMs = info.mtimeMs;
  }

  /** True when `cluster` has a key. */
  async has(cluster: string): Promise<boolean> {
    await this.reload(false).catch(() => undefined);
    return this.keys.has(cluster);
  }

  /** True when `signature` (the X-Signature header) is the HMAC of `body` with the cluster's key; compared in constant time. */
  async verify(cluster: string, body: Uint8Array, signature: string | undefined): Promise<boolean> {
    // A file being rewritten keeps the keys read last.
    await this.reload(false).catch(() => undefined);
    const key = this.keys.get(cluster);
    if (key === undefined || signature === undefined) return false;
    const expected = Buffer.from(signatureOf(key.toString("utf8"), body), "utf8");
    const presented = Buffer.from(signature.trim().toLowerCase(), "utf8");
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  }
}
