// `fluxgate release`: the fields a managedFields entry names, as people write them; the flag it insists on.

import assert from "node:assert/strict";
import { test } from "node:test";
import { main } from "../../../src/cli/main.ts";
import { fieldPaths } from "../../../src/cli/release.ts";
import { Writable } from "node:stream";

test("fieldPaths names spec fields, annotations and list entries", () => {
  assert.deepEqual(fieldPaths({ "f:spec": { "f:suspend": {} } }), ["spec.suspend"]);
  assert.deepEqual(fieldPaths({ "f:metadata": { "f:annotations": { "f:reconcile.fluxcd.io/requestedAt": {} } }, "f:spec": { ".": {}, "f:suspend": {} } }), [
    "metadata.annotations[reconcile.fluxcd.io/requestedAt]",
    "spec.suspend",
  ]);
  assert.deepEqual(fieldPaths({ "f:metadata": { "f:ownerReferences": { ".": {}, 'k:{"uid":"u1"}': {} } } }), ['metadata.ownerReferences[{"uid":"u1"}]']);
});

test("without --all it refuses and changes nothing (exit 2, before any cluster is contacted); --no-cross-namespace-refs=true reads as Go's", async () => {
  let out = "";
  const sink = new Writable({
    write(chunk: Buffer, _e, done) {
      out += chunk.toString();
      done();
    },
  });
  assert.equal(await main(["release", "--kubeconfig", "/nonexistent"], sink, sink), 2);
  assert.match(out, /^error: release needs --all/);
  out = "";
  assert.equal(await main(["controller", "--no-cross-namespace-refs=maybe"], sink, sink), 2);
  assert.match(out, /no-cross-namespace-refs/);
});
