// Python's `holidays` package at a pinned version, installed into the tools cache: the oracle the holiday freezes are checked against.

import { spawn } from "node:child_process";
import { mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { ToolBuildError } from "./errors.ts";
import { withLock } from "./lock.ts";
import { cacheRoot, exists } from "./paths.ts";

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
  const dir = pythonHolidaysDir();
  const ready = await installedPythonHolidays();
  if (ready !== null) return ready;
  await mkdir(cacheRoot(), { recursive: true });
  return withLock(`${dir}.lock`, async () => {
    if ((await installedPythonHolidays()) !== null) return dir;
    const partial = `${dir}.partial`;
    await rm(partial, { recursive: true, force: true });
    log(`installing Python's holidays ${PYTHON_HOLIDAYS_VERSION} with pip into ${dir}`);
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        "python3",
        ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--target", partial, `holidays==${PYTHON_HOLIDAYS_VERSION}`],
        {
          stdio: ["ignore", "inherit", "pipe"],
        },
      );
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      child.on("error", (e) => reject(new ToolBuildError(`python3 did not start (${e.message}): install Python 3 with pip`, { cause: e })));
      child.on("close", (code) =>
        code === 0
          ? resolve()
          : reject(new ToolBuildError(`pip could not install holidays==${PYTHON_HOLIDAYS_VERSION} (exit ${String(code)}): ${stderr.trim()}`)),
      );
    });
    await rename(partial, dir);
    return dir;
  });
}
