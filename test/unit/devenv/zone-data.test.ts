// The zone data the oracles are given is this Node.js's own release, as Python's tzdata package numbers it.

import assert from "node:assert/strict";
import { test } from "node:test";
import { installedZoneData, runtimeZoneDataRelease, tzdataPackageVersion } from "../../../src/devenv/zone-data.ts";

test("an IANA release is the tzdata package's year and the letter's place in the alphabet", () => {
  assert.equal(tzdataPackageVersion("2026c"), "2026.3");
  assert.equal(tzdataPackageVersion("2024a"), "2024.1");
  assert.equal(tzdataPackageVersion("2025b"), "2025.2");
  assert.equal(runtimeZoneDataRelease(), process.versions.tz);
});

test("the installed zone files are this Node.js's release, whatever the machine's are (npm test's setup installs them)", async () => {
  const dir = await installedZoneData();
  assert.ok(dir !== null, "installed by npm run tools or npm test's setup");
  assert.ok(dir.includes(`python-tzdata-${tzdataPackageVersion(runtimeZoneDataRelease())}`), dir);
});
