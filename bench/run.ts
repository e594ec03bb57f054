// `npm run bench`: prints one JSON line per figure. `--quick` keeps sizes CI-friendly.

import { checkBench } from "./check.ts";
import { controllerBenches } from "./controller.ts";
import { scheduleBenches } from "./schedule.ts";

const quick = process.argv.includes("--quick");
for (const line of scheduleBenches(quick ? 2_000 : 10_000)) {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
process.stdout.write(`${JSON.stringify(await checkBench(quick ? 20 : 200))}\n`);
for (const line of await controllerBenches(quick ? [100, 1_000] : [100, 1_000, 5_000])) {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
