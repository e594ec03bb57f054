// Loads `fluxgate controller` from its bundle (dist/cli/controller.cjs, made by scripts/bundle.ts), with V8's code of the bundle's start kept in Node's compile-cache directory.
//
// Node's compile cache ($NODE_COMPILE_CACHE) keeps V8's code of a module as it was just after compiling
// it: the top level alone. The functions the bundle runs as it loads (zod building the API's schemas,
// client-node's classes, ...) were compiled again at each start, about 770 of them, 15-20 ms of the
// start's main thread (docs/performance-history.md, "The bundle's code as it ran; UTC without ICU"). This runs the bundle
// as a script whose code cache is made when the process exits, so it holds every function compiled by
// then. The image makes it at build, as it makes Node's (Dockerfile); the cache is read from the same
// directory. Without NODE_COMPILE_CACHE (or with NODE_DISABLE_COMPILE_CACHE, as for Node's) nothing is read or written; a cache that does not match the
// bundle's bytes, this Node.js or its V8 flags is not used (and made again at exit, where the directory
// can be written). NODE_DEBUG=fluxgate reports what happened to it.

import { accessSync, closeSync, constants as fsConstants, fstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
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
  const cacheDir = process.env["NODE_DISABLE_COMPILE_CACHE"] === undefined ? process.env["NODE_COMPILE_CACHE"] : undefined;
  return (runBundle(bundle, source, cacheDir) as { runController: Run }).runController;
}

/** The cache file's first bytes: a mark, the CRC-32 and length of the text V8 compiled (the bundle, wrapped), and the CRC-32 of V8's data after them. */
const MARK = 0x46474343; // "FGCC"
const HEADER = 16;

/**
 * Runs the CommonJS bundle at `file` (its text `source`) and returns its exports. The bundle's one
 * import from outside (the CLI's error classes, whose `instanceof` maps errors to exit codes) is
 * this process's copy of them. With `cacheDir`, V8's code is read from there, and written there at
 * exit when none was used.
 */
export function runBundle(file: string, source: string, cacheDir: string | undefined): unknown {
  // The checksum and length of the very text V8 compiles (V8 checks a cache against its length alone).
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const cacheFile = cacheDir === undefined || cacheDir === "" ? undefined : join(cacheDir, `fluxgate-controller-${process.version}-${process.arch}`);
  // Without a cache directory, no checksum of the 1.5 MB at each start.
  const sourceCrc = cacheFile === undefined ? 0 : crc32(wrapped);
  const sourceLength = Buffer.byteLength(wrapped);
  const cachedData = cacheFile === undefined ? undefined : readCache(cacheFile, sourceCrc, sourceLength);
  const script = new Script(wrapped, {
    filename: file,
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  if (cachedData !== undefined) debug(`controller code cache ${cacheFile}: ${script.cachedDataRejected === true ? "rejected by V8" : "used"}`);
  if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected === true)) {
    process.once("exit", () => writeCache(cacheFile, sourceCrc, sourceLength, script));
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
    // Not blocking: a FIFO put there would hold the start.
    const fd = openSync(cacheFile, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
    try {
      if (!fstatSync(fd).isFile()) {
        debug(`controller code cache ${cacheFile}: not a file, not used`);
        return undefined;
      }
      bytes = readFileSync(fd);
    } finally {
      closeSync(fd);
    }
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
function writeCache(cacheFile: string, sourceCrc: number, sourceLength: number, script: Script): void {
  // A new file of this process's own (never one already there, nor a link), renamed over the old: two processes writing at once leave one whole cache.
  const partial = `${cacheFile}.${process.pid}.${randomBytes(4).toString("hex")}`;
  let created = false;
  try {
    mkdirSync(dirname(cacheFile), { recursive: true });
    accessSync(dirname(cacheFile), fsConstants.W_OK);
    const data = script.createCachedData();
    const header = Buffer.alloc(HEADER);
    header.writeUInt32LE(MARK, 0);
    header.writeUInt32LE(sourceCrc, 4);
    header.writeUInt32LE(sourceLength, 8);
    header.writeUInt32LE(crc32(data), 12);
    writeFileSync(partial, Buffer.concat([header, data]), { flag: "wx" });
    created = true;
    renameSync(partial, cacheFile);
    debug(`controller code cache ${cacheFile}: written (${data.length} bytes)`);
  } catch (err) {
    // At exit, nothing may throw: a cache not written is one the next start does without.
    try {
      if (created) rmSync(partial, { force: true });
    } catch {
      // left behind; named by this process, it is never read
    }
    debug(`controller code cache ${cacheFile}: not written (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}
