// V8 heap settings for the commands whose process is a long-running service.

import { setFlagsFromString } from "node:v8";

/**
 * The server's heap, set for a long-running service rather than for throughput. By default V8
 * grows each thread's young generation up to 16 MiB semi-spaces while new objects live on (reading
 * a fleet's commit does) and keeps it, and lets the old generation grow to up to 4 times what is
 * live before it collects: at 1,000 clusters, 331–343 MiB at ready and 469–477 MiB after the
 * bench's reads and writes, of which about 80 MiB was live. Here the young generation stays at its
 * first size (1 MiB semi-spaces) and the old one grows by half of what is live. Both flags are read
 * each time V8 sizes the heap, so setting them at run time works (unlike --max-semi-space-size,
 * fixed when a thread's heap is made), but only before the young generation grew: before the
 * command's modules are loaded. A size the user gives (on node's command line or in NODE_OPTIONS)
 * is left alone. Returns the flags set.
 */
export function serverHeapFlags(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const given = [...execArgv, ...(nodeOptions ?? "").split(/\s+/)];
  const set: string[] = [];
  if (!given.some((a) => /^--(?:max|min)[-_]semi[-_]space[-_]size\b|^--semi[-_]space[-_]growth[-_]factor\b/.test(a))) set.push("--semi-space-growth-factor=1");
  if (!given.some((a) => /^--heap[-_]growing[-_]percent\b/.test(a))) set.push("--heap-growing-percent=50");
  for (const flag of set) setFlagsFromString(flag);
  return set;
}
