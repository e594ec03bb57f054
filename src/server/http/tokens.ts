// Bearer tokens of the Config Service: only SHA-256 hashes are kept on disk, compared in constant time.

import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { open, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { parseDocument, YAMLSeq } from "yaml";
import { z } from "zod";
import { ConfigError } from "../model/errors.ts";
import { readYaml } from "../../gitops/yaml-read.ts";

/** What a token may do, least first. */
export const ROLES = ["viewer", "editor", "breakglass"] as const;
export type Role = (typeof ROLES)[number];

/** What callers do, and which roles may do it. */
const GRANTS = {
  read: ["viewer", "editor", "breakglass"],
  "write-windows": ["editor"],
  "write-overrides": ["editor", "breakglass"],
  "deliver-directly": ["breakglass"],
} as const satisfies Record<string, readonly Role[]>;
export type Permission = keyof typeof GRANTS;

/** True when `role` may do `permission`. */
export function allows(role: Role, permission: Permission): boolean {
  return (GRANTS[permission] as readonly Role[]).includes(role);
}

/** Roles that may do `permission`, for messages. */
export function rolesFor(permission: Permission): readonly Role[] {
  return GRANTS[permission];
}

/** Who is calling: from a token, or anonymous for reads with --anonymous-read. */
export interface Identity {
  name: string;
  role: Role;
  /** Commit author email. */
  email: string;
  anonymous: boolean;
}

const TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._@-]{0,63}$/;

const TokenEntrySchema = z.strictObject({
  name: z.string().regex(TOKEN_NAME, "must be 1-64 letters, digits, spaces, '.', '_', '@' or '-'"),
  role: z.enum(ROLES),
  email: z.string().email().optional(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be a hex SHA-256 hash"),
  createdAt: z.string().optional(),
});
const TokensFileSchema = z.strictObject({ tokens: z.array(TokenEntrySchema).nullable().optional() });
type TokenEntry = z.infer<typeof TokenEntrySchema>;

const HEADER = "# Tokens of fluxgate serve. Only SHA-256 hashes are kept: a token is shown once, when it is added.\n";

/** A new random token: `fgt_` and 256 random bits. */
export function generateToken(): string {
  return `fgt_${randomBytes(32).toString("base64url")}`;
}

/** Hex SHA-256 of a token; tokens carry 256 random bits, so a fast hash is enough. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

const HASH_BYTES = 32;

const CALENDAR_PREFIX = "fgc_";

/** True for a calendar token: it reads `.ics` feeds and nothing else. */
export function isCalendarToken(token: string): boolean {
  return token.startsWith(CALENDAR_PREFIX);
}

/**
 * The calendar token of a token: `fgc_` and an HMAC keyed with the token's stored hash. The service
 * can check it against the tokens file without storing anything more, it dies with its token, and it
 * cannot be turned back into the token, so pasting it into a calendar app gives away only the feeds.
 */
export function calendarTokenOf(storedHash: Buffer): string {
  return `${CALENDAR_PREFIX}${createHmac("sha256", storedHash).update("fluxgate calendar feed").digest("base64url")}`;
}

/**
 * True when `token` hashes to `hash` (32 bytes). The comparison is over two hashes of the same
 * length with crypto.timingSafeEqual, so its time says nothing about how much of a guess was right
 * or how long the token is; a stored hash of another length never matches (and never throws).
 */
export function tokenMatches(token: string, hash: Buffer): boolean {
  const presented = createHash("sha256").update(token, "utf8").digest();
  if (hash.length !== HASH_BYTES) {
    // Compare anyway, so a malformed entry costs the same as a real one.
    timingSafeEqual(presented, presented);
    return false;
  }
  return timingSafeEqual(presented, hash);
}

/** Default commit email of a token's holder. */
export function defaultEmail(name: string): string {
  return `${name.toLowerCase().replace(/[^a-z0-9._-]+/g, "-")}@fluxgate.invalid`;
}

export interface AddTokenOptions {
  name: string;
  role: Role;
  email?: string | undefined;
  /** Replace a token of the same name instead of refusing. */
  replace?: boolean;
  now: number;
}

/**
 * Adds a token to the tokens file (created with mode 0600 when missing) and returns the token,
 * the only time it is ever seen. Comments and other entries of the file are kept.
 *
 * @example const token = await addToken("tokens.yaml", { name: "alice", role: "editor", now: Date.now() });
 */
export async function addToken(file: string, options: AddTokenOptions): Promise<string> {
  // Two writers (a second example server starting, a "token add" meanwhile) must not each read the
  // file, add their token and rename over the other's: one token printed would never be stored.
  const release = await lockFile(`${file}.lock`);
  try {
    return await addTokenLocked(file, options);
  } finally {
    await release();
  }
}

/** A lock older than this was left by a process that died while holding it. */
const STALE_LOCK_MS = 30_000;

/** Takes `lock` (created exclusively), waiting for whoever holds it; resolves to its release. */
async function lockFile(lock: string): Promise<() => Promise<void>> {
  const deadline = Date.now() + 2 * STALE_LOCK_MS;
  for (;;) {
    try {
      const handle = await open(lock, "wx", 0o600);
      await handle.close();
      return () => rm(lock, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw new ConfigError(`${lock}: cannot lock the tokens file: ${(e as Error).message}`, { cause: e });
    }
    const since = await stat(lock).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (since > STALE_LOCK_MS) await rm(lock, { force: true });
    else if (Date.now() > deadline) throw new ConfigError(`${lock}: the tokens file stays locked; if no "fluxgate serve" is starting, remove the lock file`);
    else await sleep(10 + Math.random() * 20);
  }
}

async function addTokenLocked(file: string, options: AddTokenOptions): Promise<string> {
  const entry = TokenEntrySchema.safeParse({
    name: options.name,
    role: options.role,
    ...(options.email === undefined ? {} : { email: options.email }),
    sha256: "0".repeat(64),
  });
  if (!entry.success) {
    const issue = entry.error.issues[0];
    throw new ConfigError(`--${String(issue?.path[0] ?? "name")}: ${issue?.message ?? "is invalid"}`);
  }
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw new ConfigError(`${file}: cannot read the tokens file: ${(e as Error).message}`, { cause: e });
    text = `${HEADER}tokens: []\n`;
  }
  const doc = parseDocument(text);
  const existing = parseTokens(file, text);
  if (existing.some((t) => t.name === options.name) && options.replace !== true) {
    throw new ConfigError(`${file}: already has a token named "${options.name}"; choose another name`);
  }
  const token = generateToken();
  const record: TokenEntry = {
    name: options.name,
    role: options.role,
    ...(options.email === undefined ? {} : { email: options.email }),
    sha256: hashToken(token),
    createdAt: new Date(options.now).toISOString(),
  };
  let seq = doc.get("tokens");
  if (!(seq instanceof YAMLSeq)) {
    seq = doc.createNode([]);
    doc.set("tokens", seq);
  }
  const items = (seq as YAMLSeq).items;
  const at = existing.findIndex((t) => t.name === options.name);
  const node = doc.createNode(record);
  if (at >= 0) items[at] = node;
  else items.push(node);
  if (seq instanceof YAMLSeq) seq.flow = false;
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(temp, doc.toString(), { mode: 0o600 });
  await rename(temp, file);
  return token;
}

function parseTokens(file: string, text: string): TokenEntry[] {
  const read = readYaml(text);
  if (read.problem !== null) throw new ConfigError(`${file}: ${read.problem}`);
  const parsed = TokensFileSchema.safeParse(read.value ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`${file}: ${issue === undefined ? "is invalid" : `${issue.path.join(".")}: ${issue.message}`}`);
  }
  const tokens = parsed.data.tokens ?? [];
  const names = new Set<string>();
  for (const t of tokens) {
    if (names.has(t.name)) throw new ConfigError(`${file}: two tokens are named "${t.name}"`);
    names.add(t.name);
  }
  return tokens;
}

/** The calendar token of a presented (full) token, for GET /api/v1/calendar-token. */
export function calendarTokenFor(token: string): string {
  return calendarTokenOf(createHash("sha256").update(token, "utf8").digest());
}

/** The tokens of a tokens file, re-read when the file changes, so `token add` needs no restart. */
export class TokenStore {
  private readonly file: string;
  private entries: Array<TokenEntry & { hash: Buffer }> = [];
  private mtimeMs = -1;
  private checkedAt = 0;

  private constructor(file: string) {
    this.file = file;
  }

  /** Reads the tokens file; a missing file is an error (create it with `fluxgate serve token add`). */
  static async open(file: string): Promise<TokenStore> {
    const store = new TokenStore(file);
    await store.reload(true);
    return store;
  }

  /** Number of tokens known. */
  get size(): number {
    return this.entries.length;
  }

  private async reload(force: boolean): Promise<void> {
    const now = Date.now();
    if (!force && now - this.checkedAt < 1000) return;
    this.checkedAt = now;
    let mtimeMs: number;
    try {
      mtimeMs = (await stat(this.file)).mtimeMs;
    } catch (e) {
      if (!force) return;
      throw new ConfigError(
        `${this.file}: cannot read the tokens file (${(e as NodeJS.ErrnoException).code ?? String(e)}); create it with "fluxgate serve token add --tokens-file ${this.file} --name NAME --role viewer"`,
        { cause: e },
      );
    }
    if (mtimeMs === this.mtimeMs) return;
    const tokens = parseTokens(this.file, await readFile(this.file, "utf8"));
    this.entries = tokens.map((t) => ({ ...t, hash: Buffer.from(t.sha256, "hex") }));
    this.mtimeMs = mtimeMs;
  }

  /**
   * The identity of a presented token, or null. Every stored hash is compared, each in constant
   * time, so the time taken tells nothing about which entry (if any) matched.
   */
  async verify(token: string): Promise<Identity | null> {
    try {
      await this.reload(false);
    } catch {
      // A file being rewritten keeps the tokens read last.
    }
    let found: TokenEntry | null = null;
    const calendar = isCalendarToken(token);
    for (const entry of this.entries) {
      const matches = calendar ? tokenMatches(token, createHash("sha256").update(calendarTokenOf(entry.hash)).digest()) : tokenMatches(token, entry.hash);
      if (matches && found === null) found = entry;
    }
    // A calendar token reads, whatever its token's role.
    if (found !== null && calendar) return { name: found.name, role: "viewer", email: found.email ?? defaultEmail(found.name), anonymous: false };
    if (found === null) return null;
    return { name: found.name, role: found.role, email: found.email ?? defaultEmail(found.name), anonymous: false };
  }
}
