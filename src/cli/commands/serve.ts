// `fluxgate serve`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { list, str, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
  usage: "fluxgate serve [--repo PATH] [--host H] [--port P] [--tokens-file F] [--anonymous-read] [--cluster-context NAME=CONTEXT ...] [--kubeconfig F] [--sync-interval D] [--render-targets] [--cluster-keys F [--store URL|FILE] [--stale-after D]]",
  summary: "Serve the REST API and dashboard over a Git working copy",
  help: `Serves the Config Service: the REST API (/api/v1, OpenAPI at /openapi.json, docs at /docs)
and the dashboard (/) over the Git working copy --repo, laid out as "fluxgate init" does. Every
write is one commit, authored by the token's holder and pushed to origin when there is one.
Callers need a bearer token from --tokens-file (add them with "fluxgate serve token add");
--anonymous-read lets anyone read. --cluster-context NAME=CONTEXT (repeatable) connects a
cluster of fluxgate.yaml to a kubeconfig context for live status and direct overrides.
--render-targets renders each cluster with kustomize (as "fluxgate check" does), so that Flux
objects a kustomize base declares get per-target lanes too, not only those in the cluster's directory.
--cluster-keys F turns on the event receiver: clusters push their fluxgate events, signed with
their key (add one with "fluxgate serve cluster-key add"), through a Flux Provider of type
generic-hmac; the service keeps each cluster's last word in --store (a SQLite file, by default
status.db in the data directory, or a postgres:// URL shared by several replicas) and shows a
cluster silent for longer than --stale-after (default 15m) as stale.
Without --repo, serves an example fleet from the data directory and prints tokens for it.
See docs/config-service.md.

Examples:
  fluxgate serve
  fluxgate serve --repo ./fleet --tokens-file tokens.yaml --port 8080
  fluxgate serve --repo ./fleet --tokens-file tokens.yaml --cluster-context edge-berlin=kind-berlin
  fluxgate serve --repo ./fleet --tokens-file tokens.yaml --cluster-keys cluster-keys.yaml --store postgres://fluxgate@db/fluxgate`,
  options: {
    repo: { type: "string" },
    host: { type: "string" },
    port: { type: "string" },
    "tokens-file": { type: "string" },
    "anonymous-read": { type: "boolean" },
    "cluster-context": { type: "string", multiple: true },
    kubeconfig: { type: "string" },
    "sync-interval": { type: "string" },
    "render-targets": { type: "boolean" },
    "cluster-keys": { type: "string" },
    store: { type: "string" },
    "stale-after": { type: "string" },
  },
};

export async function run(v: Values): Promise<CommandResult> {
  const { serve, portOf } = await import("../serve.ts");
  return serve({
    repo: str(v.repo),
    host: str(v.host) ?? "127.0.0.1",
    port: portOf(str(v.port), 8080),
    tokensFile: str(v["tokens-file"]),
    anonymousRead: v["anonymous-read"] === true,
    clusterContexts: list(v["cluster-context"]),
    kubeconfig: str(v.kubeconfig),
    syncInterval: str(v["sync-interval"]) ?? "30s",
    renderTargets: v["render-targets"] === true,
    clusterKeys: str(v["cluster-keys"]),
    store: str(v.store),
    staleAfter: str(v["stale-after"]),
    env: process.env,
    now: Date.now(),
    print: (text) => process.stdout.write(text),
  });
}
