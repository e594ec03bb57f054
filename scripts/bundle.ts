// Bundles the controller's implementation into one minified file in dist/, so `fluxgate controller` loads one module, not ~2,000;
// and `fluxgate schedule preview` into one module, not 147.
//   node scripts/bundle.ts [DIST]   (part of `npm run build`, after tsc)

import { build, type Metafile, type Plugin } from "esbuild";
import { execFile } from "node:child_process";
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));

/**
 * Leaves the CLI's modules named in `kept` (by their path under src/) out of a bundle in dist/cli/, each imported from
 * the file tsc wrote for it, as the rest of the CLI imports it. Always src/errors.ts: `fluxgate`'s entry maps errors to
 * exit codes with `instanceof InputError` and `instanceof Failure`, which a second copy of those classes inside the
 * bundle would fail.
 */
function sharedModules(kept: readonly string[]): Plugin {
  const external = new Map(
    ["errors.ts", ...kept].map((path) => [join(root, "src", path), relative(join(root, "src", "cli"), join(root, "src", path)).replace(/\.ts$/, ".js")]),
  );
  return {
    name: "shared-modules",
    setup(b) {
      b.onResolve({ filter: /\.ts$/ }, (args) => {
        const path = external.get(resolve(args.resolveDir, args.path));
        return path === undefined ? undefined : { path: path.startsWith(".") ? path : `./${path}`, external: true };
      });
    },
  };
}

/**
 * Lets esbuild leave out the parts of @kubernetes/client-node the controller never reaches. Its
 * package index re-exports every module (about 900 generated models and their serializer, the
 * list-watch cache, port-forward and exec over websockets, cp over tar), and without a
 * `sideEffects` declaration in its package.json each module with top-level code is kept whole
 * although nothing imports from it. None of them does anything at load that the modules the
 * controller uses need: they define classes and tables.
 */
const clientNodeWithoutSideEffects: Plugin = {
  name: "client-node-without-side-effects",
  setup(b) {
    const skip = { fluxgateResolved: true };
    b.onResolve({ filter: /^(@kubernetes\/client-node$|\.\.?\/)/ }, async (args) => {
      if ((args.pluginData as typeof skip | undefined)?.fluxgateResolved === true) return undefined;
      if (args.path !== "@kubernetes/client-node" && !args.importer.includes("/node_modules/@kubernetes/client-node/")) return undefined;
      const resolved = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: skip });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return { path: resolved.path, external: resolved.external, namespace: resolved.namespace, sideEffects: false };
    });
  },
};

/**
 * What client-node's KubeConfig imports for ways of connecting that a controller seldom meets, and
 * the names it takes from each: proxies (a kubeconfig's proxy-url), the OIDC and cloud auth
 * providers, and node-fetch for its generated API clients, which the controller does not use
 * (src/kube/transport.ts). They were a third of the bundle, evaluated at each start for nothing;
 * measured side by side, leaving them (and zod's other languages) unevaluated saved little: a few
 * ms of loading and 0.3-0.4 MiB of resident memory (docs/performance-history.md, "Loaded when
 * used"). In the bundle each is loaded the first time one of these is called or constructed.
 */
export const ON_DEMAND: Readonly<Record<string, readonly string[]>> = {
  "node-fetch": ["default", "Headers", "AbortError", "FetchError"],
  "socks-proxy-agent": ["SocksProxyAgent"],
  hpagent: ["HttpProxyAgent", "HttpsProxyAgent"],
  "openid-client": ["discovery", "refreshTokenGrant"],
  "jsonpath-plus": ["JSONPath"],
};

/**
 * Gives client-node, in place of each package of ON_DEMAND, a module whose exports are stand-ins:
 * called, constructed, or on the right of `instanceof`, each loads the package (bundled as a
 * module that is evaluated when first required) and acts as its export of that name. A name
 * client-node imports by name that is not in the list fails the build; one it reads from a
 * namespace import (`oidc.discovery`) is checked by test/integration/controller/bundle.test.ts.
 */
const onDemand: Plugin = {
  name: "on-demand",
  setup(b) {
    b.onResolve({ filter: /^[\w@][\w@/.-]*$/ }, (args) =>
      Object.hasOwn(ON_DEMAND, args.path) && args.namespace === "file" && args.importer.includes("/node_modules/@kubernetes/client-node/")
        ? { path: args.path, namespace: "on-demand", pluginData: { resolveDir: args.resolveDir } }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "on-demand" }, (args) => {
      const names = ON_DEMAND[args.path] ?? [];
      const exports = names.map((name) =>
        name === "default" ? `export default standIn("default");` : `export const ${name} = standIn(${JSON.stringify(name)});`,
      );
      return {
        resolveDir: (args.pluginData as { resolveDir: string }).resolveDir,
        loader: "js",
        contents: `let loaded;
function real(name) {
  loaded ??= require(${JSON.stringify(args.path)});
  return name === "default" ? (loaded.default ?? loaded) : loaded[name];
}
function standIn(name) {
  function f(...args) {
    return new.target === undefined ? real(name)(...args) : Reflect.construct(real(name), args);
  }
  Object.defineProperty(f, Symbol.hasInstance, { value: (x) => x instanceof real(name) });
  return f;
}
${exports.join("\n")}
`,
      };
    });
  },
};

/**
 * Zod's messages in English only: its package index carries every language it speaks (290 KiB of
 * the bundle, held in memory as source), and fluxgate's messages are English.
 */
const zodInEnglish: Plugin = {
  name: "zod-in-english",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes("/node_modules/zod/") ? { path: join(args.resolveDir, "..", "locales", "en-only"), namespace: "zod-in-english" } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-in-english" }, (args) => ({
      contents: `export { default as en } from "./en.js";`,
      resolveDir: resolve(args.path, ".."),
      loader: "js",
    }));
  },
};

/** What bundling made: the file and its size, and the bytes each package put in it. */
export interface ControllerBundle {
  file: string;
  bytes: number;
  metafile: Metafile;
}

/**
 * Writes `<dist>/cli/controller.cjs`, the file `fluxgate controller` runs in a build
 * (src/cli/controller-bundle.ts, which main.ts loads when that command runs: see src/cli/specs.ts),
 * as a single CommonJS script holding the controller and every dependency it uses. Loading
 * @kubernetes/client-node module by module (about 1,900 files) costs a process about 70 MiB of
 * resident memory and over a second; the same code as one minified file costs about a quarter of
 * that (docs/performance-history.md). A script, not an ES module: V8's code cache of a script can be
 * made after it ran, with the functions its start compiled, where Node's compile cache of a module
 * holds its top level alone. As a script it loads Node's own modules with require(), which leaves
 * their getters alone: an ES module's import of `node:http` reads its `WebSocket` getter, which loads
 * Node's copy of undici (13 MiB, docs/performance-history.md, "Third round"). Identifiers are kept,
 * so stack traces stay readable.
 */
export async function bundleController(dist: string): Promise<ControllerBundle> {
  const file = join(dist, "cli", "controller.cjs");
  const result = await build({
    absWorkingDir: root,
    entryPoints: ["src/cli/controller.ts"],
    outfile: file,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node24",
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: true,
    metafile: true,
    logLevel: "warning",
    plugins: [sharedModules([]), onDemand, zodInEnglish, clientNodeWithoutSideEffects],
    // node-fetch's URL parser asks for Node's deprecated punycode module; the package of that name is the same code without the warning.
    alias: { punycode: "punycode/" },
    // Strict, as the ES modules it is made of; import.meta.url (a module's own address, from which
    // src/schedule/holidays.ts requires date-holidays) is the bundle's.
    banner: { js: '"use strict";var __fluxgateImportMetaUrl=require("node:url").pathToFileURL(__filename).href;' },
    define: { "import.meta.url": "__fluxgateImportMetaUrl" },
  });
  // In a script, import.meta is empty: only import.meta.url is given (define, above); any other use would be undefined at run time.
  const emptyImportMeta = result.warnings.filter((w) => w.id === "empty-import-meta");
  if (emptyImportMeta.length > 0)
    throw new Error(
      `the controller's bundle is a script, where import.meta has only url: ${emptyImportMeta.map((w) => `${w.location?.file ?? "?"}:${w.location?.line ?? "?"}`).join(", ")}`,
    );
  await asciiOnly(file);
  return { file, bytes: (await stat(file)).size, metafile: result.metafile };
}

/**
 * Escapes the characters outside ASCII that esbuild leaves in regular expression literals (the
 * duration units µs and μs): V8 keeps a script's source in memory for lazy compilation, and one
 * character outside Latin-1 makes it keep all of it at two bytes a character. `\uXXXX` means the
 * same character in a regular expression, a string, a template or a comment.
 */
async function asciiOnly(file: string): Promise<void> {
  const code = await readFile(file, "utf8");
  // eslint-disable-next-line no-control-regex
  const escaped = code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  if (escaped !== code) await writeFile(file, escaped);
}

/**
 * Writes `<dist>/cli/schedule-preview.js`, the file `fluxgate schedule preview` loads (src/cli/specs.ts), over the one
 * tsc wrote: one ES module holding the command, the time engine, the API's schemas with zod (in English,
 * zodInEnglish) and the YAML library (evaluated only when a manifest is read or YAML written). Module by
 * module, a preview loaded 147 modules from dist/ and node_modules, 95 of them zod's, and that was about
 * a third of a year's preview every 2 minutes (docs/performance-history.md). Built from the same
 * sources; tsc's file, where this step has not run, does the same more slowly.
 */
export async function bundleSchedulePreview(dist: string): Promise<string> {
  const file = join(dist, "cli", "schedule-preview.js");
  await build({
    absWorkingDir: root,
    entryPoints: ["src/cli/schedule-preview.ts"],
    outfile: file,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node24",
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: true,
    logLevel: "warning",
    // The CLI's error classes (sharedModules), and its cluster helpers, which load the Kubernetes client only to read a
    // window from a cluster, stay dist/'s.
    plugins: [sharedModules(["cli/errors.ts", "cli/kube.ts"]), zodInEnglish],
    // The CommonJS packages it holds (the YAML library) require Node's own modules.
    banner: { js: 'import { createRequire as __fluxgateCreateRequire } from "node:module";const require=__fluxgateCreateRequire(import.meta.url);' },
  });
  await asciiOnly(file);
  return file;
}

/** A build of the CLI in a temporary directory: what `npm run build` and the image make. */
export interface BuiltCli {
  /** The built `fluxgate` entry (cli/main.js). */
  main: string;
  bundle: ControllerBundle;
  remove(): Promise<void>;
}

/**
 * Compiles src/ with tsconfig.build.json and bundles the controller and schedule preview, as `npm run build` does, into a
 * new directory under node_modules/.cache (where the compiled files still find the repository's
 * node_modules): for benchmarks and tests that run what is deployed.
 */
export async function buildCli(): Promise<BuiltCli> {
  const cache = join(root, "node_modules", ".cache");
  await mkdir(cache, { recursive: true });
  // Laid out as installed: dist/ beside package.json, which `fluxgate version` (and so `serve`) reads.
  const built = await mkdtemp(join(cache, "fluxgate-dist-"));
  const dist = join(built, "dist");
  const remove = (): Promise<void> => rm(built, { recursive: true, force: true });
  try {
    await copyFile(join(root, "package.json"), join(built, "package.json"));
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
    await promisify(execFile)(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json"), "--outDir", dist], { cwd: root });
    const bundle = await bundleController(dist);
    await bundleSchedulePreview(dist);
    return { main: join(dist, "cli", "main.js"), bundle, remove };
  } catch (err) {
    await remove();
    throw err;
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dist = resolve(process.argv[2] ?? join(root, "dist"));
  Promise.all([bundleController(dist), bundleSchedulePreview(dist)]).then(
    async ([b, preview]) => {
      // npx links the package's bin once per checkout and never sets its mode again: a freshly compiled
      // dist/cli/main.js (a new clone in the same place, or dist removed) must be executable itself.
      await chmod(join(dist, "cli", "main.js"), 0o755);
      process.stdout.write(`bundled the controller: ${b.file} (${(b.bytes / 1_048_576).toFixed(1)} MiB)\n`);
      process.stdout.write(`bundled schedule preview: ${preview}\n`);
    },
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
