// Tokens: shown once, kept as hashes in a 0600 file, verified in constant time, re-read when the file changes.
 

import assert from "node:assert/strict";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { addToken, hashToken, TokenStore } from "../../../src/server/tokens.ts";
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
