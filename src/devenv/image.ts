// Builds the repository's Dockerfile with buildah, runs the image, and measures it layer by layer (uncompressed and gzip, as a registry stores it).

import { createReadStream } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { ToolBuildError } from "./errors.ts";
import { BASE_IMAGE, sh } from "./image-base.ts";
import { exists, repoRoot } from "./paths.ts";

/** One layer of an image: the step that made it and its size as an uncompressed tar and gzip-compressed. */
export interface ImageLayer {
  createdBy: string;
  /** Whether the layer is the base image's (node:24-bookworm-slim) rather than the Dockerfile's. */
  fromBase: boolean;
  bytes: number;
  gzipBytes: number;
}

export interface ImageSize {
  layers: ImageLayer[];
  bytes: number;
  gzipBytes: number;
}

/** What running the image showed. */
export interface ImageChecks {
  /** The output of the image run with `version` as its command. */
  version: string;
  /** Whether `controller --help` printed the controller's usage. */
  controllerHelp: boolean;
  /** The uid and gid the entrypoint runs as. */
  user: string;
  /** Paths of a shell, npm and a package manager found in the image (none is wanted). */
  found: string[];
}

/**
 * `buildah bud` of `dockerfile` with the repository as its context (and its .dockerignore), never pulling:
 * the base must be in local storage (ensureStandInBase). Intermediate layers are kept, so a second build of
 * an unchanged tree is quick. Chroot isolation: it needs no cgroups, which buildah's OCI runtime refuses
 * to manage inside a container with hybrid cgroups (as here). Returns the seconds it took.
 */
export async function buildImage(dockerfile: string, tag: string): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-image-build-"));
  try {
    const started = performance.now();
    const trust = await npmTrust(dir);
    await sh("buildah", [
      "bud",
      "--force-rm",
      "--isolation",
      "chroot",
      "--pull=never",
      "--layers",
      "--network",
      "host",
      ...trust,
      "-f",
      dockerfile,
      "-t",
      tag,
      repoRoot,
    ]);
    return (performance.now() - started) / 1000;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * When this machine trusts a CA of its own for the npm registry (`NODE_EXTRA_CA_CERTS`, or npm's `cafile`:
 * a proxy that re-signs the registry's certificate, for one), the build's `npm ci` must trust it too: the
 * bundle and an npmrc naming it are mounted into each step for the build only (never a layer), leaving
 * the Dockerfile as any other machine builds it.
 */
async function npmTrust(dir: string): Promise<string[]> {
  const npmCafile = (await sh("npm", ["config", "get", "cafile"]).catch(() => "")).trim();
  const candidates = [process.env["NODE_EXTRA_CA_CERTS"] ?? "", npmCafile].filter((f) => f !== "" && f !== "null" && f !== "undefined");
  let cafile: string | undefined;
  for (const f of candidates) if (cafile === undefined && (await exists(f))) cafile = f;
  if (cafile === undefined) return [];
  const npmrc = join(dir, "npmrc");
  await writeFile(npmrc, "cafile=/run/fluxgate-build-ca.crt\n");
  return ["-v", `${cafile}:/run/fluxgate-build-ca.crt:ro`, "-v", `${npmrc}:/usr/local/etc/npmrc:ro`];
}

interface OciDescriptor {
  digest: string;
  size: number;
}

/** The layers (in order) and the history of an image written to an OCI layout directory. */
async function ociLayers(dir: string): Promise<{ layers: OciDescriptor[]; history: Array<{ created_by?: string; empty_layer?: boolean }> }> {
  const blob = async (digest: string): Promise<unknown> => JSON.parse(await readFile(join(dir, "blobs", ...digest.split(":")), "utf8"));
  const index = JSON.parse(await readFile(join(dir, "index.json"), "utf8")) as { manifests: OciDescriptor[] };
  const manifest = (await blob(index.manifests[0]!.digest)) as { config: OciDescriptor; layers: OciDescriptor[] };
  const config = (await blob(manifest.config.digest)) as { history?: Array<{ created_by?: string; empty_layer?: boolean }> };
  return { layers: manifest.layers, history: (config.history ?? []).filter((h) => h.empty_layer !== true) };
}

/** What `buildah inspect` says of an image: its OCI configuration. */
export interface ImageInspection {
  config: { Entrypoint?: string[]; Cmd?: string[]; User?: string; Env?: string[]; Labels?: Record<string, string> };
  rootfs: { diff_ids?: string[] };
}

/** `buildah inspect` of an image in local storage (its OCI configuration, layers' digests). */
export async function inspectImage(image: string): Promise<ImageInspection> {
  const out = JSON.parse(await sh("buildah", ["inspect", "--type", "image", image])) as { OCIv1?: Partial<ImageInspection> };
  return { config: out.OCIv1?.config ?? {}, rootfs: out.OCIv1?.rootfs ?? {} };
}

/** The uncompressed digests of an image's layers, in order. */
async function diffIds(image: string): Promise<string[]> {
  return (await inspectImage(image)).rootfs.diff_ids ?? [];
}

/**
 * Measures `tag` as a registry holds it: pushed with gzip to an OCI layout directory (what is pulled),
 * and each layer's uncompressed tar (what is unpacked on the node) counted by decompressing it.
 */
export async function measureImage(tag: string): Promise<ImageSize> {
  const dir = await mkdtemp(join(tmpdir(), "fluxgate-image-"));
  try {
    await sh("buildah", ["push", "--quiet", "--compression-format", "gzip", tag, `oci:${dir}`]);
    const { layers: blobs, history } = await ociLayers(dir);
    if (blobs.length !== history.length) throw new ToolBuildError(`${tag}: ${blobs.length} layers but ${history.length} steps in its history`);
    const base = await diffIds(BASE_IMAGE).catch((): string[] => []);
    const own = await diffIds(tag);
    const fromBase = (i: number): boolean => i < base.length && base.slice(0, i + 1).every((d, j) => own[j] === d);
    const layers: ImageLayer[] = [];
    for (const [i, blob] of blobs.entries()) {
      layers.push({
        createdBy: (history[i]?.created_by ?? "").replace(/^\/bin\/sh -c (#\(nop\) )?/, "").trim(),
        fromBase: fromBase(i),
        bytes: await gunzippedSize(join(dir, "blobs", ...blob.digest.split(":"))),
        gzipBytes: blob.size,
      });
    }
    return { layers, bytes: sum(layers.map((l) => l.bytes)), gzipBytes: sum(layers.map((l) => l.gzipBytes)) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The size of a gzip file's content, counted as it streams. */
async function gunzippedSize(file: string): Promise<number> {
  let bytes = 0;
  await pipeline(createReadStream(file), createGunzip(), async function* (chunks: AsyncIterable<Buffer>) {
    for await (const chunk of chunks) bytes += chunk.length;
    yield* [];
  });
  return bytes;
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

/** What would make the image more than the fluxgate command: a shell, npm, a package manager. */
const UNWANTED = ["bin/sh", "usr/bin/sh", "bin/bash", "usr/bin/bash", "usr/local/bin/npm", "usr/local/lib/node_modules/npm", "usr/bin/apt-get", "usr/bin/dpkg"];

/**
 * Runs the image as its configuration says (entrypoint, command, user) with `buildah run`: `version`,
 * `controller --help`, and node asked for its uid; and looks for a shell and npm in its filesystem.
 */
export async function checkImage(tag: string): Promise<ImageChecks> {
  const { config } = await inspectImage(tag);
  const entrypoint = config.Entrypoint ?? [];
  if (entrypoint.length === 0) throw new ToolBuildError(`${tag} has no entrypoint`);
  const container = (await sh("buildah", ["from", "--pull-never", tag])).trim();
  try {
    const root = (await sh("buildah", ["mount", container])).trim();
    const found: string[] = [];
    for (const path of UNWANTED) if (await exists(join(root, path))) found.push(`/${path}`);
    const runIn = (args: string[]): Promise<string> => sh("buildah", ["run", "--isolation", "chroot", container, "--", ...args]);
    const version = (await runIn([...entrypoint, "version"])).trim();
    const help = await runIn([...entrypoint, "controller", "--help"]);
    const user = (await runIn([entrypoint[0]!, "-e", "process.stdout.write(`${process.getuid()}:${process.getgid()}`)"])).trim();
    return { version, controllerHelp: help.includes("Usage: fluxgate controller"), user, found };
  } finally {
    await sh("buildah", ["umount", container]).catch(() => "");
    await sh("buildah", ["rm", container]);
  }
}
