// Tokens: shown once, kept as hashes in a 0600 file, verified in constant time, re-read when the file changes.

import assert from "node:assert/strict";
import { open, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { addToken, hashToken, TokenStore } from "../../../src/server/http/tokens.ts";
import { NOW, tempDir } from "../../support/server.ts";

test("addToken stores only the hash, in a file only its owner can read, and refuses a name twice", async (t) => {
  const { dir, cleanup } = await tempDir("tokens");
  t.after(cleanup);
  const file = join(dir, "tokens.yaml");
  const token = await addToken(file, { name: "alice", role: "editor", email: "alice@example.com", now: NOW });
  assert.match(token, /^fgt_[A-Za-z0-9_-]{43}$/);
  const text = await readFile(file, "utf8");
  assert.ok(!text.includes(token));
  assert.match(text, new RegExp(`sha256: ${hashToken(token)}`));
  assert.equal((await stat(file)).mode & 0o777, 0o600);
  await assert.rejects(addToken(file, { name: "alice", role: "viewer", now: NOW }), /already has a token named "alice"/);
  await assert.rejects(addToken(file, { name: "", role: "viewer", now: NOW }), /--name/);
  const replaced = await addToken(file, { name: "alice", role: "viewer", replace: true, now: NOW });
  const store = await TokenStore.open(file);
  assert.equal(await store.verify(token), null, "a replaced token no longer works");
  assert.deepEqual(await store.verify(replaced), { name: "alice", role: "viewer", email: "alice@fluxgate.invalid", anonymous: false });
});

test("addToken replaces the file atomically: a reader holding the old file reads it whole, and no temporary file is left", async (t) => {
  const { dir, cleanup } = await tempDir("tokens");
  t.after(cleanup);
  const file = join(dir, "tokens.yaml");
  await addToken(file, { name: "alice", role: "editor", now: NOW });
  const before = await readFile(file, "utf8");
  // A file written in place would show the reader the new (or half of the new) text; a renamed one leaves the old file whole.
  const reader = await open(file, "r");
  t.after(() => reader.close());
  await addToken(file, { name: "bob", role: "viewer", now: NOW });
  assert.equal(await reader.readFile("utf8"), before);
  assert.match(await readFile(file, "utf8"), /name: bob/);
  assert.deepEqual(await readdir(dir), ["tokens.yaml"]);
});

test("tokens added at the same time are all kept: no writer renames its file over another's", async (t) => {
  const { dir, cleanup } = await tempDir("tokens");
  t.after(cleanup);
  const file = join(dir, "tokens.yaml");
  const names = Array.from({ length: 12 }, (_, i) => `holder-${i}`);
  const tokens = await Promise.all(names.map((name) => addToken(file, { name, role: "viewer", now: NOW })));
  const store = await TokenStore.open(file);
  for (const [i, token] of tokens.entries()) assert.equal((await store.verify(token))?.name, names[i], `the token of ${names[i]} works`);
  assert.deepEqual(await readdir(dir), ["tokens.yaml"], "no lock or temporary file is left");
});

test("the store re-reads the file when it changes, and rejects a broken file with its reason", async (t) => {
  const { dir, cleanup } = await tempDir("tokens");
  t.after(cleanup);
  const file = join(dir, "tokens.yaml");
  const first = await addToken(file, { name: "a", role: "viewer", now: NOW });
  const store = await TokenStore.open(file);
  assert.equal(store.size, 1);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const second = await addToken(file, { name: "b", role: "breakglass", now: NOW });
  assert.equal((await store.verify(second))?.role, "breakglass");
  assert.equal((await store.verify(first))?.name, "a");
  await writeFile(file, "tokens:\n  - name: x\n    role: admin\n    sha256: abc\n");
  await assert.rejects(TokenStore.open(file), /tokens\.0\.role/);
  await assert.rejects(TokenStore.open(join(dir, "missing.yaml")), /cannot read the tokens file \(ENOENT\); create it with "fluxgate serve token add/);
});
