// jittered: the wait of each retry against the Kubernetes API, 20 % either side of what it was asked, spread over that range rather than one value.

import assert from "node:assert/strict";
import { test } from "node:test";
import { jittered } from "../../../src/kube/jitter.ts";

test("a wait is jittered within 20 % either side and spread over the range", () => {
  const waits = Array.from({ length: 2_000 }, () => jittered(1_000));
  for (const w of waits) assert.ok(w >= 800 && w <= 1_200, `a wait of ${w} ms for 1,000 asked`);
  // Both fifths at the ends are reached: the waits of clients that failed together do not cluster on one value.
  assert.ok(
    waits.some((w) => w < 880),
    "none in the lowest fifth",
  );
  assert.ok(
    waits.some((w) => w > 1_120),
    "none in the highest fifth",
  );
  assert.equal(jittered(0), 0);
});
