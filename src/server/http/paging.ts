// One page of the fleet's clusters for a request: `?selector=` (Kubernetes label-selector syntax) and `?names=` filter, `?limit=&continue=` pages.

import type { Context } from "hono";
import { InputError, inContext } from "../../errors.ts";
import { matchesSelector, parseSelector, type LabelSelector } from "../../policy/index.ts";
import { HttpError } from "./errors.ts";
import type { ClusterModel, ClusterPage, Fleet } from "../model/model.ts";

/** The largest page a fleet read gives. */
export const MAX_PAGE = 500;

export type { ClusterPage } from "../model/model.ts";

/** The continue token of the page that starts at `offset` (opaque to callers: base64url of the offset). */
export function continueToken(offset: number): string {
  return Buffer.from(`o:${offset}`).toString("base64url");
}

function offsetOf(token: string): number {
  const m = /^o:(\d{1,9})$/.exec(Buffer.from(token, "base64url").toString("utf8"));
  if (m === null) {
    throw new HttpError(400, `continue=${token.slice(0, 40)}: not a continue token; send back the "continue" of the previous page unchanged`, {
      problems: [{ path: "continue", message: "is not a continue token" }],
    });
  }
  return Number(m[1]);
}

/** `?selector=` read, or null when none is given; 400 naming the fault of a bad selector. */
export function selectorQuery(c: Context): { text: string; selector: LabelSelector } | null {
  const text = c.req.query("selector");
  if (text === undefined) return null;
  return { text, selector: inContext({ field: "selector", as: InputError }, () => parseSelector(text, "selector")) };
}

/**
 * The clusters `?names=` lists (comma-separated, at most MAX_PAGE), in fluxgate.yaml's order; null
 * when it is not given. 400 naming a cluster that is not in fluxgate.yaml.
 */
function namedClusters(c: Context, clusters: readonly ClusterModel[]): Set<string> | null {
  const text = c.req.query("names");
  if (text === undefined) return null;
  const names = new Set(text.split(",").filter((n) => n !== ""));
  if (names.size === 0 || names.size > MAX_PAGE) {
    throw new HttpError(400, `names: give 1 to ${MAX_PAGE} cluster names, separated by commas`, {
      problems: [{ path: "names", message: `must name 1 to ${MAX_PAGE} clusters` }],
    });
  }
  const known = new Set(clusters.map((k) => k.entry.name));
  const unknown = [...names].filter((n) => !known.has(n));
  if (unknown.length > 0) {
    const listed = unknown
      .slice(0, 5)
      .map((n) => `"${n.slice(0, 80)}"`)
      .join(", ");
    throw new HttpError(
      400,
      `names: ${listed}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ""} ${unknown.length === 1 ? "is" : "are"} not in fluxgate.yaml`,
      { problems: [{ path: "names", message: "names a cluster that is not in fluxgate.yaml" }] },
    );
  }
  return names;
}

/**
 * The clusters whose fluxgate.yaml labels match `?selector=` (all when none is given) and that
 * `?names=` lists (when given); 400 naming the fault of a bad selector or an unknown name.
 */
export function selectedClusters(c: Context, fleet: Fleet): { clusters: ClusterModel[]; selector: string | null; named: boolean } {
  const names = namedClusters(c, fleet.clusters);
  const listed = names === null ? fleet.clusters : fleet.clusters.filter((k) => names.has(k.entry.name));
  const query = selectorQuery(c);
  if (query === null) return { clusters: listed, selector: null, named: names !== null };
  return { clusters: listed.filter((k) => matchesSelector(query.selector, k.entry.labels ?? {})), selector: query.text, named: names !== null };
}

/**
 * The page of clusters a request asks for: those `?selector=` matches (and `?names=` lists), in
 * fluxgate.yaml's order, `?limit=` of them (1 to 500; all when absent unless `defaultLimit` says
 * otherwise, and all that `?names=` lists) from where `?continue=` (the previous page's token) says.
 */
export function clusterPage(c: Context, fleet: Fleet, defaultLimit: number | null = null): ClusterPage {
  const { clusters, selector, named } = selectedClusters(c, fleet);
  const limitText = c.req.query("limit");
  let limit = named ? clusters.length : (defaultLimit ?? clusters.length);
  if (limitText !== undefined) {
    if (!/^\d{1,6}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > MAX_PAGE) {
      throw new HttpError(400, `limit=${limitText.slice(0, 20)}: give a whole number from 1 to ${MAX_PAGE}`, {
        problems: [{ path: "limit", message: `must be a whole number from 1 to ${MAX_PAGE}` }],
      });
    }
    limit = Number(limitText);
  }
  const token = c.req.query("continue");
  const offset = token === undefined || token === "" ? 0 : offsetOf(token);
  const page = clusters.slice(offset, offset + limit);
  const next = offset + limit < clusters.length ? continueToken(offset + limit) : null;
  return { clusters: page, total: clusters.length, continue: next, selector };
}

/** The default page of GET /fleet/clusters. */
export const FLEET_PAGE = 50;
