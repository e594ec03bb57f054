// Serves the dashboard and the API docs: HTML shells, the client modules and their npm dependencies, all from this process (no CDN).

import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { Hono, type Env as HonoEnv } from "hono";
import { TARGET_KINDS } from "../../api/kinds.ts";
import { DEFAULT_TIME_ZONE } from "../../api/window.ts";
import { HttpError } from "../http/errors.ts";
import { STYLES } from "./styles.ts";

/** Browser modules from npm, by the specifier client code imports them with. */
const VENDOR: Readonly<Record<string, string>> = {
  preact: "preact.mjs",
  "preact/hooks": "preact-hooks.mjs",
  htm: "htm.mjs",
  "htm/preact": "htm-preact.mjs",
};

const IMPORT_MAP = JSON.stringify({ imports: Object.fromEntries(Object.entries(VENDOR).map(([spec, file]) => [spec, `/assets/vendor/${file}`])) });
const IMPORT_MAP_HASH = createHash("sha256").update(IMPORT_MAP).digest("base64");

/** No script runs but ours: the inline import map is allowed by its hash. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  `script-src 'self' 'sha256-${IMPORT_MAP_HASH}'`,
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

/**
 * A page of the dashboard: its `entry` module, and `early` ones of it, each with a script of its own ahead of the entry's, so they run as soon as they are
 * fetched, not once every module of the entry is.
 */
function page(title: string, entry: string, early: readonly string[] = []): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/assets/app/styles.css">
<script type="importmap">${IMPORT_MAP}</script>
${early.map((name) => `<script type="module" src="/assets/app/${name}.js"></script>\n`).join("")}<script type="module" src="/assets/app/${entry}.js"></script>
</head>
<body>
<div id="app"><noscript>The fluxgate dashboard needs JavaScript. The API is at /api/v1 and described at /openapi.json.</noscript></div>
</body>
</html>
`;
}

const CLIENT_DIR = new URL("./client/", import.meta.url);
const SRC_DIR = new URL("../../", import.meta.url);

/**
 * Pure modules of src/ the browser loads as they are, so the dashboard reads selectors with the very code
 * the API and the CLI use (client/selector.ts re-exports them), and recurrence rules with the engine's own parser. Each imports only modules of this list.
 */
const SHARED = new Set([
  "policy/selector-text",
  "policy/select",
  "api/label-syntax",
  "api/kinds",
  "errors",
  "server/views/timeline-format",
  "schedule/rrule-words",
  "schedule/rrule",
  "schedule/calendar",
  "schedule/errors",
]);

/** Client modules served as the values they re-export from src/api (the one table of Flux kinds, the defaults). */
const GENERATED: Readonly<Record<string, string>> = {
  kinds: `export const TARGET_KINDS = ${JSON.stringify(TARGET_KINDS)};\n`,
  defaults: `export const DEFAULT_TIME_ZONE = ${JSON.stringify(DEFAULT_TIME_ZONE)};\n`,
};
const modules = new Map<string, string>();

/**
 * A client module as JavaScript: compiled by `npm run build` next to this file, or, when running from
 * the TypeScript sources, compiled here once with the TypeScript compiler (a development dependency).
 */
async function clientModule(name: string): Promise<string | null> {
  const cached = modules.get(name);
  if (cached !== undefined) return cached;
  // client/kinds.ts and client/defaults.ts re-export values of src/api, outside client/: the browser gets the values.
  const generated = GENERATED[name];
  if (generated !== undefined) {
    modules.set(name, generated);
    return generated;
  }
  const compiled = await compiledModule(CLIENT_DIR, name);
  if (compiled === null) return null;
  // Imports of src/ (client/ is src/server/dashboard/client/) point at /assets/src/ (src/server/ at /assets/src/server/), where SHARED modules are served.
  const code = compiled
    .replace(/(from\s+|import\s*\(?\s*)"\.\.\/\.\.\/\.\.\//g, '$1"/assets/src/')
    .replace(/(from\s+|import\s*\(?\s*)"\.\.\/\.\.\//g, '$1"/assets/src/server/');
  modules.set(name, code);
  return code;
}

/** A module as JavaScript: compiled by `npm run build`, or from its TypeScript source with the TypeScript compiler (a development dependency). */
async function compiledModule(dir: URL, name: string): Promise<string | null> {
  let code: string;
  try {
    code = await readFile(new URL(`${name}.js`, dir), "utf8");
  } catch {
    let source: string;
    try {
      source = await readFile(new URL(`${name}.ts`, dir), "utf8");
    } catch {
      return null;
    }
    const ts = (await import("typescript")).default;
    code = ts.transpileModule(source, {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, rewriteRelativeImportExtensions: true },
      fileName: `${name}.ts`,
    }).outputText;
  }
  return code.replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, "\n");
}

/** A SHARED module of src/, e.g. `policy/select`. */
async function sharedModule(name: string): Promise<string | null> {
  if (!SHARED.has(name)) return null;
  const key = `src:${name}`;
  const cached = modules.get(key);
  if (cached !== undefined) return cached;
  const code = await compiledModule(SRC_DIR, name);
  if (code !== null) modules.set(key, code);
  return code;
}

async function vendorModule(file: string): Promise<string | null> {
  const specifier = Object.entries(VENDOR).find(([, f]) => f === file)?.[0];
  if (specifier === undefined) return null;
  const cached = modules.get(`vendor:${file}`);
  if (cached !== undefined) return cached;
  // Source maps are not served; the comment would only make browsers ask for them.
  const code = (await readFile(fileURLToPath(import.meta.resolve(specifier)), "utf8")).replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, "\n");
  modules.set(`vendor:${file}`, code);
  return code;
}

const HTML_HEADERS = {
  "Content-Type": "text/html; charset=utf-8",
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};
const JS_HEADERS = { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff" };

/** The dashboard's routes, mounted at the root: `/`, `/docs` and `/assets/...` (app, src and vendor modules). */
export function dashboardRoutes<E extends HonoEnv>(): Hono<E> {
  const app = new Hono<E>();
  // The locale data's worker starts with the page (locale.ts).
  app.get("/", (c) => c.body(page("fluxgate", "main", ["locale"]), 200, HTML_HEADERS));
  app.get("/docs", (c) => c.body(page("fluxgate API", "docs"), 200, HTML_HEADERS));
  app.get("/assets/app/styles.css", (c) => c.body(STYLES, 200, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": "no-cache" }));
  app.get("/assets/app/:file", async (c) => {
    const match = /^([a-z][a-z-]*)\.js$/.exec(c.req.param("file"));
    const code = match === null ? null : await clientModule(match[1] as string);
    if (code === null) throw new HttpError(404, `no such asset: ${c.req.path}`);
    return c.body(code, 200, JS_HEADERS);
  });
  app.get("/assets/src/:dir/:room/:file", async (c) => {
    const match = /^([a-z][a-z-]*)\.js$/.exec(c.req.param("file"));
    const code = match === null ? null : await sharedModule(`${c.req.param("dir")}/${c.req.param("room")}/${match[1] as string}`);
    if (code === null) throw new HttpError(404, `no such asset: ${c.req.path}`);
    return c.body(code, 200, JS_HEADERS);
  });
  app.get("/assets/src/:dir/:file", async (c) => {
    const match = /^([a-z][a-z-]*)\.js$/.exec(c.req.param("file"));
    const code = match === null ? null : await sharedModule(`${c.req.param("dir")}/${match[1] as string}`);
    if (code === null) throw new HttpError(404, `no such asset: ${c.req.path}`);
    return c.body(code, 200, JS_HEADERS);
  });
  app.get("/assets/src/:file", async (c) => {
    const match = /^([a-z][a-z-]*)\.js$/.exec(c.req.param("file"));
    const code = match === null ? null : await sharedModule(match[1] as string);
    if (code === null) throw new HttpError(404, `no such asset: ${c.req.path}`);
    return c.body(code, 200, JS_HEADERS);
  });
  app.get("/assets/vendor/:file", async (c) => {
    const code = await vendorModule(c.req.param("file"));
    if (code === null) throw new HttpError(404, `no such asset: ${c.req.path}`);
    return c.body(code, 200, JS_HEADERS);
  });
  return app;
}
