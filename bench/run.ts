// `npm run bench`: prints one JSON line per figure. `--quick` keeps sizes CI-friendly; `--only PREFIX` runs the benches whose name starts with it.

import { calendarBenches } from "./calendar.ts";
import { checkBench } from "./check.ts";
import { dashboardBenches } from "./dashboard.ts";
import { fleetWindowBenches } from "./fleet-windows.ts";
import { fleetFolderBenches } from "./fleet-folder.ts";
import { cliBenches, cliPreviewBenches } from "./cli.ts";
import { controllerBenches } from "./controller.ts";
import { footprintBenches } from "./footprint.ts";
import { processBenches } from "./process.ts";
import { pushLoadBuilt, storeBurst } from "./push.ts";
import { scheduleBenches } from "./schedule.ts";
import { serveFleetBenches, serveFleetFolderBenches } from "./serve-fleet.ts";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const only = args.includes("--only") ? (args[args.indexOf("--only") + 1] ?? "") : "";
const wanted = (name: string): boolean => name.startsWith(only) || only.startsWith(name);
const print = (line: object): void => void process.stdout.write(`${JSON.stringify(line)}\n`);
// `--sizes 1000,10000`: the fleet sizes of the dashboard, serve.fleet, controller.transition and controller.footprint benches, instead of their own.
const sizesArg = args.includes("--sizes") ? (args[args.indexOf("--sizes") + 1] ?? "") : "";
const sizes = (own: number[]): number[] => (sizesArg === "" ? own : sizesArg.split(",").map(Number));

if (wanted("schedule")) scheduleBenches(quick ? 2_000 : 10_000).forEach(print);
if (wanted("check")) print(await checkBench(quick ? 20 : 200));
if (wanted("calendar")) calendarBenches(quick ? 8 : 40, quick ? 2 : 5).forEach(print);
if (wanted("fleet.windows")) (await fleetWindowBenches(quick ? [20, 100] : [100, 1_000])).forEach(print);
if (wanted("fleet.freeze")) (await fleetFolderBenches(quick ? [100] : [1_000, 10_000], quick ? [100] : [1_000])).forEach(print);
if (wanted("cli")) (await cliBenches(quick ? 5 : 20)).forEach(print);
if (wanted("cli.preview")) (await cliPreviewBenches(quick ? 3 : 5)).forEach(print);
if (wanted("controller.transition")) (await controllerBenches(sizes(quick ? [100, 1_000] : [100, 1_000, 5_000]))).forEach(print);
if (wanted("controller.idle") || wanted("controller.recovery")) (await processBenches(quick ? [1_000] : [1_000, 5_000], quick ? 30 : 60)).forEach(print);
if (wanted("controller.footprint") || wanted("controller.coldstart"))
  (await footprintBenches(sizes(quick ? [1_000] : [1_000, 5_000]), quick ? 20 : 60, quick ? 3 : 5)).forEach(print);
if (wanted("push.store")) print(await storeBurst(quick ? 100 : 1_000));
if (wanted("push.ingest")) print(await pushLoadBuilt(quick ? 100 : 1_000, quick ? 10 : 30));
if (wanted("dashboard")) (await dashboardBenches(sizes(quick ? [100] : [100, 1_000, 10_000]), quick ? 2 : 5)).forEach(print);
if (wanted("serve.fleet") && !only.startsWith("serve.fleet.folder"))
  for (const clusters of sizes(quick ? [20, 100] : [100, 1_000, 10_000])) (await serveFleetBenches([clusters], quick ? 10 : 30)).forEach(print);
if (wanted("serve.fleet.folder"))
  for (const clusters of sizes(quick ? [100] : [1_000, 10_000])) (await serveFleetFolderBenches([clusters], quick ? 10 : 30)).forEach(print);
