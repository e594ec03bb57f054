// `fluxgate completion bash|zsh|fish`: shell completion that asks fluxgate itself (`fluxgate __complete`) for commands, flags, and the cluster's windows.

import { kindNames } from "../api/kinds.ts";
import { UsageError } from "./errors.ts";
import type * as Resources from "../kube/resources.ts";
import type * as Format from "./format/window.ts";
import type { OverrideObject, WindowObject } from "./format/window.ts";
import type * as Kube from "./kube.ts";
import type { ClusterFlags } from "./kube.ts";
import type { CommandIO, CommandResult, Values } from "./command.ts";

/** Runs `fluxgate completion SHELL` (its spec: specs.ts). */
export function runCompletion(_v: Values, [shell]: string[]): Promise<CommandResult> {
  return completion(shell as string);
}

/** Runs `fluxgate __complete -- WORD...` (its spec: specs.ts), with every command's spec. */
export function runComplete(_v: Values, words: string[], io: CommandIO): Promise<CommandResult> {
  const commands = io.commands().filter(({ spec }) => spec.hidden !== true);
  return complete(
    words,
    commands.map(({ name, spec }) => ({ name, summary: spec.summary, usage: spec.usage, options: spec.options, args: spec.args })),
  );
}

/** What completion needs to know of a command (main.ts's table). */
export interface CompletionCommand {
  name: string;
  summary: string;
  usage: string;
  options: Readonly<Record<string, { type: "string" | "boolean"; short?: string }>>;
  args?: { min: number; max: number; names: string } | undefined;
}

export type Shell = "bash" | "zsh" | "fish";

const BASH = `# fluxgate completion for bash. Load it with:  source <(fluxgate completion bash)
# or save it as /etc/bash_completion.d/fluxgate. It asks "fluxgate __complete" for the words.
_fluxgate_complete() {
  local line
  COMPREPLY=()
  while IFS= read -r line; do
    COMPREPLY+=("\${line%%$'\\t'*}")
  done < <("\${COMP_WORDS[0]}" __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
  # "kustomization/" goes on with a name: no space after it.
  if [[ \${#COMPREPLY[@]} -eq 1 && \${COMPREPLY[0]} == */ ]]; then compopt -o nospace 2>/dev/null; fi
  return 0
}
complete -o default -F _fluxgate_complete fluxgate
`;

const ZSH = `#compdef fluxgate
# fluxgate completion for zsh. Load it with:  source <(fluxgate completion zsh)
# or save it as _fluxgate in a directory of $fpath. It asks "fluxgate __complete" for the words.
_fluxgate() {
  local -a lines described slash
  local line value
  lines=("\${(@f)$(\${words[1]} __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  for line in "\${lines[@]}"; do
    [[ -z $line ]] && continue
    value=\${line%%$'\\t'*}
    if [[ $value == */ ]]; then
      slash+=("$value")
    elif [[ $line == *$'\\t'* ]]; then
      described+=("\${value//:/\\\\:}:\${line#*$'\\t'}")
    else
      described+=("\${value//:/\\\\:}")
    fi
  done
  (( \${#slash} )) && compadd -S '' -- "\${slash[@]}"
  (( \${#described} )) && _describe -t values fluxgate described
  (( \${#slash} + \${#described} )) || _files
}
if [ "$funcstack[1]" = "_fluxgate" ]; then
  _fluxgate "$@"
else
  compdef _fluxgate fluxgate
fi
`;

const FISH = `# fluxgate completion for fish. Load it with:  fluxgate completion fish | source
# or save it as ~/.config/fish/completions/fluxgate.fish. It asks "fluxgate __complete" for the words.
function __fluxgate_complete
    set -l tokens (commandline -opc)
    set -l current (commandline -ct)
    set -l out ($tokens[1] __complete -- $tokens[2..-1] "$current" 2>/dev/null)
    if test (count $out) -gt 0
        printf '%s\\n' $out
    else
        __fish_complete_path "$current"
    end
end
complete -c fluxgate -f -a '(__fluxgate_complete)'
`;

/** The script that loads completion into a shell. */
export function completion(shell: string): Promise<string> {
  switch (shell) {
    case "bash":
      return Promise.resolve(BASH);
    case "zsh":
      return Promise.resolve(ZSH);
    case "fish":
      return Promise.resolve(FISH);
    default:
      return Promise.reject(new UsageError(`completion ${shell}: the shells are bash, zsh and fish`));
  }
}

/** Looks up names in the cluster; completion must never fail or hang, so errors give nothing. */
export interface ClusterNames {
  windows(flags: ClusterFlags, allNamespaces: boolean): Promise<Array<{ name: string; description: string }>>;
  overrides(flags: ClusterFlags): Promise<Array<{ name: string; description: string }>>;
  objects(flags: ClusterFlags, kind: string): Promise<string[]>;
  namespaces(flags: ClusterFlags): Promise<string[]>;
  contexts(flags: ClusterFlags): Promise<string[]>;
}

const LOOKUP_TIMEOUT_MS = 3_000;

async function quietly<T>(fn: () => Promise<T>, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), LOOKUP_TIMEOUT_MS);
    timer.unref();
  });
  try {
    return await Promise.race([fn(), timeout]);
  } catch {
    return fallback;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The cluster access completion needs, loaded only when a word asks the cluster: completing a
 * command or a flag must not load the Kubernetes client (a shell runs this on every TAB).
 */
async function cluster(): Promise<typeof Kube & typeof Resources & typeof Format> {
  const [kube, resources, format] = await Promise.all([import("./kube.ts"), import("../kube/resources.ts"), import("./format/window.ts")]);
  return { ...kube, ...resources, ...format };
}

/** Names from the cluster the words point at. */
export const clusterNames: ClusterNames = {
  windows: (flags, all) =>
    quietly(async () => {
      const { connect, list, nextChange, shownState, WINDOWS } = await cluster();
      const c = connect(flags);
      const now = Date.now();
      return (await list<WindowObject>(c, WINDOWS, all ? undefined : c.namespace)).map((w) => ({
        name: w.metadata?.name ?? "",
        description: `${shownState(w)}${w.status?.nextTransition !== undefined ? `, ${nextChange(w, now)}` : ""}`,
      }));
    }, []),
  overrides: (flags) =>
    quietly(async () => {
      const { connect, list, OVERRIDES } = await cluster();
      const c = connect(flags);
      return (await list<OverrideObject>(c, OVERRIDES, c.namespace)).map((o) => ({
        name: o.metadata?.name ?? "",
        description: `${o.spec?.action ?? ""} ${o.spec?.windowRef?.name ?? ""} until ${o.spec?.until ?? ""}${o.status?.phase !== undefined ? ` (${o.status.phase})` : ""}`,
      }));
    }, []),
  objects: (flags, kind) =>
    quietly(async () => {
      const { connect, list, resourceOfKind } = await cluster();
      const resource = resourceOfKind(kind);
      if (resource === undefined) return [];
      const c = connect(flags);
      return (await list(c, resource, c.namespace)).map((o) => o.metadata?.name ?? "");
    }, []),
  namespaces: (flags) =>
    quietly(async () => {
      const { connect } = await cluster();
      const c = connect(flags);
      const found = await c.connection.core.listNamespace();
      return found.items.map((n) => n.metadata?.name ?? "");
    }, []),
  contexts: async (flags) => {
    try {
      const { connect } = await cluster();
      return connect({ kubeconfig: flags.kubeconfig })
        .kubeConfig.getContexts()
        .map((c) => c.name);
    } catch {
      return [];
    }
  },
};

/** The kubectl flags among the words typed so far. */
function flagsOf(words: readonly string[]): { flags: ClusterFlags; allNamespaces: boolean } {
  const flags: ClusterFlags = {};
  let allNamespaces = false;
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    const [name, inline] = w.startsWith("--") && w.includes("=") ? [w.slice(0, w.indexOf("=")), w.slice(w.indexOf("=") + 1)] : [w, undefined];
    const value = inline ?? words[i + 1];
    if (name === "--kubeconfig") flags.kubeconfig = value;
    else if (name === "--context") flags.context = value;
    else if (name === "-n" || name === "--namespace") flags.namespace = value;
    else if (name === "-A" || name === "--all-namespaces") allNamespaces = true;
  }
  return { flags, allNamespaces };
}

function optionOf(command: CompletionCommand, word: string): { long: string; type: "string" | "boolean" } | undefined {
  if (word.startsWith("--")) {
    const long = word.slice(2);
    const o = command.options[long];
    return o === undefined ? undefined : { long, type: o.type };
  }
  if (/^-[A-Za-z]$/.test(word)) {
    const found = Object.entries(command.options).find(([, o]) => o.short === word.slice(1));
    return found === undefined ? undefined : { long: found[0], type: found[1].type };
  }
  return undefined;
}

/** Choices written as `a|b|c` in the usage after a flag or as an argument. */
function choices(text: string | undefined): string[] {
  const bare = (text ?? "").replace(/[[\]]/g, "");
  return /^[a-z][a-z0-9-]*(\|[a-z][a-z0-9-]*)+$/.test(bare) ? bare.split("|") : [];
}

type Candidate = string | { name: string; description: string };

/**
 * The candidates for the last of `words` (what the user is typing, possibly empty), one per line,
 * with a tab and a description where there is one.
 *
 * @example await complete(["sta"], commands) // "status\tShow each window's state, next change, targets and what waits\n"
 */
export async function complete(words: readonly string[], commands: readonly CompletionCommand[], names: ClusterNames = clusterNames): Promise<string> {
  const current = words[words.length - 1] ?? "";
  const before = words.slice(0, -1);
  const leading: string[] = [];
  for (const w of before) {
    if (w.startsWith("-")) break;
    leading.push(w);
  }
  const deeper = (typed: readonly string[]): Candidate[] =>
    commands.flatMap((c) => {
      const parts = c.name.split(" ");
      if (parts.length <= typed.length || parts.slice(0, typed.length).join(" ") !== typed.join(" ")) return [];
      const next = parts[typed.length] as string;
      return [parts.length === typed.length + 1 ? { name: next, description: c.summary } : next];
    });
  let command: CompletionCommand | undefined;
  for (let n = Math.min(3, leading.length); n > 0 && command === undefined; n--) {
    command = commands.find((c) => c.name === leading.slice(0, n).join(" "));
  }
  const out: Candidate[] = [];
  const below = current.startsWith("-") ? [] : deeper(leading);
  // A command with arguments of its own and sub-commands (freeze WINDOW, freeze import) is offered both, below.
  if (command === undefined || (below.length > 0 && (command.args?.names ?? "").trim() === "")) {
    out.push(...below);
  } else {
    const depth = command.name.split(" ").length;
    const rest = before.slice(depth);
    const previous = optionOf(command, rest[rest.length - 1] ?? "");
    const { flags, allNamespaces } = flagsOf(rest);
    if (previous?.type === "string" && !(rest[rest.length - 1] ?? "").includes("=")) {
      if (previous.long === "output") out.push(...choices(/-o ([a-z|]+)/.exec(command.usage)?.[1]));
      else if (previous.long === "namespace") out.push(...(await names.namespaces(flags)));
      else if (previous.long === "context") out.push(...(await names.contexts(flags)));
    } else if (current.startsWith("-")) {
      out.push(...Object.keys(command.options).map((o) => `--${o}`), "--help");
    } else {
      // Which argument this is: words that are neither flags nor their values.
      const positionals: string[] = [];
      for (let i = 0; i < rest.length; i++) {
        const w = rest[i] as string;
        const o = optionOf(command, w);
        if (o?.type === "string" && !w.includes("=")) i++;
        else if (!w.startsWith("-")) positionals.push(w);
      }
      const tokens = (command.args?.names ?? "").split(/\s+/).filter((t) => t !== "");
      const token = tokens[positionals.length]?.replace(/[[\]]/g, "");
      if (positionals.length === 0) out.push(...below);
      if (token === "WINDOW") out.push(...(await names.windows(flags, allNamespaces)));
      else if (token === "NAME" && command.name === "overrides" && positionals[0] === "cancel") out.push(...(await names.overrides(flags)));
      else if (token === "KIND/NAME") {
        if (current.includes("/")) {
          const kind = current.slice(0, current.indexOf("/"));
          out.push(...(await names.objects(flags, kind)).map((n) => `${kind}/${n}`));
        } else {
          // The kinds table alone (api/kinds.ts imports nothing): no Kubernetes client is loaded to list them.
          out.push(...kindNames().map((k) => `${k}/`));
        }
      } else out.push(...choices(token));
    }
  }
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const c of out) {
    const name = typeof c === "string" ? c : c.name;
    if (name === "" || !name.startsWith(current) || seen.has(name)) continue;
    seen.add(name);
    lines.push(typeof c === "string" || c.description === "" ? name : `${name}\t${c.description}`);
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}
