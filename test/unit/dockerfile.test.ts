// The Dockerfile cannot rot silently: Node.js 24 in every stage, a numeric non-root user matching the Deployment, an entrypoint the build produces.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";

const ROOT = new URL("../../", import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, ROOT), "utf8");

interface Instruction {
  op: string;
  args: string;
}

interface Stage {
  image: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** Splits the Dockerfile into stages of instructions (comments dropped, continuation lines joined). */
function stages(text: string): Stage[] {
  const lines = text.replace(/\\\n/g, " ").split("\n").map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#"));
  const out: Stage[] = [];
  for (const line of lines) {
    const [op = "", ...rest] = line.split(/\s+/);
    const args = rest.join(" ");
    if (op.toUpperCase() === "FROM") {
      const m = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      assert.ok(m, `cannot read FROM ${args}`);
      out.push({ image: m[1]!, name: m[2], instructions: [] });
    } else {
      assert.ok(out.length > 0, `${op} before the first FROM`);
      out.at(-1)!.instructions.push({ op: op.toUpperCase(), args });
    }
  }
  return out;
}

const dockerfile = stages(read("Dockerfile"));
const final = dockerfile.at(-1)!;
const deployment = parse(read("config/manager/deployment.yaml")) as { spec: { template: { spec: Record<string, any> } } };

test("every stage is built on Node.js 24", () => {
  assert.ok(dockerfile.length >= 2, "a multi-stage build");
  const names = new Set(dockerfile.map((s) => s.name).filter((n) => n !== undefined));
  for (const stage of dockerfile) {
    if (names.has(stage.image)) continue;
    assert.match(stage.image, /^node:24(-[a-z0-9.-]+)?(@sha256:[0-9a-f]{64})?$/, `FROM ${stage.image}`);
  }
});

test("the image runs as the numeric non-root user the Deployment expects", () => {
  const users = final.instructions.filter((i) => i.op === "USER");
  assert.equal(users.length, 1, "one USER in the final stage");
  const m = /^(\d+)(?::(\d+))?$/.exec(users[0]!.args);
  assert.ok(m, `USER ${users[0]!.args} must be numeric (uid[:gid]) so runAsNonRoot can verify it`);
  assert.notEqual(Number(m[1]), 0);
  const pod = deployment.spec.template.spec;
  assert.equal(Number(m[1]), pod.securityContext.runAsUser);
  if (m[2] !== undefined) assert.equal(Number(m[2]), pod.securityContext.runAsGroup);
  const lastUser = final.instructions.findLastIndex((i) => i.op === "USER");
  assert.ok(
    final.instructions.slice(lastUser).every((i) => i.op !== "RUN"),
    "no RUN after USER: the final stage only copies what earlier stages built",
  );
});

test("the entrypoint is the compiled CLI, which the build stage produces and the final stage copies", () => {
  const entrypoint = final.instructions.find((i) => i.op === "ENTRYPOINT");
  assert.ok(entrypoint, "an ENTRYPOINT");
  assert.deepEqual(JSON.parse(entrypoint.args), ["node", "/app/dist/cli/main.js"], "exec form, so signals reach node");
  assert.deepEqual(JSON.parse(final.instructions.find((i) => i.op === "CMD")?.args ?? "null"), ["controller"]);

  // /app/dist/cli/main.js is what tsc -p tsconfig.build.json makes of src/cli/main.ts.
  const build = JSON.parse(read("tsconfig.build.json")) as { compilerOptions: { rootDir: string; outDir: string } };
  assert.deepEqual([build.compilerOptions.rootDir, build.compilerOptions.outDir], ["src", "dist"]);
  assert.ok(existsSync(new URL("src/cli/main.ts", ROOT)), "src/cli/main.ts exists");
  const builder = dockerfile.find((s) => s.instructions.some((i) => i.op === "RUN" && /tsc -p tsconfig\.build\.json/.test(i.args)));
  assert.ok(builder?.name, "a named stage compiles with tsconfig.build.json");
  assert.ok(builder.instructions.some((i) => i.op === "WORKDIR" && i.args === "/app"), "it builds in /app");
  // `fluxgate controller` imports dist/cli/controller.js, which scripts/bundle.ts replaces by the bundle, as `npm run build` does.
  assert.ok(
    builder.instructions.some((i) => i.op === "RUN" && /tsc -p tsconfig\.build\.json( --declaration false --sourceMap false)? && node scripts\/bundle\.ts$/.test(i.args)),
    "the build stage bundles the controller after tsc",
  );
  assert.ok(builder.instructions.some((i) => i.op === "COPY" && /^scripts\/bundle\.ts \.\/scripts\/?$/.test(i.args)), "and copies the bundling script");
  assert.ok(read(".dockerignore").split("\n").includes("!scripts/bundle.ts"), ".dockerignore lets the bundling script into the context");
  const pkg = JSON.parse(read("package.json")) as { scripts: Record<string, string> };
  assert.equal(pkg.scripts.build, "tsc -p tsconfig.build.json && node scripts/bundle.ts", "npm run build makes what the image runs");
  assert.ok(final.instructions.some((i) => i.op === "WORKDIR" && i.args === "/app"));
  assert.ok(final.instructions.some((i) => i.op === "COPY" && i.args === `--from=${builder.name} /app/dist ./dist`), "the final stage copies dist");
  assert.ok(final.instructions.some((i) => i.op === "COPY" && /^package\.json \.\/?$/.test(i.args)), "package.json, which `fluxgate version` reads");
});

test("dependencies come from the lockfile, production only in the final image", () => {
  for (const stage of dockerfile) {
    for (const i of stage.instructions.filter((x) => x.op === "RUN" && /\bnpm (ci|install|i)\b/.test(x.args))) {
      assert.match(i.args, /\bnpm ci\b/, `${i.args}: npm ci installs exactly the lockfile`);
    }
  }
  const modules = final.instructions.find((i) => i.op === "COPY" && i.args.endsWith("./node_modules"));
  const from = dockerfile.find((s) => s.name === /--from=(\S+)/.exec(modules?.args ?? "")?.[1]);
  assert.ok(from?.instructions.some((i) => i.op === "RUN" && /npm ci .*--omit=dev/.test(i.args)), "node_modules of the final image come from npm ci --omit=dev");
});

test("the build context holds no local node_modules or dist, and src holds nothing tsc would not carry into dist", () => {
  const ignore = read(".dockerignore").split("\n").map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#"));
  assert.ok(ignore.includes("*") || (ignore.includes("node_modules") && ignore.includes("dist")), ".dockerignore keeps node_modules and dist out");
  const walk = (dir: URL, prefix: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(new URL(`${e.name}/`, dir), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]));
  const assets = walk(new URL("src/", ROOT), "src/").filter((f) => !f.endsWith(".ts"));
  assert.deepEqual(assets, [], "tsc copies only compiled TypeScript into dist: add a COPY for these files to the Dockerfile and change this test");
});

test("only what Node.js loads reaches the image: the production install's prune, run on a tree of every kind of file", () => {
  const install = dockerfile.flatMap((st) => st.instructions).find((i) => i.op === "RUN" && /npm ci .*--omit=dev/.test(i.args));
  assert.ok(install, "a production install");
  const prune = install.args.split("&&").slice(1).join("&&").trim();
  assert.notEqual(prune, "", "the production install is followed by a prune");
  const dir = mkdtempSync(join(tmpdir(), "fluxgate-prune-"));
  try {
    const files = {
      kept: ["pkg/package.json", "pkg/index.js", "pkg/lib/a.mjs", "pkg/lib/b.cjs", "pkg/LICENSE", "pkg/LICENSE.md", "pkg/data.json", "@scope/pkg/dist/index.js", "pkg/lib/testing.js"],
      gone: ["pkg/index.d.ts", "pkg/index.d.mts", "pkg/index.d.cts", "pkg/src/index.ts", "pkg/index.js.map", "pkg/README.md", "pkg/test/index.js", "pkg/tests/x.js", "pkg/__tests__/y.js", "@types/node/index.d.ts", "@types/node/package.json", "pkg/prebuilds/linux-x64/pkg.bare"],
    };
    for (const f of [...files.kept, ...files.gone]) {
      mkdirSync(dirname(join(dir, "node_modules", f)), { recursive: true });
      writeFileSync(join(dir, "node_modules", f), "x");
    }
    execFileSync("sh", ["-c", prune], { cwd: dir });
    const left = (readdirSync(join(dir, "node_modules"), { recursive: true, withFileTypes: true }) as { isFile(): boolean; parentPath: string; name: string }[])
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name).slice(join(dir, "node_modules").length + 1))
      .sort();
    assert.deepEqual(left, [...files.kept].sort());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const compile = dockerfile.flatMap((st) => st.instructions).find((i) => i.op === "RUN" && /tsc -p tsconfig\.build\.json/.test(i.args));
  assert.match(compile?.args ?? "", /--declaration false/, "no declarations in the image's dist");
  assert.match(compile?.args ?? "", /--sourceMap false/, "no source maps in the image's dist");
  assert.ok(final.instructions.some((i) => i.op === "RUN" && i.args.includes("rm -rf /usr/local/lib/node_modules /usr/local/bin/npm")), "npm is taken out of the final image");
});
