// The browser tests' Chromium: Debian's package, found and launched by src/devenv/chromium.ts (the benchmarks use it too).

export { chromiumPath, launch } from "../../src/devenv/chromium.ts";
