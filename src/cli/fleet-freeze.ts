// `fluxgate fleet freeze [list | end NAME]`: stop changes on every cluster a selector matches, in one change to the repository; list and end such freezes as
// one.

import { summary, unifiedDiff, writeChanges } from "../gitops/changes.ts";
import { inContext } from "../errors.ts";
import { RepositoryInputError } from "../gitops/errors.ts";
import { FleetWindows } from "../gitops/fleet/effective.ts";
import { fleetOverridesOf } from "../gitops/fleet/overrides.ts";
import { selectClusters } from "../gitops/fleet/select.ts";
import { fleetOverridesOn, planFleetOverrideEndOn, planFleetOverrideOn, type RepositoryView } from "../gitops/fleet/plan.ts";
import { readRepositoryFile, RepoFiles, requireDirectory } from "../gitops/files.ts";
import { FLEET_FOLDER_FILE, FLEET_FREEZES_DIR, fleetFreezeFile, listFolderFreezes, planFolderFreeze, planFolderFreezeEnd } from "../gitops/fleet/folder.ts";
import type { FleetOverrideListing } from "../gitops/fleet/overrides.ts";
import { resolve } from "node:path";
import { parseDuration } from "../schedule/index.ts";
import { parseWith, WindowOverrideSpecSchema } from "../api/index.ts";
import { OVERRIDE_LIMIT, overrideEndProblem } from "../policy/index.ts";
import { table } from "./format/table.ts";
import { list, outputOf, str, type CommandResult, type Values } from "./command.ts";

/** Runs `fluxgate fleet freeze` (its spec: specs.ts). */
export function runFleetFreeze(v: Values): Promise<CommandResult> {
  return fleetFreeze({
    repo: str(v.repo) ?? ".",
    selector: str(v.selector),
    for: str(v.for),
    until: str(v.until),
    reason: str(v.reason),
    name: str(v.name),
    windows: list(v.window),
    dryRun: v["dry-run"] === true,
    kustomize: str(v.kustomize),
    env: process.env,
    now: Date.now(),
  });
}

/** Runs `fluxgate fleet freeze list` (its spec: specs.ts). */
export function runFleetFreezeList(v: Values): Promise<CommandResult> {
  return fleetFreezeList({
    repo: str(v.repo) ?? ".",
    selector: str(v.selector),
    output: outputOf(v.output, ["table", "json"] as const, "table"),
    now: Date.now(),
  });
}

/** Runs `fluxgate fleet freeze end NAME` (its spec: specs.ts). */
export function runFleetFreezeEnd(v: Values, [name]: string[]): Promise<CommandResult> {
  return fleetFreezeEnd({ repo: str(v.repo) ?? ".", name: name as string, dryRun: v["dry-run"] === true, now: Date.now() });
}

export interface FleetFreezeOptions {
  repo: string;
  selector: string | undefined;
  /** `--until`: RFC 3339 with a zone; or `for`. */
  until?: string | undefined;
  /** `--for`: a Go duration. */
  for?: string | undefined;
  reason: string | undefined;
  name?: string | undefined;
  /** `--window`: only these windows of each cluster. */
  windows: readonly string[];
  dryRun: boolean;
  kustomize?: string | undefined;
  env: NodeJS.ProcessEnv;
  now: number;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** The end asked for, in epoch ms. */
function untilOf(options: FleetFreezeOptions): number {
  if ((options.until === undefined) === (options.for === undefined))
    throw new RepositoryInputError(
      "give exactly one of --for DURATION (e.g. --for 48h) and --until TIME (e.g. --until 2026-12-24T18:00:00Z): a freeze always ends",
    );
  if (options.for !== undefined) {
    const text = options.for;
    const length = inContext({ field: `--for ${text}`, as: RepositoryInputError }, () => parseDuration(text));
    if (overrideEndProblem(Math.floor(options.now / 1000) * 1000 + length, options.now)?.problem === "too long")
      throw new RepositoryInputError(`--for ${text}: ${OVERRIDE_LIMIT}: for longer, change the windows' freezes in Git`);
    if (length % 1000 !== 0) throw new RepositoryInputError(`--for ${text}: give whole seconds: an override's end is kept to the second`);
    // From the time of the request as the overrides record it (fluxgate.io/requested-at, to the second): the freeze lasts exactly --for.
    return Math.floor(options.now / 1000) * 1000 + length;
  }
  const text = (options.until as string).trim();
  const at = RFC3339.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(at)) throw new RepositoryInputError(`--until ${text}: give an RFC 3339 date-time with a zone, e.g. 2026-12-24T18:00:00Z`);
  return at;
}

async function withFleet<T>(
  options: { repo: string; kustomize?: string | undefined; env: NodeJS.ProcessEnv },
  work: (fleet: FleetWindows) => Promise<T>,
): Promise<T> {
  const fleet = await FleetWindows.open(options.repo, { kustomize: options.kustomize, env: options.env });
  try {
    return await work(fleet);
  } finally {
    await fleet.close();
  }
}

/** The fleet freezes of the fleet folder (fleet/freezes/*.yaml). */
async function folderFreezesOn(fleet: RepositoryView, now: number): Promise<FleetOverrideListing[]> {
  const files = [];
  for (const e of (await fleet.files.list(FLEET_FREEZES_DIR)) ?? []) {
    const m = /^(.+)\.yaml$/.exec(e.name);
    if (e.dir || m === null) continue;
    const text = await fleet.files.text(`${FLEET_FREEZES_DIR}/${e.name}`);
    if (text !== null) files.push({ name: m[1] as string, text });
  }
  return listFolderFreezes(fleet.repository, files, now);
}

/** The repository without kustomize: listing and ending read files only. */
async function view(repo: string): Promise<RepositoryView> {
  const root = resolve(repo);
  await requireDirectory(root, "repository");
  const files = new RepoFiles(root);
  return { files, repository: await readRepositoryFile(files) };
}

/**
 * Freezes every window of every cluster whose labels match the selector: one WindowOverride per
 * window, sharing one name, written as one change (nothing when anything is refused).
 *
 * @example await fleetFreeze({ repo: ".", selector: "region=eu", for: "48h", reason: "incident INC-7", windows: [], dryRun: true, env: process.env, now:
 * Date.now() })
 */
export async function fleetFreeze(options: FleetFreezeOptions): Promise<string> {
  if (options.selector === undefined)
    throw new RepositoryInputError(
      "give the clusters to freeze: --selector SELECTOR (Kubernetes label-selector syntax over the labels of fluxgate.yaml), e.g. --selector region=eu",
    );
  if (options.reason === undefined || options.reason.trim() === "")
    throw new RepositoryInputError('--reason is required: say why, e.g. --reason "incident INC-7 in region eu"');
  const reason = options.reason;
  // As the API takes a reason, before any cluster is rendered, named as the flag that gave it.
  inContext({ field: "--reason", as: RepositoryInputError }, () => parseWith(WindowOverrideSpecSchema.shape.reason, reason.trim()));
  const until = untilOf(options);
  const selector = options.selector;
  const repo = await view(options.repo);
  const folder = await repo.files.text(FLEET_FOLDER_FILE);
  if (folder !== null) {
    // The fleet folder: one file with the clusterSelector; no cluster is rendered, no cluster's file changes.
    const name = options.name;
    // The name is checked against fleet/freezes/ alone: no cluster's folder is read, whatever the fleet's size.
    const existing = name === undefined ? null : await repo.files.text(fleetFreezeFile(name));
    const read = (p: string): string | null => (p === FLEET_FOLDER_FILE ? folder : name !== undefined && p === fleetFreezeFile(name) ? existing : null);
    const plan = planFolderFreeze(repo.repository, read, selector, {
      name,
      action: "Freeze",
      until,
      reason: options.reason,
      windows: options.windows.length === 0 ? undefined : options.windows,
      now: options.now,
    });
    if (options.dryRun) return unifiedDiff(plan.changes);
    await writeChanges(repo.files.root, plan.changes);
    return `${summary(plan.changes).join("\n")}\nFleet freeze ${plan.name}: ${fleetFreezeFile(plan.name)}, for the ${plan.clusters.length} cluster${plan.clusters.length === 1 ? "" : "s"} its clusterSelector matches (${plan.clusters.map((c) => c.name).join(", ")}); commit and push to apply. End it everywhere with fluxgate fleet freeze end ${plan.name}.\n`;
  }
  return withFleet(options, async (fleet) => {
    const plan = await planFleetOverrideOn(fleet, selector, {
      name: options.name,
      action: "Freeze",
      until,
      reason: options.reason as string,
      windows: options.windows.length === 0 ? undefined : options.windows,
      now: options.now,
    });
    if (options.dryRun) return unifiedDiff(plan.changes);
    await writeChanges(fleet.files.root, plan.changes);
    const clusters = [...new Set(plan.overrides.map((o) => o.cluster))];
    return `${summary(plan.changes).join("\n")}\nFleet freeze ${plan.name}: ${plan.overrides.length} override${plan.overrides.length === 1 ? "" : "s"} on ${clusters.length} cluster${clusters.length === 1 ? "" : "s"} (${clusters.join(", ")}); commit and push to apply. End it everywhere with fluxgate fleet freeze end ${plan.name}.\n`;
  });
}

export interface FleetFreezeListOptions {
  repo: string;
  /** `--selector`: only the parts on the clusters whose labels match. */
  selector?: string | undefined;
  output: "table" | "json";
  now: number;
}

/** The fleet freezes (and fleet opens) of the repository, one line each. */
export async function fleetFreezeList(options: FleetFreezeListOptions): Promise<string> {
  const fleet = await view(options.repo);
  let listing = [...(await fleetOverridesOn(fleet, options.now)), ...(await folderFreezesOn(fleet, options.now))];
  if (options.selector !== undefined)
    listing = fleetOverridesOf(listing, new Set(selectClusters(fleet.repository, options.selector, "--selector", true).map((c) => c.name)));
  if (options.output === "json") return `${JSON.stringify({ fleetOverrides: listing }, null, 2)}\n`;
  if (listing.length === 0) return `No fleet freezes${options.selector === undefined ? "" : ` on clusters matching ${options.selector}`}.\n`;
  const rows = listing.map((l) => [l.name, l.action, l.until, l.stage, [...new Set(l.overrides.map((o) => o.cluster))].join(","), l.reason]);
  return `${table(["NAME", "ACTION", "UNTIL", "STAGE", "CLUSTERS", "REASON"], rows)}\n`;
}

export interface FleetFreezeEndOptions {
  repo: string;
  name: string;
  dryRun: boolean;
  now: number;
}

/** Ends a fleet freeze everywhere: removes its overrides from every cluster, as one change. */
export async function fleetFreezeEnd(options: FleetFreezeEndOptions): Promise<string> {
  const fleet = await view(options.repo);
  const read = async (paths: string[]): Promise<(p: string) => string | null> => {
    const texts = new Map<string, string | null>();
    for (const p of paths) texts.set(p, await fleet.files.text(p));
    return (p) => texts.get(p) ?? null;
  };
  const folderEnd = planFolderFreezeEnd(await read([FLEET_FOLDER_FILE, fleetFreezeFile(options.name)]), options.name);
  if (folderEnd !== null) {
    if (options.dryRun) return unifiedDiff(folderEnd);
    await writeChanges(fleet.files.root, folderEnd);
    return `${summary(folderEnd).join("\n")}\nFleet freeze ${options.name} ends on every cluster once this change is committed and pushed.\n`;
  }
  const { changes, listing } = await planFleetOverrideEndOn(fleet, options.name, options.now);
  if (options.dryRun) return unifiedDiff(changes);
  await writeChanges(fleet.files.root, changes);
  const clusters = [...new Set(listing.overrides.map((o) => o.cluster))];
  return `${summary(changes).join("\n")}\nFleet freeze ${options.name} ends on ${clusters.length} cluster${clusters.length === 1 ? "" : "s"} (${clusters.join(", ")}) once this change is committed and pushed.\n`;
}
