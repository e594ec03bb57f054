// Names, reasons and headers written like git options or shell commands reach git, if at all, as plain data: nothing they name is ever executed.

import assert from "node:assert/strict";
import { access } from "node:fs/promises";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { assertUntouched, berlinSpec, fixture, git } from "../../support/server.ts";

/** Ways to ask a shell or git to run `touch FILE`. */
function attacks(file: string): string[] {
  return [
    `--upload-pack=touch ${file}`,
    `--exec=touch ${file}`,
    `-c core.sshCommand=touch ${file}`,
    `$(touch ${file})`,
    `\`touch ${file}\``,
    `; touch ${file}`,
    `| touch ${file}`,
    `&& touch ${file} #`,
    `\ntouch ${file}\n`,
  ];
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

test("option-like and shell-like names are refused; as reasons they are committed word for word; nothing runs", async (t) => {
  const f = await fixture();
  t.after(f.cleanup);
  const marker = join(dirname(f.dir), "pwned");
  for (const attack of attacks(marker)) {
    const encoded = encodeURIComponent(attack);
    const head = await f.repository.head();
    const refused = [
      await f.call("PUT", `/api/v1/clusters/edge-berlin/windows/${encoded}`, { body: { spec: berlinSpec(), reason: "x" } }),
      await f.call("DELETE", `/api/v1/clusters/edge-berlin/windows/${encoded}?reason=x`),
      await f.call("PUT", `/api/v1/clusters/${encoded}/windows/apps-rw`, { body: { spec: berlinSpec(), reason: "x" } }),
      await f.call("POST", "/api/v1/clusters/edge-berlin/overrides", { body: { window: attack, action: "Open", duration: "1h", reason: "x" } }),
      await f.call("POST", "/api/v1/clusters/edge-berlin/overrides", {
        body: { window: "apps-rw", action: "Open", duration: "1h", reason: "x", name: attack },
      }),
      await f.call("GET", `/api/v1/timeline?from=${encoded}`),
    ];
    for (const r of refused) assert.ok(r.status >= 400 && r.status < 500, `${JSON.stringify(attack)}: ${r.status} ${r.text.slice(0, 200)}`);
    await assertUntouched(f, head);

    // As a reason, the text is data: it goes into the commit message through standard input.
    const spec = { ...berlinSpec(), closeGracePeriod: `${(attacks(marker).indexOf(attack) + 1) * 60}s` };
    const put = await f.call("PUT", "/api/v1/clusters/edge-berlin/windows/apps-rw", {
      body: { spec, reason: attack },
      headers: { "if-match": `"${attack.replace(/[^\x20-\x7e]/g, "")}", *` },
    });
    assert.equal(put.status, 200, put.text);
    const message = await git(f.dir, "log", "-1", "--format=%B");
    assert.ok(message.startsWith("edge-berlin: change window apps-rw: "), message);
    assert.ok(message.includes(attack.trim()), `the reason is in the message word for word: ${JSON.stringify(message)}`);
  }
  assert.equal(await exists(marker), false, "a command ran");
});
