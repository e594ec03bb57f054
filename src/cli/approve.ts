// `fluxgate approve`: promote one revision of a Gate-mode window outside its window, with a reason, recorded on the window.

import { WINDOWS } from "../kube/resources.ts";
import { OperationalError, UsageError } from "./errors.ts";
import { rfc3339 } from "../schedule/format.ts";
import { PATCH } from "../kube/connection.ts";
import { statusCodeOf } from "../kube/errors.ts";
import type { KubernetesObject } from "../kube/types.ts";
import { connect, getWindow, whoAmI, type ClusterFlags } from "./kube.ts";
import { APPROVED_AT, APPROVED_BY, APPROVE_REASON, APPROVE_REVISION } from "../api/constants.ts";
import { revisionId } from "../policy/index.ts";
import { str, type CommandResult, type Values } from "./command.ts";

/** Runs `fluxgate approve WINDOW` (its spec: specs.ts). */
export function runApprove(v: Values, args: string[]): Promise<CommandResult> {
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

export interface ApproveOptions extends ClusterFlags {
  window: string;
  /** A commit (Git) or digest (OCI), bare or as Flux writes revisions ("main@sha1:…"). */
  revision: string | undefined;
  reason: string | undefined;
  now: number;
}

interface GateWindow extends KubernetesObject {
  spec?: { mode?: string; gate?: { upstream?: { kind?: string; name?: string }; gatedName?: string } };
}

/** Records an approval on the window; the controller pins the revision once and reports it in status.gate.approved. */
export async function approve(o: ApproveOptions): Promise<string> {
  if (o.revision === undefined || o.revision.trim() === "")
    throw new UsageError("--revision is required: the commit or digest to promote, e.g. --revision main@sha1:1a2b3c…");
  if (o.reason === undefined || o.reason.trim() === "")
    throw new UsageError('--reason is required: say why this revision may go out now, e.g. --reason "hotfix for INC-42"');
  const c = connect(o);
  const namespace = c.namespace;
  const window = await getWindow<GateWindow>(c, namespace, o.window);
  if (window.spec?.mode !== "Gate") {
    throw new UsageError(
      `window "${o.window}" is in Suspend mode: approve promotes a revision of a Gate-mode window.\nTo let changes through now, open it: fluxgate open ${o.window} --for 1h --reason "..."`,
    );
  }
  const kind = window.spec.gate?.upstream?.kind ?? "GitRepository";
  if (revisionId(kind, o.revision) === undefined) {
    throw new UsageError(
      kind === "OCIRepository"
        ? `--revision ${o.revision}: not an OCI digest; give "sha256:<64 hex>" or "<tag>@sha256:<64 hex>"`
        : `--revision ${o.revision}: not a Git commit; give the full 40-character SHA, or Flux's "<branch>@sha1:<sha>"`,
    );
  }
  const by = (await whoAmI(c)) ?? "unknown";
  const at = rfc3339(o.now);
  const { group, version, plural } = WINDOWS;
  try {
    await c.connection.custom.patchNamespacedCustomObject(
      {
        group,
        version,
        plural,
        namespace,
        name: o.window,
        body: { metadata: { annotations: { [APPROVE_REVISION]: o.revision, [APPROVE_REASON]: o.reason, [APPROVED_BY]: by, [APPROVED_AT]: at } } },
      },
      PATCH.merge,
    );
  } catch (e) {
    const code = statusCodeOf(e);
    if (code === 403)
      throw new OperationalError(`not allowed to patch reconciliationwindows.fluxgate.io in ${namespace}: ask for the verb "patch" on that resource`, {
        cause: e,
      });
    throw new OperationalError(`could not record the approval on window ${namespace}/${o.window}: ${(e as Error).message}`, { cause: e });
  }
  return `Approved ${o.revision} for window ${namespace}/${o.window} (by ${by} at ${at}: ${o.reason}).\nThe controller pins ${window.spec.gate?.gatedName ?? "the gated source"} to it; see status.gate.approved.\n`;
}
