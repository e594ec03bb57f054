// `fluxgate serve token add`: its usage, help and flags, and how it runs (the implementation is loaded only then).

import { str, type CommandResult, type CommandSpec, type Values } from "../command.ts";

export const spec: CommandSpec = {
  usage: "fluxgate serve token add --tokens-file F --name NAME --role viewer|editor|breakglass [--email E]",
  summary: "Add a token for the Config Service and print it once",
  help: `Creates a random token, stores only its SHA-256 hash in the tokens file (created with mode
0600 when missing; a running service reads it again within a second) and prints the token:
it is never shown again. NAME is the author of the commits made with it (email: --email, else
NAME@fluxgate.invalid). Roles: viewer reads; editor also changes windows and commits overrides;
breakglass reads and creates overrides, also directly in a cluster.

Examples:
  fluxgate serve token add --tokens-file tokens.yaml --name alice --role editor --email alice@example.com
  fluxgate serve token add --tokens-file tokens.yaml --name grafana --role viewer`,
  options: {
    "tokens-file": { type: "string" },
    name: { type: "string" },
    role: { type: "string" },
    email: { type: "string" },
  },
};

export async function run(v: Values): Promise<CommandResult> {
  const { tokenAdd } = await import("../serve.ts");
  return tokenAdd({ tokensFile: str(v["tokens-file"]), name: str(v.name), role: str(v.role), email: str(v.email), now: Date.now() });
}
