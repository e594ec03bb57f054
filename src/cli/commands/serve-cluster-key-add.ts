// `fluxgate serve cluster-key add`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { str, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
  usage: "fluxgate serve cluster-key add --keys-file F --cluster NAME [--url URL] [--rotate]",
  summary: "Add the key a cluster signs its pushed events with, and print it once",
  help: `Creates a random key for cluster NAME, stores it in the keys file (created with mode 0600
when missing: the service needs the key itself to check signatures, so the file is a secret) and
prints it once, with the command that creates the cluster's Secret and the Provider (type
generic-hmac) and Alert to commit under the cluster's directory. --url is the address clusters
reach "fluxgate serve" at. --rotate replaces the cluster's key. A running "fluxgate serve
--cluster-keys F" reads the file again within a second. See docs/config-service.md.

Examples:
  fluxgate serve cluster-key add --keys-file cluster-keys.yaml --cluster edge-berlin --url https://fluxgate.example.com
  fluxgate serve cluster-key add --keys-file cluster-keys.yaml --cluster edge-berlin --rotate`,
  options: {
    "keys-file": { type: "string" },
    cluster: { type: "string" },
    url: { type: "string" },
    rotate: { type: "boolean" },
  },
};

export async function run(v: Values): Promise<CommandResult> {
  const { clusterKeyAdd } = await import("../serve.ts");
  return clusterKeyAdd({ keysFile: str(v["keys-file"]), cluster: str(v.cluster), url: str(v.url), rotate: v.rotate === true, now: Date.now() });
}
