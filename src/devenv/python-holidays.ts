// Python's `holidays` package at a pinned version, installed into the tools cache: the oracle the holiday freezes are checked against.

import { join } from "node:path";
import { cacheRoot, exists } from "./paths.ts";
import { pipInstallOnce } from "./pip.ts";

/** The version of Python's `holidays` the oracle test compares with; a new version installs into its own folder. */
export const PYTHON_HOLIDAYS_VERSION = "0.109";

/** The folder that holds the package (PYTHONPATH for the oracle). */
export function pythonHolidaysDir(): string {
  return join(cacheRoot(), `python-holidays-${PYTHON_HOLIDAYS_VERSION}`);
}

/** The folder when the package is installed there, else null. */
export async function installedPythonHolidays(): Promise<string | null> {
  const dir = pythonHolidaysDir();
  return (await exists(join(dir, "holidays", "__init__.py"))) ? dir : null;
}

/** How to install it by hand, for a test's message. */
export const PYTHON_HOLIDAYS_HOWTO = `npm run tools (or: python3 -m pip install --target ~/.cache/fluxgate/python-holidays-${PYTHON_HOLIDAYS_VERSION} holidays==${PYTHON_HOLIDAYS_VERSION})`;

/** Installs the package with pip into the cache, once (a folder per version), and returns its folder. */
export async function ensurePythonHolidays(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<string> {
  return pipInstallOnce(pythonHolidaysDir(), `holidays==${PYTHON_HOLIDAYS_VERSION}`, async () => (await installedPythonHolidays()) !== null, log);
}
