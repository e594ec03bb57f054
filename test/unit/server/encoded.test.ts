// A kept answer's ETag matches what If-None-Match names, whatever its own text ends with; a failed value is not kept.

import assert from "node:assert/strict";
import { test } from "node:test";
import { EncodedAnswer } from "../../../src/server/http/encoded.ts";
import { KeptByBytes } from "../../../src/server/model/kept.ts";

/** An answer whose own tag ends in `suffix` (found by trying bodies: about one in 262,144 does). */
function answerWithTagEnding(suffix: string): EncodedAnswer {
  for (let i = 0; i < 5_000_000; i++) {
    const answer = new EncodedAnswer(new TextEncoder().encode(`{"n":${i}}`), () => undefined);
    if (answer.tag.endsWith(suffix)) return answer;
  }
  throw new Error(`no tag ending in ${suffix} found`);
}

test("If-None-Match names an answer in any encoding, weak or strong, in a list or as *; another answer's tag does not match", () => {
  const answer = new EncodedAnswer(new TextEncoder().encode('{"a":1}'), () => undefined);
  for (const header of [answer.etag("identity"), answer.etag("br"), answer.etag("gzip"), `W/${answer.etag("br")}`, `"x", ${answer.etag("gzip")}`, "*"]) {
    assert.equal(answer.matches(header), true, header);
  }
  const other = new EncodedAnswer(new TextEncoder().encode('{"a":2}'), () => undefined);
  for (const header of [undefined, other.etag("identity"), other.etag("br"), `"${answer.tag}-zz"`, `"${answer.tag.slice(0, -1)}"`]) {
    assert.equal(answer.matches(header), false, String(header));
  }
});

test("an answer whose own tag ends in -br or -gz still matches its ETags (the suffix is not cut from it)", () => {
  for (const suffix of ["-br", "-gz"]) {
    const answer = answerWithTagEnding(suffix);
    for (const encoding of ["identity", "br", "gzip"] as const) assert.equal(answer.matches(answer.etag(encoding)), true, `${answer.tag} ${encoding}`);
    // Its tag without the suffix is another answer's.
    assert.equal(answer.matches(`"${answer.tag.slice(0, -3)}"`), false);
  }
});

test("KeptByBytes makes a failed value again, and a failure of an evicted value does not drop the value kept after it", async () => {
  const kept = new KeptByBytes<string>(10);
  let made = 0;
  await assert.rejects(
    kept.get(
      "k",
      () => Promise.reject(new Error("no")),
      () => 1,
    ),
  );
  assert.equal(kept.has("k"), false, "a failure is not kept");
  assert.equal(
    await kept.get(
      "k",
      () => Promise.resolve(`v${++made}`),
      () => 1,
    ),
    "v1",
  );
  assert.equal(
    await kept.get(
      "k",
      () => Promise.resolve(`v${++made}`),
      () => 1,
    ),
    "v1",
    "a value is kept",
  );

  // An old value still on its way is evicted by a large one, the key made again, and then the old one fails.
  let fail = (_: Error): void => undefined;
  const slow = kept.get(
    "slow",
    () => new Promise<string>((_, reject) => (fail = reject)),
    () => 1,
  );
  await kept.get(
    "big",
    () => Promise.resolve("b"),
    () => 11,
  );
  assert.equal(kept.has("slow"), false, "evicted past the budget");
  const again = kept.get(
    "slow",
    () => Promise.resolve("second"),
    () => 1,
  );
  fail(new Error("the first one failed"));
  await assert.rejects(slow);
  assert.equal(await again, "second");
  assert.equal(kept.has("slow"), true, "the value made again is kept");
});
