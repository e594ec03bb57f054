// No user string ever reaches a shell: every process fluxgate starts (git, kustomize, the local control plane) is started from an argument array, never through
// a shell.

import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));
/** The functions of node:child_process that take a program and an argument array (and no shell unless asked). */
const ARRAY_FORMS = new Set(["execFile", "execFileSync", "spawn", "spawnSync"]);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|tsx|js|mjs)$/.test(name) ? [path] : [];
  });
}

/** Source without comments, so that prose about shells does not count. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

const files = sources(SRC).map((path) => ({ name: relative(SRC, path), text: code(readFileSync(path, "utf8")) }));

test("src/ imports from node:child_process only the functions that take an argument array", () => {
  const importers = files.filter((f) => /["'](node:)?child_process["']/.test(f.text));
  assert.ok(importers.length > 0, "the scan found the modules that start processes");
  for (const f of importers) {
    assert.ok(!/require\(\s*["'](node:)?child_process["']\s*\)/.test(f.text), `${f.name} requires child_process`);
    assert.ok(!/import\s+\*\s+as\s+\w+\s+from\s+["'](node:)?child_process["']/.test(f.text), `${f.name} imports all of child_process`);
    assert.ok(!/import\s+\w+\s+from\s+["'](node:)?child_process["']/.test(f.text), `${f.name} imports child_process's default export`);
    for (const m of f.text.matchAll(/import\s*(type\s*)?\{([^}]*)\}\s*from\s*["'](node:)?child_process["']/g)) {
      if (m[1] !== undefined) continue;
      const names = (m[2] as string)
        .split(",")
        .map((n) => n.trim().split(/\s+as\s+/)[0] as string)
        .filter((n) => n !== "" && !n.startsWith("type "));
      for (const name of names) assert.ok(ARRAY_FORMS.has(name), `${f.name} imports ${name} from child_process: use execFile or spawn with an argument array`);
    }
  }
});

test("no process is started with a shell, and nothing is passed to exec() or execSync()", () => {
  for (const f of files) {
    const startsProcesses = /["'](node:)?child_process["']/.test(f.text);
    // Where processes start, no "shell" option at all; elsewhere (a "shell: string" parameter of completion) never "shell: true".
    assert.ok(!(startsProcesses ? /\bshell\s*:/ : /\bshell\s*:\s*(true|["'`])/).test(f.text), `${f.name} sets a "shell" option`);
    // `const exec = promisify(execFile)` names the argument-array form; only then may a call be spelled exec(...).
    const aliases = new Set([...f.text.matchAll(/const\s+(\w+)\s*=\s*promisify\(\s*execFile\s*\)/g)].map((m) => m[1]));
    for (const m of f.text.matchAll(/(^|[^.\w])(exec|execSync)\s*\(/gm)) {
      assert.ok(aliases.has(m[2]), `${f.name} calls ${m[2]}(): use execFile or spawn with an argument array`);
    }
    assert.ok(!/child_process["']\)\.(exec|execSync)\b/.test(f.text), `${f.name} reaches exec through a dynamic import`);
  }
});

test("the scan would see a violation", () => {
  // The patterns above against what they must catch, so a change to them cannot make the test pass vacuously.
  assert.match(code('spawn("sh", ["-c", x], { shell: true })'), /\bshell\s*:/);
  assert.match(code("exec(`git ${name}`)"), /(^|[^.\w])(exec|execSync)\s*\(/m);
  assert.doesNotMatch(code("/^a$/.exec(text)"), /(^|[^.\w])(exec|execSync)\s*\(/m);
  assert.doesNotMatch(code("// runs git in a shell: never\nconst a = 1;"), /\bshell\s*:/);
});
