// `fluxgate split`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { list, str, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
  usage: "fluxgate split APP_DIR --type TYPE=KIND|FILE,... [--type ...] [--default TYPE] [--cluster NAME|PATH ...] [--kustomization NAME=PATH ...] [--source NAME] [--repo PATH] [--dry-run] [--kustomize PATH]",
  summary: "Split an application into one variant per type, and point each cluster at the right variant",
  help: `Moves the manifests of a kustomize directory (apps/<app>) into <app>-<type> variants next to
it: each object goes to the type of its fluxgate.io/type label, else of its file (--type
rt=config/*.yaml), else of its kind (--type rt=ConfigMap,Secret), else --default. Multi-document
files are cut by document; comments stay. Each variant gets the kustomization.yaml of the app
with the resources, patches and generators of its objects. Every kustomization.yaml that used
the app is rewritten: an entry directory of a type (the path of apps-<type>) lists that type's
variant, and the cluster's entries of the other types list theirs (with the patches of their
objects); any other kustomization lists all variants. --cluster rewrites only those clusters
(the app stays for the others). --kustomization and --source name entry points created with
flux create kustomization, as for check.
Before writing, every cluster is rendered with kustomize before and after the split (in a copy
of the repository): the objects must be the same, nothing lost, nothing twice; otherwise
nothing is written. --dry-run prints the diff and writes nothing.

Examples:
  fluxgate split apps/podinfo --type rt=ConfigMap,Secret --type rw=Deployment,Service --dry-run
  fluxgate split apps/podinfo --type rt=ConfigMap --default rw --cluster edge-berlin`,
  options: {
    type: { type: "string", multiple: true },
    default: { type: "string" },
    cluster: { type: "string", multiple: true },
    kustomization: { type: "string", multiple: true },
    source: { type: "string" },
    repo: { type: "string" },
    "dry-run": { type: "boolean" },
    kustomize: { type: "string" },
  },
  args: { min: 1, max: 1, names: "APP_DIR" },
};

export async function run(v: Values, [app]: string[]): Promise<CommandResult> {
  const { split } = await import("../split.ts");
  return split({
    app: app as string,
    types: list(v.type),
    fallback: str(v.default),
    clusters: list(v.cluster),
    kustomizations: list(v.kustomization),
    source: str(v.source),
    repo: str(v.repo),
    dryRun: v["dry-run"] === true,
    kustomize: str(v.kustomize),
    env: process.env,
  });
}
