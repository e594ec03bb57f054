// `fluxgate init`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { str, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
  usage: "fluxgate init REPO (--cluster NAME [--path PATH] | --selector SELECTOR) [--types rt,rw] [--time-zone ZONE] [--status-url URL] [--dry-run]",
  summary: "Scaffold the window-enabled layout of a cluster in a GitOps repository",
  help: `Adds the cluster (and the types) to fluxgate.yaml, and writes what is missing of the layout
(docs/gitops.md): per type a Flux Kustomization apps-<type> in the cluster's directory and an
entry directory deploy/<cluster>/<type>; per window type a ReconciliationWindow in the
cluster's windows/ (a placeholder schedule to edit). Window types depend on the real-time
types. Files that exist are kept; running it again changes nothing.
--types lists the types: the first is real time and the others window types, unless a name
says :window or :realtime (default: rt,rw, or the types fluxgate.yaml has). --time-zone is the
zone of the cluster's windows (default UTC). --selector (Kubernetes label-selector syntax, e.g.
ring=prod) instead of --cluster sets up every cluster of fluxgate.yaml whose labels match, e.g.
after --types added a type. --status-url URL also writes the cluster's fluxgate-status.yaml: the
Provider (generic-hmac) and Alert that push its status, signed, to fluxgate serve at URL; the
Secret holding the key is only described in a comment (create it in the cluster; the key is
never in Git). --dry-run prints the unified diff and writes nothing.

Examples:
  fluxgate init . --cluster edge-berlin --time-zone Europe/Berlin
  fluxgate init . --cluster edge-paris --types rt,rw,nightly --dry-run
  fluxgate init . --selector ring=prod --types rt,rw,nightly
  fluxgate init . --cluster edge-berlin --status-url https://fluxgate.example.com`,
  options: {
    cluster: { type: "string" },
    selector: { type: "string", short: "l" },
    path: { type: "string" },
    types: { type: "string" },
    "time-zone": { type: "string" },
    "status-url": { type: "string" },
    "dry-run": { type: "boolean" },
  },
  args: { min: 1, max: 1, names: "REPO" },
};

export async function run(v: Values, [repo]: string[]): Promise<CommandResult> {
  const { init } = await import("../init.ts");
  return init({
    repo: repo as string,
    cluster: str(v.cluster),
    selector: str(v.selector),
    path: str(v.path),
    types: str(v.types),
    timeZone: str(v["time-zone"]),
    statusUrl: str(v["status-url"]),
    dryRun: v["dry-run"] === true,
  });
}
