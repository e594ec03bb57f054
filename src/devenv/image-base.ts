// A local stand-in for the image's base, node:24-bookworm-slim, assembled from Debian's mirror and the npm registry, for building the Dockerfile where no
// container registry is reachable.

import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { PrerequisiteError, ToolBuildError } from "./errors.ts";
import { cacheRoot, exists, repoRoot } from "./paths.ts";

const run = promisify(execFile);

/** The name the Dockerfile's FROM lines ask for; the stand-in is tagged with it in local storage. */
export const BASE_IMAGE = "docker.io/library/node:24-bookworm-slim";

/** The label that marks the stand-in and names what it is made of (baseKey). */
export const STAND_IN_LABEL = "io.fluxgate.stand-in";

/** What the stand-in is made of: one version of each part, which together key its cache. */
export interface BaseVersions {
  debian: "bookworm";
  node: string;
  npm: string;
  corepack: string;
  yarn: string;
  /** Node.js's name for the CPU (x64, arm64) and Debian's (amd64, arm64). */
  nodeArch: string;
  debianArch: string;
}

/** Runs a program, its output collected; a failure says which command failed and what it printed. */
export async function sh(command: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  try {
    const { stdout } = await run(command, [...args], { cwd: options.cwd, env: options.env, maxBuffer: 256 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { code?: unknown; stderr?: string; stdout?: string };
    if (e.code === "ENOENT") throw new PrerequisiteError(`\`${command}\` was not found on PATH`, { cause: err });
    const said = `${e.stdout ?? ""}\n${e.stderr ?? ""}`.trim().split("\n").slice(-20).join("\n");
    throw new ToolBuildError(`\`${command} ${args.join(" ")}\` failed:\n${said}`, { cause: err });
  }
}

/** Whether `command` runs at all (`command --version`). */
async function found(command: string): Promise<boolean> {
  try {
    await run(command, ["--version"]);
    return true;
  } catch {
    return false;
  }
}

/** Throws, saying how to get them, when the programs that build and inspect images are missing. */
export async function requireImageTools(needDebootstrap: boolean): Promise<void> {
  const missing: string[] = [];
  if (!(await found("buildah"))) missing.push("buildah");
  if (needDebootstrap && !(await found("debootstrap"))) missing.push("debootstrap");
  if (missing.length > 0) {
    throw new PrerequisiteError(
      `${missing.join(" and ")} not found on PATH: building the image here needs buildah (it builds the Dockerfile without a Docker daemon)` +
        `${needDebootstrap ? " and debootstrap (it assembles the stand-in base from Debian's mirror)" : ""}. ` +
        `Install ${missing.length > 1 ? "them" : "it"} as root: \`apt-get install ${missing.join(" ")}\`.`,
    );
  }
}

/**
 * The versions the stand-in is built from: the Node.js of the lockfile's `node` package (what the tests
 * and benchmarks run), and the npm and corepack that this Node.js release bundles, read from the release's
 * own changelog; yarn 1.22.22, as node:24-bookworm-slim installs it.
 */
export async function baseVersions(nodePackage: string): Promise<BaseVersions> {
  const node = await lockedNodeVersion();
  const changelog = await tarEntry(nodePackage, "package/CHANGELOG.md");
  const section = changelog.slice(changelog.indexOf(`<a id="${node}"></a>`));
  const bundled = (dep: string): string => {
    const m = new RegExp(`\\*\\*deps\\*\\*: (?:upgrade|update) ${dep} to (\\d+\\.\\d+\\.\\d+)`).exec(section);
    if (m === null) throw new ToolBuildError(`cannot tell which ${dep} Node.js ${node} bundles: its CHANGELOG.md names no update of ${dep}`);
    return m[1]!;
  };
  const nodeArch = process.arch;
  const debianArch = ({ x64: "amd64", arm64: "arm64" } as Record<string, string>)[nodeArch];
  if (debianArch === undefined) throw new ToolBuildError(`no stand-in base for the CPU ${nodeArch}: x64 and arm64 are known`);
  return { debian: "bookworm", node, npm: bundled("npm"), corepack: bundled("corepack"), yarn: "1.22.22", nodeArch, debianArch };
}

async function tarEntry(tgz: string, entry: string): Promise<string> {
  return sh("tar", ["-xzOf", tgz, entry]);
}

/** Fetches `name@version` from the npm registry with npm itself into `dir`; returns the tarball's path. */
async function npmPack(name: string, version: string, dir: string): Promise<string> {
  const out = await sh("npm", ["pack", `${name}@${version}`, "--pack-destination", dir, "--silent"], { cwd: dir });
  const file = out.trim().split("\n").at(-1);
  if (file === undefined || file === "") throw new ToolBuildError(`npm pack ${name}@${version} named no tarball`);
  return join(dir, file);
}

/** The Debian mirror apt uses on this machine (its first `deb` source), else deb.debian.org. */
async function debianMirror(): Promise<string> {
  const fromEnv = process.env["FLUXGATE_DEBIAN_MIRROR"];
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  const sources: string[] = [];
  for (const dir of ["/etc/apt/sources.list.d"]) {
    if (await exists(dir)) for (const f of (await readdir(dir)).sort()) sources.push(await readFile(join(dir, f), "utf8"));
  }
  if (await exists("/etc/apt/sources.list")) sources.push(await readFile("/etc/apt/sources.list", "utf8"));
  for (const text of sources) {
    const m = /^URIs:\s*(\S+\/debian)\/?\s*$/m.exec(text) ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\/?\s+\S+/m.exec(text);
    if (m !== null) return m[1]!;
  }
  return "http://deb.debian.org/debian";
}

/**
 * What debian:bookworm-slim leaves out of a minimal Debian (docs but copyrights, man pages, info,
 * translations), as dpkg path excludes so later installs leave them out too.
 */
const SLIM_DPKG = `path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
`;

/** `debootstrap --variant=minbase`, slimmed as debian:bookworm-slim is, packed as one layer's tarball. */
async function debianSlim(v: BaseVersions, work: string): Promise<string> {
  const root = join(work, "rootfs");
  await sh("debootstrap", ["--variant=minbase", `--arch=${v.debianArch}`, v.debian, root, await debianMirror()]);
  await writeFile(join(root, "etc/dpkg/dpkg.cfg.d/docker"), SLIM_DPKG);
  const script = [
    "set -e",
    "find usr/share/doc -mindepth 1 -not -name copyright -not -type d -delete",
    "find usr/share/doc -mindepth 1 -type d -empty -delete",
    "rm -rf usr/share/man/* usr/share/groff/* usr/share/info/* usr/share/lintian/* usr/share/linda/* usr/share/locale/*",
    "rm -rf var/cache/apt/archives/*.deb var/cache/apt/*.bin var/lib/apt/lists/* var/log/* tmp/* var/tmp/* debootstrap",
  ].join("\n");
  await sh("sh", ["-c", script], { cwd: root });
  const tar = join(work, "debian-slim.tar");
  await sh("tar", ["--numeric-owner", "--xattrs", "-C", root, "-cf", tar, "."]);
  await rm(root, { recursive: true, force: true });
  return tar;
}

/**
 * /usr/local as Node.js's release tarball fills it, from the npm registry: the node binary, headers and
 * docs (the `node-<os>-<cpu>` package, which holds exactly those files of the release), npm and corepack
 * (their own packages, at the versions the release bundles) and their command links. OpenSSL headers of
 * other CPUs are dropped, as node:24-bookworm-slim drops them.
 */
async function nodeTree(v: BaseVersions, nodeTgz: string, work: string): Promise<string> {
  const local = join(work, "usr-local");
  await mkdir(join(local, "lib", "node_modules"), { recursive: true });
  await sh("tar", ["-xzf", nodeTgz, "-C", local, "--strip-components=1", "--no-same-owner"]);
  await rm(join(local, "package.json"));
  const opensslArch = v.nodeArch === "x64" ? "linux-x86_64" : "linux-aarch64";
  const archs = join(local, "include", "node", "openssl", "archs");
  if (await exists(archs)) for (const a of await readdir(archs)) if (a !== opensslArch) await rm(join(archs, a), { recursive: true });
  for (const [name, version] of [
    ["npm", v.npm],
    ["corepack", v.corepack],
  ] as const) {
    const dir = join(local, "lib", "node_modules", name);
    await mkdir(dir);
    await sh("tar", ["-xzf", await npmPack(name, version, work), "-C", dir, "--strip-components=1", "--no-same-owner"]);
  }
  const links: Array<[string, string]> = [
    ["npm", "../lib/node_modules/npm/bin/npm-cli.js"],
    ["npx", "../lib/node_modules/npm/bin/npx-cli.js"],
    ["corepack", "../lib/node_modules/corepack/dist/corepack.js"],
  ];
  for (const [name, target] of links) await sh("ln", ["-s", target, join(local, "bin", name)]);
  return local;
}

/** The image's own steps, in its order, with what it downloads from nodejs.org and yarnpkg.com taken from the npm registry instead. */
function containerfile(v: BaseVersions): string {
  return `FROM scratch
ADD debian-slim.tar /
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CMD ["bash"]
RUN groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
ENV NODE_VERSION=${v.node}
COPY usr-local/ /usr/local/
RUN ln -s /usr/local/bin/node /usr/local/bin/nodejs && node --version && npm --version && rm -rf /tmp/*
ENV YARN_VERSION=${v.yarn}
COPY yarn/ /opt/yarn-v${v.yarn}/
RUN ln -s /opt/yarn-v${v.yarn}/bin/yarn /usr/local/bin/yarn && ln -s /opt/yarn-v${v.yarn}/bin/yarnpkg /usr/local/bin/yarnpkg && yarn --version && rm -rf /tmp/*
COPY docker-entrypoint.sh /usr/local/bin/
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["node"]
`;
}

/** As node's images do: arguments that are flags or no command on PATH are run by node. */
const ENTRYPOINT = `#!/bin/sh
set -e
if [ "\${1#-}" != "$1" ] || [ -z "$(command -v "$1" 2>/dev/null)" ] && [ "$1" != "" ]; then
  set -- node "$@"
fi
exec "$@"
`;

/** The key of a stand-in in the cache: every version it is made of. */
export function baseKey(v: BaseVersions): string {
  return `node-base-debian-${v.debian}-${v.debianArch}_node-${v.node}_npm-${v.npm}_corepack-${v.corepack}_yarn-${v.yarn}`;
}

/** Whether an image of that name is in buildah's local storage. */
export async function haveImage(name: string): Promise<boolean> {
  try {
    await run("buildah", ["inspect", "--type", "image", name]);
    return true;
  } catch {
    return false;
  }
}

export type ImageBase = StandInBase | { kind: "real" };

export interface StandInBase {
  kind: "stand-in";
  versions: BaseVersions;
  /** The OCI archive it is cached as, under the fluxgate cache. */
  archive: string;
  /** Whether it was assembled by this call (else taken from the cache or from local storage). */
  assembled: boolean;
}

/**
 * Makes `node:24-bookworm-slim` available to buildah as a local stand-in: taken from local storage when it
 * is the same stand-in, else loaded from its cached OCI archive, else assembled (debootstrap of bookworm
 * from Debian's mirror, the Node.js release and yarn from the npm registry, the image's own steps), cached,
 * and loaded. Nothing is pulled. An image of that name that is no stand-in (the real one, pulled where a
 * registry is reachable) is used as it is and never replaced.
 */
export async function ensureStandInBase(log: (line: string) => void): Promise<ImageBase> {
  const dir = join(cacheRoot(), "image-base");
  await mkdir(dir, { recursive: true });
  // Which npm and corepack a Node.js release bundles is read from the release: remembered per release.
  const known = join(dir, `node-${await lockedNodeVersion()}-${process.arch}.json`);
  let versions = (await exists(known)) ? (JSON.parse(await readFile(known, "utf8")) as BaseVersions) : undefined;
  const present = await haveImage(BASE_IMAGE);
  const label = present ? await standInLabel() : "";
  // An image of that name that is no stand-in is the real one (pulled, or loaded by hand): it is used, never replaced.
  if (present && label === "") return { kind: "real" };
  if (versions !== undefined && label === baseKey(versions)) return { kind: "stand-in", versions, archive: join(dir, `${label}.oci.tar`), assembled: false };
  let assembled = false;
  if (versions === undefined || !(await exists(join(dir, `${baseKey(versions)}.oci.tar`)))) {
    await requireImageTools(true);
    versions = await assemble(dir, log);
    await writeFile(known, `${JSON.stringify(versions)}\n`);
    assembled = true;
  }
  const archive = join(dir, `${baseKey(versions)}.oci.tar`);
  const id = (await sh("buildah", ["pull", "--quiet", `oci-archive:${archive}`])).trim();
  await sh("buildah", ["tag", id, BASE_IMAGE]);
  return { kind: "stand-in", versions, archive, assembled };
}

/** The stand-in label of the image named node:24-bookworm-slim in local storage ("" when another image has that name). */
async function standInLabel(): Promise<string> {
  const out = JSON.parse(await sh("buildah", ["inspect", "--type", "image", BASE_IMAGE])) as { OCIv1?: { config?: { Labels?: Record<string, string> } } };
  return out.OCIv1?.config?.Labels?.[STAND_IN_LABEL] ?? "";
}

/** Assembles the stand-in in a work directory under `dir` and caches it there as `<baseKey>.oci.tar`. */
async function assemble(dir: string, log: (line: string) => void): Promise<BaseVersions> {
  const work = await mkdtemp(join(dir, "work-"));
  try {
    const nodeTgz = await npmPack(`node-linux-${process.arch}`, await lockedNodeVersion(), work);
    const versions = await baseVersions(nodeTgz);
    const key = baseKey(versions);
    log(`assembling a stand-in for ${BASE_IMAGE}: ${key}`);
    const context = join(work, "context");
    await mkdir(context);
    await sh("mv", [await debianSlim(versions, work), join(context, "debian-slim.tar")]);
    await sh("mv", [await nodeTree(versions, nodeTgz, work), join(context, "usr-local")]);
    await mkdir(join(context, "yarn"));
    await sh("tar", ["-xzf", await npmPack("yarn", versions.yarn, work), "-C", join(context, "yarn"), "--strip-components=1", "--no-same-owner"]);
    await writeFile(join(context, "docker-entrypoint.sh"), ENTRYPOINT, { mode: 0o755 });
    await writeFile(join(context, "Containerfile"), containerfile(versions));
    const tag = `localhost/fluxgate-stand-in:${key}`;
    await sh("buildah", [
      "bud",
      "--force-rm",
      "--isolation",
      "chroot",
      "--layers",
      "--network",
      "host",
      "--label",
      `${STAND_IN_LABEL}=${key}`,
      "-t",
      tag,
      "-f",
      join(context, "Containerfile"),
      context,
    ]);
    const archive = join(dir, `${key}.oci.tar`);
    await sh("buildah", ["push", "--quiet", "--disable-compression", tag, `oci-archive:${archive}.part`]);
    await sh("mv", [`${archive}.part`, archive]);
    await sh("buildah", ["rmi", tag]);
    return versions;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The version of the lockfile's `node` package: the Node.js the tests and benchmarks run. */
async function lockedNodeVersion(): Promise<string> {
  const lock = JSON.parse(await readFile(join(repoRoot, "package-lock.json"), "utf8")) as { packages: Record<string, { version?: string }> };
  const node = lock.packages["node_modules/node"]?.version;
  if (node === undefined) throw new ToolBuildError("package-lock.json has no `node` package: the stand-in takes its Node.js version from it");
  return node;
}
