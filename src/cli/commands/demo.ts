// `fluxgate demo`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { str, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
  usage: "fluxgate demo [--ci] [--mode Suspend|Gate|both] [--keep]",
  summary: "Play the reconciliation-window story on a local cluster with the real Flux controllers",
  help: `Starts a local control plane (etcd, kube-apiserver, Flux's source- and kustomize-controller,
a Git server; built from Go modules on the first run, which needs Go and git),
installs fluxgate's CRDs, runs the controller in this process and plays the users' scenario:
nginx split into nginx-rt (a ConfigMap, real time) and nginx-rw (Deployment and Service, held
by a window that opens at the next whole minute for 30s). It prints a timeline: what was
committed, what Flux applied, what waits and until when, what fluxgate did and why. While the
window is closed it deletes the Deployment: in Suspend mode it stays deleted until the window
opens, in Gate mode Flux recreates it at the pinned revision. Suspend mode plays first, then
Gate mode. Everything is stopped and removed at the end and on Ctrl-C. See docs/demo.md.

Flags:
  --mode MODE   Suspend, Gate or both (default both)
  --ci          play once without a terminal: the timeline goes to stderr and one line per
                expectation ("ok  ..." or "FAIL ...") to stdout; exit 0 only if all held
  --keep        keep the cluster and the controller running after the story, until Ctrl-C

Examples:
  fluxgate demo
  fluxgate demo --mode Gate --keep
  fluxgate demo --ci`,
  options: {
    ci: { type: "boolean" },
    mode: { type: "string" },
    keep: { type: "boolean" },
  },
};

export async function run(v: Values): Promise<CommandResult> {
  const { demo } = await import("../demo.ts");
  return demo({
    ci: v.ci === true,
    mode: str(v.mode),
    keep: v.keep === true,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
}
