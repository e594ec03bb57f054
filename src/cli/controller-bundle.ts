// Loads `fluxgate controller` from its bundle (dist/cli/controller.cjs, made by scripts/bundle.ts), with V8's code of the bundle's start kept in Node's compile-cache directory.
//
// Node's compile cache ($NODE_COMPILE_CACHE) keeps V8's code of a module as it was just after compiling
// it: the top level alone. The functions the bundle runs as it loads (zod building the API's schemas,
// client-node's classes, ...) were compiled again at each start, about 1,000 of them, 15-20 ms of the
// start's main thread (docs/performance-history.md, "The bundle's code as it ran; UTC without ICU"). This runs the bundle
// as a script whose code cache is made when the process exits, so it holds every function compiled by
// then. The image makes it at build, as it makes Node's (Dockerfile); the cache is read from the same
// directory. Without NODE_COMPILE_CACHE nothing is read or written; a cache that does not match the
// bundle's bytes, this Node.js or its V8 flags is not used (and made again at exit, where the directory
// can be written). NODE_DEBUG=fluxgate reports what happened to it.

import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { constants, Script } from "node:vm";
import { crc32 } from "node:zlib";
import * as errors from "../errors.ts";
import type { Run } from "./command.ts";

/** NODE_DEBUG=fluxgate: what happened to the cache, on stderr as util.debuglog writes (node:util itself is not loaded for it: it loads worker_threads). */
const debugging = (process.env["NODE_DEBUG"] ?? "").split(",").some((name) => name.trim().toLowerCase() === "fluxgate");
function debug(message: string): void {
  if (debugging) process.stderr.write(`FLUXGATE ${process.pid}: ${message}\n`);
}

/** `fluxgate controller`'s run: from the bundle beside this file when there is one (a build), else from the sources. */
export async function loadControllerCommand(): Promise<Run> {
  const bundle = fileURLToPath(new URL("./controller.cjs", import.meta.url));
  let source: string;
  try {
    source = readFileSync(bundle, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    return (await import("./controller.ts")).runController;
  }
  return (runBundle(bundle, source, process.env["NODE_COMPILE_CACHE"]) as { runController: Run }).runController;
}

/** The cache file's first bytes: a mark, the CRC-32 and length of the bundle it was made from, and the CRC-32 of V8's data after them. */
const MARK = 0x46474343; // "FGCC"
const HEADER = 16;

/**
 * Runs the CommonJS bundle at `file` (its text `source`) and returns its exports. The bundle's one
 * import from outside (the CLI's error classes, whose `instanceof` maps errors to exit codes) is
 * this process's copy of them. With `cacheDir`, V8's code is read from there, and written there at
 * exit when none was used.
 */
export function runBundle(file: string, source: string, cacheDir: string | undefined): unknown {
  const sourceCrc = crc32(source);
  const sourceLength = Buffer.byteLength(source);
  const cacheFile = cacheDir === undefined || cacheDir === "" ? undefined : join(cacheDir, `fluxgate-controller-${process.version}-${process.arch}`);
  const cachedData = cacheFile === undefined ? undefined : readCache(cacheFile, sourceCrc, sourceLength);
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  if (cachedData !== undefined) debug(`controller code cache ${cacheFile}: ${script.cachedDataRejected === true ? "rejected by V8" : "used"}`);
  if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected === true)) {
    process.once("exit", () => writeCache(cacheFile, sourceCrc, sourceLength, script.createCachedData()));
  }
  const required = createRequire(file);
  const requireFromBundle = (id: string): unknown => (id === "../errors.js" ? errors : required(id));
  const module = { exports: {} as unknown };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, requireFromBundle, module, file, dirname(file));
  return module.exports;
}

/** V8's data from `cacheFile` if it was made from this bundle and is whole; else undefined (why: NODE_DEBUG=fluxgate). */
function readCache(cacheFile: string, sourceCrc: number, sourceLength: number): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(cacheFile);
  } catch (err) {
    debug(`controller code cache ${cacheFile}: none (${(err as NodeJS.ErrnoException).code})`);
    return undefined;
  }
  const data = bytes.subarray(HEADER);
  if (bytes.length < HEADER || bytes.readUInt32LE(0) !== MARK || bytes.readUInt32LE(12) !== crc32(data)) {
    debug(`controller code cache ${cacheFile}: damaged, not used`);
    return undefined;
  }
  if (bytes.readUInt32LE(4) !== sourceCrc || bytes.readUInt32LE(8) !== sourceLength) {
    debug(`controller code cache ${cacheFile}: made from another bundle, not used`);
    return undefined;
  }
  return data;
}

/** Writes the cache whole or not at all (a new file renamed over the old); a directory that cannot be written is left as it is. */
function writeCache(cacheFile: string, sourceCrc: number, sourceLength: number, data: Buffer): void {
  const header = Buffer.alloc(HEADER);
  header.writeUInt32LE(MARK, 0);
  header.writeUInt32LE(sourceCrc, 4);
  header.writeUInt32LE(sourceLength, 8);
  header.writeUInt32LE(crc32(data), 12);
  const partial = `${cacheFile}.${process.pid}`;
  try {
    mkdirSync(dirname(cacheFile), { recursive: true });
    writeFileSync(partial, Buffer.concat([header, data]));
    renameSync(partial, cacheFile);
    debug(`controller code cache ${cacheFile}: written (${data.length} bytes)`);
  } catch (err) {
    rmSync(partial, { force: true });
    debug(`controller code cache ${cacheFile}: not written (${(err as NodeJS.ErrnoException).code})`);
  }
}
