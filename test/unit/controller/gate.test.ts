// Gate mode's pure parts: which commit or digest a revision names, and the pinned copy of an upstream spec.

import assert from "node:assert/strict";
import { test } from "node:test";
import { pinnedSpec } from "../../../src/controller/gate.ts";
import { revisionId } from "../../../src/policy/index.ts";

const SHA = "0123456789abcdef0123456789abcdef01234567";
const DIGEST = `sha256:${"a".repeat(64)}`;

test("revision ids: Flux's Git and OCI revision formats, and bare ids", () => {
  assert.equal(revisionId("GitRepository", `main@sha1:${SHA}`), SHA);
  assert.equal(revisionId("GitRepository", `refs/heads/main@sha1:${SHA}`), SHA);
  assert.equal(revisionId("GitRepository", `v1.2.3@sha1:${SHA}`), SHA);
  assert.equal(revisionId("GitRepository", `main/${SHA}`), SHA, "the legacy branch/sha form");
  assert.equal(revisionId("GitRepository", SHA), SHA);
  assert.equal(revisionId("GitRepository", "main@sha1:xyz"), undefined);
  assert.equal(revisionId("GitRepository", undefined), undefined);
  assert.equal(revisionId("OCIRepository", `latest@${DIGEST}`), DIGEST);
  assert.equal(revisionId("OCIRepository", DIGEST), DIGEST);
});

test("the pinned spec keeps everything of the upstream but suspend and the ref, which names the commit (Git) or digest (OCI)", () => {
  const upstream = {
    url: "https://git.example/fleet.git",
    interval: "1m",
    secretRef: { name: "auth" },
    ignore: "/docs",
    ref: { branch: "main" },
    suspend: true,
  };
  assert.deepEqual(pinnedSpec("GitRepository", upstream, SHA), {
    url: "https://git.example/fleet.git",
    interval: "1m",
    secretRef: { name: "auth" },
    ignore: "/docs",
    ref: { branch: "main", commit: SHA },
  });
  assert.deepEqual(pinnedSpec("GitRepository", { url: "u", ref: { tag: "v1" } }, SHA), { url: "u", ref: { commit: SHA } });
  assert.deepEqual(pinnedSpec("OCIRepository", { url: "oci://r/app", ref: { tag: "latest" } }, DIGEST), { url: "oci://r/app", ref: { digest: DIGEST } });
});
