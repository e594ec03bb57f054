// `fluxgate approve`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { str, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
  usage: 'fluxgate approve WINDOW --revision REV --reason "..." [-n NS] [--kubeconfig FILE] [--context NAME]',
  summary: "Promote one revision of a Gate-mode window outside its window",
  help: `Records on the window who approved which revision, why and when; the controller pins the
window's gated source to that revision once (even while the window is closed) and keeps the
record in status.gate.approved. REV is a Git commit (40 hex, or Flux's "main@sha1:<sha>") or an
OCI digest ("sha256:<hex>"). For a Suspend-mode window use "fluxgate open" instead.

Examples:
  fluxgate approve weekday-changes -n flux-system --revision main@sha1:3f2a9c1d0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a49 --reason "hotfix for INC-42"`,
  options: {
    revision: { type: "string" },
    reason: { type: "string" },
    namespace: { type: "string", short: "n" },
    kubeconfig: { type: "string" },
    context: { type: "string" },
  },
  args: { min: 1, max: 1, names: "WINDOW" },
};

export async function run(v: Values, args: string[]): Promise<CommandResult> {
  const { approve } = await import("../approve.ts");
  return approve({
    window: args[0] as string,
    revision: str(v.revision),
    reason: str(v.reason),
    namespace: str(v.namespace),
    kubeconfig: str(v.kubeconfig),
    context: str(v.context),
    now: Date.now(),
  });
}
