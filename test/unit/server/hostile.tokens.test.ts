// Wrong, missing, malformed and probing tokens: 401 with one of two fixed messages and nothing about the tokens; every presented token is compared with every
// stored hash through crypto.timingSafeEqual.

import assert from "node:assert/strict";
import crypto from "node:crypto";
import { readFile } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { join } from "node:path";
import { mock, test } from "node:test";
import { addToken, hashToken, tokenMatches, TokenStore } from "../../../src/server/http/tokens.ts";
import { fixture, NOW, tempDir } from "../../support/server.ts";

test("tokenMatches: the token whose hash is stored matches; any other, longer or shorter, does not; a malformed hash never matches", () => {
  const token = "fgt_correct-horse-battery-staple";
  const hash = Buffer.from(hashToken(token), "hex");
  assert.equal(tokenMatches(token, hash), true);
  assert.equal(tokenMatches("fgt_correct-horse-battery-staplE", hash), false, "same length, one character off");
  assert.equal(tokenMatches("fgt_", hash), false, "shorter");
  assert.equal(tokenMatches(`${token}x`, hash), false, "longer");
  assert.equal(tokenMatches("x".repeat(1_000_000), hash), false, "very long");
  assert.equal(tokenMatches("", hash), false, "empty");
  assert.equal(tokenMatches(hashToken(token), hash), false, "the hash itself is not the token");
  assert.equal(tokenMatches(token, hash.subarray(0, 16)), false, "a stored hash of another length does not throw");
  assert.equal(tokenMatches(token, Buffer.alloc(0)), false);
});

test("verify compares the presented token with every stored hash through crypto.timingSafeEqual, on hashes of equal length, even after a match", async (t) => {
  const { dir, cleanup } = await tempDir("tokens");
  t.after(cleanup);
  const file = join(dir, "tokens.yaml");
  const first = await addToken(file, { name: "a", role: "viewer", now: NOW });
  await addToken(file, { name: "b", role: "editor", now: NOW });
  await addToken(file, { name: "c", role: "breakglass", now: NOW });
  const store = await TokenStore.open(file);
  // Named imports of node:crypto follow its exports once synced: the store's own call is the one counted.
  const spy = mock.method(crypto, "timingSafeEqual");
  syncBuiltinESMExports();
  t.after(() => {
    spy.mock.restore();
    syncBuiltinESMExports();
  });
  for (const [presented, expected] of [
    [first, "a"],
    ["fgt_wrong", null],
    ["", null],
    ["x".repeat(10_000), null],
  ] as const) {
    spy.mock.resetCalls();
    assert.equal((await store.verify(presented))?.name ?? null, expected);
    assert.equal(spy.mock.callCount(), 3, `one comparison per stored token for ${presented.slice(0, 12)}`);
    for (const call of spy.mock.calls) {
      const [a, b] = call.arguments as [Buffer, Buffer];
      assert.equal(a.length, 32);
      assert.equal(b.length, 32);
    }
  }
});

test("missing, malformed and wrong Authorization headers are 401 with a fixed message that tells nothing about the tokens", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const stored = await readFile(f.tokens.file, "utf8");
  const hashes = [...stored.matchAll(/sha256: ([0-9a-f]{64})/g)].map((m) => m[1] as string);
  const headers: (string | null)[] = [
    null,
    "",
    "Bearer",
    "Bearer ",
    "bearer x y",
    "Basic ZWRkaWU6c2VjcmV0",
    "Token abc",
    `Bearer ${"a".repeat(8000)}`,
    `Bearer ${f.tokens.editor}x`,
    `Bearer ${f.tokens.editor.slice(0, -1)}`,
    `Bearer ${f.tokens.editor.toUpperCase()}`,
    `Bearer ${hashes[0]}`,
    `Bearer ${f.tokens.editor} ${f.tokens.viewer}`,
    `Bearer\t${f.tokens.editor.slice(1)}`,
  ];
  const FIXED = new Set([
    'this API needs a bearer token: send "Authorization: Bearer TOKEN" (create one with "fluxgate serve token add")',
    'the Authorization header must be "Bearer TOKEN"',
    "the token is not valid: it is unknown or was replaced",
  ]);
  for (const header of headers) {
    const r = await f.call("GET", "/api/v1/me", { token: null, headers: header === null ? {} : { authorization: header } });
    const what = header === null ? "no header" : JSON.stringify(header.slice(0, 40));
    assert.equal(r.status, 401, what);
    assert.ok(FIXED.has(r.body.error.message), `${what}: ${r.body.error.message}`);
    assert.match(r.headers.get("www-authenticate") ?? "", /^Bearer realm="fluxgate"/);
    for (const secret of [f.tokens.editor, f.tokens.viewer, f.tokens.breakglass, ...hashes, "eddie", "vera", "bree"]) {
      assert.ok(!r.text.toLowerCase().includes(secret.toLowerCase().slice(0, 16)), `${what}: the answer mentions ${secret.slice(0, 8)}...`);
    }
  }
});
