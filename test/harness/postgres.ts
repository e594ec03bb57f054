// A real PostgreSQL server (Debian's packages) in a temporary directory, for the status store's tests.

import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { chown, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import pg from "pg";
import { freePort } from "../../src/devenv/process.ts";

const run = promisify(execFile);

export interface Postgres {
  /** A database URL: `postgres://fluxgate@127.0.0.1:PORT/DB`. */
  url: string;
  /** A fresh, empty database on the server and its URL. */
  database(name: string): Promise<string>;
  stop(): Promise<void>;
}

/** The newest installed server's bin directory; an error saying how to install one otherwise. */
function binDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest === undefined)
    throw new Error("PostgreSQL is not installed: the status store's tests run a real server. Install Debian's package: apt-get install postgresql");
  return join(root, newest, "bin");
}

/** initdb and postgres refuse to run as root: as root, they run as the `postgres` user Debian's package creates. */
function asUser(): { prefix: string[]; uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith("postgres:"));
  if (line === undefined) throw new Error("running as root and there is no postgres user: install Debian's postgresql package, which creates it");
  const [, , uid, gid] = line.split(":");
  return { prefix: ["setpriv", `--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", "--"], uid: Number(uid), gid: Number(gid) };
}

/**
 * Starts a PostgreSQL server with its data in a temporary directory (trust authentication on
 * 127.0.0.1 only) and waits until it takes connections.
 *
 * @example const db = await startPostgres(); const store = await PostgresStore.open(await db.database("t1")); ... await db.stop();
 */
export async function startPostgres(): Promise<Postgres> {
  const bin = binDir();
  const user = asUser();
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-postgres-"));
  const data = join(dir, "data");
  const socket = join(dir, "socket");
  await mkdir(socket);
  if (user !== null) {
    await chown(dir, user.uid, user.gid);
    await chown(socket, user.uid, user.gid);
  }
  const command = (program: string, args: string[]): [string, string[]] =>
    user === null ? [join(bin, program), args] : [user.prefix[0] as string, [...user.prefix.slice(1), join(bin, program), ...args]];
  const [initdb, initArgs] = command("initdb", ["-D", data, "-U", "fluxgate", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"]);
  await run(initdb, initArgs);
  const port = await freePort();
  const [postgres, args] = command("postgres", ["-D", data, "-p", String(port), "-k", socket, "-c", "listen_addresses=127.0.0.1"]);
  const child: ChildProcess = spawn(postgres, args, { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr?.setEncoding("utf8").on("data", (d: string) => (log = (log + d).slice(-4000)));
  const url = `postgres://fluxgate@127.0.0.1:${port}/postgres`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`postgres exited while starting:\n${log}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      break;
    } catch {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`postgres was not ready after 30 s:\n${log}`);
      await sleep(100);
    }
  }
  return {
    url,
    database: async (name) => {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return url.replace(/\/postgres$/, `/${name}`);
    },
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        // SIGINT: PostgreSQL's fast shutdown.
        child.kill("SIGINT");
        await Promise.race([exited, sleep(10_000)]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
