// The Dockerfile cannot rot silently: Node.js 24 in every building stage, a final stage of only node and what it runs, a numeric non-root user matching the
// Deployment, an entrypoint the build produces.

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
  const lines = text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
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

test("every stage that builds is on Node.js 24; the final stage starts empty and only copies what they made", () => {
  assert.ok(dockerfile.length >= 2, "a multi-stage build");
  const names = new Set(dockerfile.map((s) => s.name).filter((n) => n !== undefined));
  for (const stage of dockerfile.slice(0, -1)) {
    if (names.has(stage.image)) continue;
    assert.match(stage.image, /^node:24(-[a-z0-9.-]+)?(@sha256:[0-9a-f]{64})?$/, `FROM ${stage.image}`);
  }
  assert.equal(final.image, "scratch", "the final stage has nothing of a base image: no shell, no npm, no Debian userland");
  assert.deepEqual(
    final.instructions.filter((i) => i.op === "RUN"),
    [],
    "no RUN in the final stage: there is nothing to run it with",
  );
  for (const copy of final.instructions.filter((i) => i.op === "COPY")) {
    const from = /--from=(\S+)/.exec(copy.args)?.[1];
    if (from === undefined) {
      assert.match(copy.args, /^package\.json \.\/?$/, `COPY ${copy.args}: from the build context, only package.json`);
      continue;
    }
    const source = dockerfile.find((st) => st.name === from);
    assert.ok(source !== undefined && source !== final, `COPY ${copy.args}: from a stage of this Dockerfile`);
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
  assert.ok(
    builder.instructions.some((i) => i.op === "WORKDIR" && i.args === "/app"),
    "it builds in /app",
  );
  // `fluxgate controller` runs dist/cli/controller.cjs, and `fluxgate schedule preview` dist/cli/schedule-preview.js, the bundles scripts/bundle.ts
  // makes after tsc, as `npm run build` does.
  assert.ok(
    builder.instructions.some(
      (i) =>
        i.op === "RUN" &&
        /tsc -p tsconfig\.build\.json( --declaration false --sourceMap false)? && node scripts\/bundle\.ts( && rm dist\/cli\/controller\.cjs\.map dist\/cli\/schedule-preview\.js\.map)?$/.test(
          i.args,
        ),
    ),
    "the build stage bundles the controller after tsc",
  );
  assert.ok(
    builder.instructions.some((i) => i.op === "COPY" && /^scripts\/bundle\.ts \.\/scripts\/?$/.test(i.args)),
    "and copies the bundling script",
  );
  assert.ok(read(".dockerignore").split("\n").includes("!scripts/bundle.ts"), ".dockerignore lets the bundling script into the context");
  const pkg = JSON.parse(read("package.json")) as { scripts: Record<string, string> };
  assert.equal(pkg.scripts.build, "tsc -p tsconfig.build.json && node scripts/bundle.ts", "npm run build makes what the image runs");
  assert.ok(final.instructions.some((i) => i.op === "WORKDIR" && i.args === "/app"));
  assert.ok(
    final.instructions.some((i) => i.op === "COPY" && i.args === `--from=${builder.name} /app/dist ./dist`),
    "the final stage copies dist",
  );
  assert.ok(
    final.instructions.some((i) => i.op === "COPY" && /^package\.json \.\/?$/.test(i.args)),
    "package.json, which `fluxgate version` reads",
  );
});

test("the image carries V8's compiled code of the controller, made by `fluxgate controller` itself as the image's user, and Node reads it", () => {
  const builder = dockerfile.find((st) => st.instructions.some((i) => i.op === "RUN" && /node scripts\/bundle\.ts/.test(i.args)));
  assert.ok(builder?.name, "the stage that bundles the controller");
  const bundled = builder.instructions.findIndex((i) => i.op === "RUN" && /node scripts\/bundle\.ts/.test(i.args));
  const warm = builder.instructions.findIndex((i) => i.op === "RUN" && /NODE_COMPILE_CACHE=\/app\/compile-cache/.test(i.args));
  assert.ok(warm > bundled, "the cache is made after the bundle, from it");
  const run = builder.instructions[warm]!.args;
  // Node keeps its compile cache per user (and V8 flags): made by another user than the image's, the pod would not find it.
  const user = /USER (\d+):(\d+)/.exec(final.instructions.map((i) => `${i.op} ${i.args}`).join("\n"));
  assert.ok(user, "the final stage's USER");
  assert.match(run, new RegExp(`setpriv --reuid=${user[1]} --regid=${user[2]} `), "made as the image's user");
  assert.match(run, /node dist\/cli\/main\.js controller /, "by the controller command, which sets its V8 flags before it loads its code");
  assert.match(run, /test -n "\$\(find compile-cache -type f\)"/, "the build fails when no cache was written");
  // fluxgate's cache of the bundle (src/cli/controller-bundle.ts), named by the Node.js release and architecture that read it.
  assert.match(
    run,
    /test -f compile-cache\/fluxgate-controller-\$\(node -p 'process\.version \+ "-" \+ process\.arch'\)/,
    "the build fails when the bundle's cache was not written",
  );
  // Node writes its cache files for their writer only; the final stage's copy may be owned by root.
  assert.match(run, /chmod -R a\+rX compile-cache/, "the cache is readable by the image's user whoever owns the copy");
  assert.ok(final.instructions.some((i) => i.op === "COPY" && i.args === `--from=${builder.name} /app/compile-cache ./compile-cache`));
  const env = final.instructions
    .filter((i) => i.op === "ENV")
    .map((i) => i.args)
    .join(" ");
  assert.match(env, /\bNODE_COMPILE_CACHE=\/app\/compile-cache\b/);
});

test("dependencies come from the lockfile, production only in the final image", () => {
  for (const stage of dockerfile) {
    for (const i of stage.instructions.filter((x) => x.op === "RUN" && /\bnpm (ci|install|i)\b/.test(x.args))) {
      assert.match(i.args, /\bnpm ci\b/, `${i.args}: npm ci installs exactly the lockfile`);
    }
  }
  const modules = final.instructions.find((i) => i.op === "COPY" && i.args.endsWith("./node_modules"));
  const from = dockerfile.find((s) => s.name === /--from=(\S+)/.exec(modules?.args ?? "")?.[1]);
  assert.ok(
    from?.instructions.some((i) => i.op === "RUN" && /npm ci .*--omit=dev/.test(i.args)),
    "node_modules of the final image come from npm ci --omit=dev",
  );
});

test("the build context holds no local node_modules or dist, and src holds nothing tsc would not carry into dist", () => {
  const ignore = read(".dockerignore")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  assert.ok(ignore.includes("*") || (ignore.includes("node_modules") && ignore.includes("dist")), ".dockerignore keeps node_modules and dist out");
  const walk = (dir: URL, prefix: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(new URL(`${e.name}/`, dir), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
    );
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
      kept: [
        "pkg/package.json",
        "pkg/index.js",
        "pkg/lib/a.mjs",
        "pkg/lib/b.cjs",
        "pkg/LICENSE",
        "pkg/LICENSE.md",
        "pkg/data.json",
        "@scope/pkg/dist/index.js",
        "pkg/lib/testing.js",
      ],
      gone: [
        "pkg/index.d.ts",
        "pkg/index.d.mts",
        "pkg/index.d.cts",
        "pkg/src/index.ts",
        "pkg/index.js.map",
        "pkg/README.md",
        "pkg/test/index.js",
        "pkg/tests/x.js",
        "pkg/__tests__/y.js",
        "@types/node/index.d.ts",
        "@types/node/package.json",
        "pkg/prebuilds/linux-x64/pkg.bare",
      ],
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
  assert.match(compile?.args ?? "", /&& rm dist\/cli\/controller\.cjs\.map dist\/cli\/schedule-preview\.js\.map$/, "nor the bundles' source maps");
});

test("the runtime stage gives the final stage node, every library it links, and the user's passwd entry", () => {
  const copy = final.instructions.find((i) => i.op === "COPY" && / \/$/.test(i.args) && i.args.startsWith("--from="));
  assert.ok(copy, "the final stage copies a tree to /");
  const [from, tree] = [/--from=(\S+)/.exec(copy.args)![1]!, copy.args.split(/\s+/)[1]!.replace(/\/$/, "")];
  const runtime = dockerfile.find((st) => st.name === from);
  assert.ok(runtime, `a stage named ${from}`);
  const script = runtime.instructions
    .filter((i) => i.op === "RUN")
    .map((i) => i.args)
    .join(" && ");
  assert.match(script, new RegExp(`-o ${tree}/usr/local/bin/node /usr/local/bin/node`), "node goes to /usr/local/bin/node");
  const env = final.instructions
    .filter((i) => i.op === "ENV")
    .map((i) => i.args)
    .join(" ");
  assert.match(env, /\bPATH=(\S*:)?\/usr\/local\/bin(:|\s|$)/, "the entrypoint's `node` is found on PATH");
  assert.match(script, new RegExp(`nonroot:x:65532:65532:[^:]*:/home/nonroot:`), "/etc/passwd names uid 65532");
  assert.match(script, new RegExp(`chroot ${tree} /usr/local/bin/node `), "the tree is run before it is taken");

  // The library list, run on this machine's Node.js: every library ldd resolves, and the loader itself.
  const awk = /ldd \/usr\/local\/bin\/node \| (awk '[^']*')/.exec(script)?.[1];
  assert.ok(awk, "libraries are listed with ldd and awk");
  const ldd = execFileSync("ldd", [process.execPath], { encoding: "utf8" });
  const listed = execFileSync("sh", ["-c", `ldd "$0" | ${awk}`, process.execPath], { encoding: "utf8" })
    .trim()
    .split("\n");
  const expected = ldd.split("\n").flatMap((l) => /=> (\/\S+)/.exec(l)?.[1] ?? /^\s*(\/\S+)/.exec(l)?.[1] ?? []);
  assert.ok(expected.some((p) => /\/libc\.so\.6$/.test(p)) && expected.some((p) => /\/ld-linux[^/]*\.so/.test(p)), `ldd names libc and the loader:\n${ldd}`);
  assert.deepEqual(listed, expected);
});
