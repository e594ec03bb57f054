// Ending overrides in the clusters too (`?delivery=direct`): after the commit that removes them, each one is cancelled at once in every cluster the service has
// a context for.

import type { Context } from "hono";
import { rfc3339 } from "../../schedule/format.ts";
import { HttpError } from "./errors.ts";
import type { CancelResult } from "../status/live.ts";
import { authorize } from "./auth.ts";
import type { Env, Service } from "../service.ts";

/**
 * `?delivery=` of a DELETE that ends overrides: "git" (the default: Flux removes them when it applies
 * the commit) or "direct" (also cancelled in the clusters now; the deliver-directly permission).
 * An override delivered directly that Flux never took over is not removed by Flux: only a direct end stops it before its `until`.
 */
export function endDeliveryOf(c: Context<Env>): "git" | "direct" {
  const delivery = c.req.query("delivery");
  if (delivery === undefined || delivery === "git") return "git";
  if (delivery !== "direct") {
    throw new HttpError(400, `delivery: "git" or "direct", not ${JSON.stringify(delivery)}`, {
      problems: [{ path: "delivery", message: 'must be "git" or "direct"' }],
    });
  }
  authorize(c, "deliver-directly");
  return "direct";
}

/** What ending one override in its cluster did: cancelled, already cancelled, not there, no context for the cluster, or failed (with why). */
export interface DirectEnd {
  cluster: string;
  name: string;
  result: CancelResult | "no-context" | "failed";
  error?: string;
}

/**
 * Cancels each ended override in its cluster, one cluster after another, where the service has a
 * context. A cluster that fails is reported and the others go on: the commit stands, and Flux
 * removes what it took over from Git.
 */
export async function endDirectly(service: Service, ended: ReadonlyArray<{ cluster: string; name: string }>, by: string, commit: string): Promise<DirectEnd[]> {
  // Whole seconds, as the API server keeps times; rounded down, so it has ended by the time the controller reads it.
  const at = rfc3339(Math.floor(service.now() / 1000) * 1000);
  const out: DirectEnd[] = [];
  for (const { cluster, name } of ended) {
    const live = service.live;
    if (live === null || live.contextOf(cluster) === null) {
      out.push({ cluster, name, result: "no-context" });
      continue;
    }
    try {
      out.push({ cluster, name, result: await live.cancel(cluster, name, by, at) });
    } catch (e) {
      const error = `ended in Git as ${commit.slice(0, 12)}, but cancelling it in the cluster failed: ${e instanceof Error ? e.message : String(e)}`;
      service.log({ msg: "Direct end failed", level: "error", cluster, override: name, error });
      out.push({ cluster, name, result: "failed", error });
    }
  }
  return out;
}
