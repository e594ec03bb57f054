// The IANA zone data of the Node.js that runs fluxgate, for the oracles: Go's robfig/cron and Python's zoneinfo read the machine's zone
// files, which a package upgrade moves ahead of (or behind) Node's own copy in ICU. A difference of data is not one of rules, so the oracles
// are given the very version Node has: Python's `tzdata` package of that release, its compiled zone files installed into the tools cache.

import { join } from "node:path";
import { ToolBuildError } from "./errors.ts";
import { cacheRoot, exists } from "./paths.ts";
import { pipInstallOnce } from "./pip.ts";

/** Node's zone data release (`process.versions.tz`, e.g. 2026c). */
export function runtimeZoneDataRelease(): string {
  const release = process.versions.tz;
  if (release === undefined || !/^\d{4}[a-z]$/.test(release))
    throw new ToolBuildError(`this Node.js reports no IANA zone data release (process.versions.tz: ${String(release)})`);
  return release;
}

/** The `tzdata` package's version of an IANA release: 2026c is 2026.3. */
export function tzdataPackageVersion(release: string): string {
  return `${release.slice(0, 4)}.${release.charCodeAt(4) - "a".charCodeAt(0) + 1}`;
}

/** The `tzdata` package's version of Node's release. */
function packageVersion(): string {
  return tzdataPackageVersion(runtimeZoneDataRelease());
}

function zoneDataDir(): string {
  return join(cacheRoot(), `python-tzdata-${packageVersion()}`);
}

/** Where the package keeps its compiled zone files (`America/Havana`, …): ZONEINFO for Go, PYTHONTZPATH for Python. */
function zoneFilesDir(): string {
  return join(zoneDataDir(), "tzdata", "zoneinfo");
}

/** The folder of zone files of Node's release when installed, else null. */
export async function installedZoneData(): Promise<string | null> {
  return (await exists(join(zoneFilesDir(), "Europe", "Berlin"))) ? zoneFilesDir() : null;
}

/** How to install it by hand, for a test's message. */
export function zoneDataHowto(): string {
  return `npm run tools (or: python3 -m pip install --target ~/.cache/fluxgate/python-tzdata-${packageVersion()} tzdata==${packageVersion()})`;
}

/** Installs Node's zone data release into the cache, once, and returns its folder of zone files. */
export async function ensureZoneData(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<string> {
  await pipInstallOnce(zoneDataDir(), `tzdata==${packageVersion()}`, async () => (await installedZoneData()) !== null, log);
  return zoneFilesDir();
}

/** The zone files for an oracle's process, failing with how to install them when they are missing. */
export async function zoneDataForOracle(): Promise<string> {
  const dir = await installedZoneData();
  if (dir === null) throw new Error(`the zone data of this Node.js (${runtimeZoneDataRelease()}) is not installed for the oracles: ${zoneDataHowto()}`);
  return dir;
}
