// The pushed-status load at a quick size, in the test suite: 100 clusters steady and in a burst, nothing lost (the figures are the bench's).

import assert from "node:assert/strict";
import { test } from "node:test";
import { pushLoad } from "../../../bench/push.ts";

test("100 clusters posting steadily and all at once: every event acknowledged and stored, none lost", async (t) => {
  const load = await pushLoad(100, 5);
  t.diagnostic(JSON.stringify(load));
  assert.ok(load.posted >= 100 + 8, `posted ${load.posted}`);
  assert.equal(load.acknowledged, load.posted, "every post was acknowledged (202)");
  assert.equal(load.lost, 0);
  assert.ok(load.rows >= 100, `every cluster's burst event is a row (${load.rows})`);
});
