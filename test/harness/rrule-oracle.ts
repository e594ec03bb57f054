// A client of rrule-oracle.py: the occurrences of RFC 5545 rules as python-dateutil's rrule (with zoneinfo) computes them.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { zoneDataForOracle } from "../../src/devenv/zone-data.ts";

/** One request: the first `count` occurrences (of the rules' union) from `dtstart` (a local date-time in `zone`), up to `end` (epoch ms). */
export interface RruleRequest {
  /** One rule, or several whose union is asked for. */
  rules: string[];
  zone: string;
  dtstart: string;
  /** UNTIL written as a local date-time, given apart from the rule: dateutil takes only UTC in an RRULE with a zone. */
  untilLocal: string | null;
  exdates: string[];
  count: number;
  end: number;
}

/** The zone's UTC offsets at instants, as Python's zoneinfo has them: to tell a difference of zone data from one of rules. */
export interface OffsetsRequest {
  zone: string;
  offsetsAt: number[];
}

export interface RruleAnswer {
  ok: boolean;
  /** For an OffsetsRequest: milliseconds east of UTC at each instant. */
  offsets?: number[];
  times?: number[];
  /** dateutil took more than ten seconds. */
  timedOut?: boolean;
  error?: string;
}

const SCRIPT = fileURLToPath(new URL("rrule-oracle.py", import.meta.url));

/** Asks dateutil about every request in one Python process, its zoneinfo reading this Node.js's zone data release (src/devenv/zone-data.ts); answers in order. */
export async function askDateutil(requests: ReadonlyArray<RruleRequest | OffsetsRequest>): Promise<RruleAnswer[]> {
  const zoneinfo = await zoneDataForOracle();
  return new Promise((resolve, reject) => {
    const child = spawn("python3", [SCRIPT], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, PYTHONTZPATH: zoneinfo } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", (e) => reject(new Error(`python3 did not start (${e.message}): install Python 3.9+ and python-dateutil (pip install python-dateutil)`)));
    child.on("close", (code) => {
      if (code !== 0) {
        reject(
          new Error(
            `rrule-oracle.py exited ${String(code)}: ${stderr.trim()}${code === 3 ? "" : "\n(it needs Python 3.9+ with python-dateutil: pip install python-dateutil)"}`,
          ),
        );
        return;
      }
      const answers = stdout
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as RruleAnswer);
      if (answers.length !== requests.length) reject(new Error(`rrule-oracle.py answered ${answers.length} of ${requests.length} requests: ${stderr.trim()}`));
      else resolve(answers);
    });
    for (const r of requests) child.stdin.write(JSON.stringify(r) + "\n");
    child.stdin.end();
  });
}
