// `fluxgate release`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { ALL_NAMESPACES, KUBE, KUBE_HELP, OUTPUT, kube, outputOf, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
  usage: "fluxgate release --all [-n NS | -A] [--dry-run] [-o text|json|yaml]",
  summary: "Give back everything fluxgate holds on Flux objects, without its CRDs or controller",
  help: `The way out when fluxgate is gone but its effects are not (the CRDs deleted while the
controller was down, say): for every Flux kind the cluster serves (Kustomization, HelmRelease,
ImageUpdateAutomation, GitRepository, OCIRepository, HelmRepository, HelmChart, Bucket), each
object whose fields the field manager "fluxgate" owns gets them back by a server-side apply of an
empty object under that manager: spec.suspend fluxgate set goes away (the target resumes, unless
another manager also sets it) and so does the reconcile.fluxcd.io/requestedAt annotation. Gated
sources fluxgate created for Gate-mode windows (label fluxgate.io/window or
fluxgate.io/released-from) are kept, their spec untouched: their
ownerReference to the window is removed, so garbage collection cannot delete them, and the
targets that use them are listed, to point back at the upstream source. Needs no fluxgate CRD;
stop the controller first, or it takes the targets again. --dry-run lists what it would do and
changes nothing. -o json prints {"dryRun", "released": [{"kind", "namespace", "name", "fields",
"suspendBefore", "suspendAfter", "alsoSetBy"}], "gatedSources": [{"kind", "namespace", "name",
"window", "pinned", "ownerReferenceRemoved", "referencedBy"}], "notes"}.
${KUBE_HELP}
  -A, --all-namespaces     every namespace

Examples:
  fluxgate release --all -A --dry-run
  fluxgate release --all -A
  fluxgate release --all -n flux-system -o json`,
  options: { ...KUBE, ...ALL_NAMESPACES, all: { type: "boolean" }, "dry-run": { type: "boolean" }, output: OUTPUT },
};

export async function run(v: Values): Promise<CommandResult> {
  const { release } = await import("../release.ts");
  return release({
    ...kube(v),
    all: v.all === true,
    allNamespaces: v["all-namespaces"] === true,
    dryRun: v["dry-run"] === true,
    output: outputOf(v.output, ["text", "json", "yaml"] as const, "text"),
  });
}
