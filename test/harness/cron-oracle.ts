// A client of tools/cron-oracle: what a Kubernetes CronJob accepts and when robfig/cron runs it, asked of the real library.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import { ensureTool } from "../../src/devenv/tools.ts";
import { zoneDataForOracle } from "../../src/devenv/zone-data.ts";

/** The oracle's answer to one request. */
export interface OracleAnswer {
  ok: boolean;
  errors?: string[];
  /** Run times (epoch ms), strictly after `from`, in order; fewer than asked when robfig gives up. */
  times?: number[];
  /** robfig/cron's Next did not return within seconds: it loops forever here (the oracle restarts). */
  stuck?: boolean;
}

/** One request: `validate` a CronJob's schedule and zone, or the `next` runs after `from`. */
export type OracleRequest =
  { op: "validate"; schedule: string; timeZone?: string } | { op: "next"; schedule: string; timeZone?: string; from: number; count: number };

/**
 * A running oracle process. Requests are written at once and answered in order, so thousands of
 * cases cost one process and no round trip each.
 */
export class CronOracle {
  private readonly path: string;
  /** The zone files of this Node.js's release (src/devenv/zone-data.ts): robfig/cron reads them, not the machine's. */
  private readonly zoneinfo: string;
  private child: ChildProcessWithoutNullStreams;
  private readonly waiting: Array<{ request: OracleRequest; resolve: (a: OracleAnswer) => void; reject: (e: Error) => void }> = [];
  private stopping = false;
  /** How many times robfig/cron was found stuck (each costs a restart). */
  stuckCount = 0;

  private constructor(path: string, zoneinfo: string) {
    this.path = path;
    this.zoneinfo = zoneinfo;
    this.child = this.spawn();
  }

  private spawn(): ChildProcessWithoutNullStreams {
    const child = spawn(this.path, [], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ZONEINFO: this.zoneinfo } });
    let stderr = "";
    let stuck = false;
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    // Writes to an oracle that just ended itself fail; those requests are sent again to the next one.
    child.stdin.on("error", () => undefined);
    createInterface({ input: child.stdout }).on("line", (line) => {
      const answer = JSON.parse(line) as OracleAnswer;
      if (answer.stuck === true) {
        stuck = true;
        this.stuckCount++;
      }
      this.waiting.shift()?.resolve(answer);
    });
    child.on("close", (code) => {
      if (stuck && !this.stopping) {
        // The oracle ended itself after a stuck answer: the requests after it go to a new one.
        this.child = this.spawn();
        for (const w of this.waiting) this.child.stdin.write(JSON.stringify(w.request) + "\n");
        return;
      }
      const failure = new Error(`cron-oracle exited (${String(code)}): ${stderr.trim()}`);
      for (const w of this.waiting.splice(0)) w.reject(failure);
    });
    return child;
  }

  /**
   * Starts the oracle, building it first if the tools cache lacks it (`npm run tools` builds it too; Go 1.25+ is needed), with the zone data
   * of this Node.js (`npm run tools` and the tests' setup install it; it fails saying how when they could not).
   */
  static async start(): Promise<CronOracle> {
    const tool = await ensureTool("cron-oracle");
    return new CronOracle(tool.path, await zoneDataForOracle());
  }

  ask(request: OracleRequest): Promise<OracleAnswer> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ request, resolve, reject });
      this.child.stdin.write(JSON.stringify(request) + "\n");
    });
  }

  /** Many requests at once, answered in order. */
  askAll(requests: readonly OracleRequest[]): Promise<OracleAnswer[]> {
    return Promise.all(requests.map((r) => this.ask(r)));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.child.exitCode !== null) return;
    const closed = new Promise<void>((resolve) => this.child.once("close", () => resolve()));
    this.child.stdin.end();
    await closed;
  }
}
