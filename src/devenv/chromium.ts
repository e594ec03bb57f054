// Debian's Chromium for the dashboard's browser tests and benchmarks, driven by playwright-core; a missing browser fails with how to install it.

import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

/** The Chromium binary: $FLUXGATE_CHROMIUM, else `chromium` on PATH (Debian's package). */
export function chromiumPath(): string {
  const configured = process.env.FLUXGATE_CHROMIUM;
  if (configured !== undefined && configured !== "") {
    if (!existsSync(configured)) throw new Error(`FLUXGATE_CHROMIUM=${configured} does not exist`);
    return configured;
  }
  for (const name of ["chromium", "chromium-browser"]) {
    try {
      return execFileSync("which", [name], { encoding: "utf8" }).trim();
    } catch {
      // Try the next name.
    }
  }
  throw new Error("the dashboard tests need Chromium: install Debian's package (apt-get install chromium), or set FLUXGATE_CHROMIUM to a Chromium binary");
}

/** A headless Chromium; root (as in CI containers) needs --no-sandbox. */
export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: process.getuid?.() === 0 ? ["--no-sandbox"] : [] });
}
