// A client of holidays-oracle.py: the public holidays of countries and subdivisions as Python's `holidays` package (the pinned version in the tools cache) lists them.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { installedPythonHolidays, PYTHON_HOLIDAYS_HOWTO, PYTHON_HOLIDAYS_VERSION } from "../../src/devenv/python-holidays.ts";

export interface HolidaysRequest {
  country: string;
  subdivision: string | null;
  years: number[];
}

export interface HolidaysAnswer {
  ok: boolean;
  version?: string;
  /** [date, name], in date order; a day with two holidays is listed twice. */
  days?: Array<[string, string]>;
  error?: string;
}

const SCRIPT = fileURLToPath(new URL("holidays-oracle.py", import.meta.url));

/** Asks Python's holidays about every request in one process; answers in order. Fails, saying how to install it, when the pinned version is not in the cache. */
export async function askPythonHolidays(requests: readonly HolidaysRequest[]): Promise<HolidaysAnswer[]> {
  const dir = await installedPythonHolidays();
  if (dir === null) throw new Error(`Python's holidays ${PYTHON_HOLIDAYS_VERSION} is not installed: ${PYTHON_HOLIDAYS_HOWTO}`);
  return new Promise((resolve, reject) => {
    const child = spawn("python3", [SCRIPT], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, PYTHONPATH: dir } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", (e) => reject(new Error(`python3 did not start (${e.message}): install Python 3.9+, then ${PYTHON_HOLIDAYS_HOWTO}`)));
    child.on("close", (code) => {
      if (code !== 0) {
        reject(new Error(`holidays-oracle.py exited ${String(code)}: ${stderr.trim()}${code === 3 ? `\n(${PYTHON_HOLIDAYS_HOWTO})` : ""}`));
        return;
      }
      const answers = stdout
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as HolidaysAnswer);
      if (answers.length !== requests.length)
        reject(new Error(`holidays-oracle.py answered ${answers.length} of ${requests.length} requests: ${stderr.trim()}`));
      else resolve(answers);
    });
    for (const r of requests) child.stdin.write(JSON.stringify(r) + "\n");
    child.stdin.end();
  });
}
