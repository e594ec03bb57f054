// `fluxgate open|freeze WINDOW`: break the glass or stop the line with a WindowOverride that has a reason and an end.

import { API_VERSION, MAX_REASON_LENGTH, OVERRIDE_REQUESTED_BY } from "../api/index.ts";
import { OVERRIDES, WINDOWS } from "../kube/resources.ts";
import { parseDuration, parseLocalDateTime } from "../schedule/index.ts";
import { inContext } from "../errors.ts";
import { OperationalError, UsageError } from "./errors.ts";
import { painter, stateStyle } from "./format/color.ts";
import { machine } from "./format/machine.ts";
import { rfc3339 } from "../schedule/format.ts";
import { at } from "./format/when.ts";
import { zoneOf, type OverrideObject, type WindowObject } from "./format/window.ts";
import { connect, create, get, getWindow, whoAmI, type Cluster, type ClusterFlags } from "./kube.ts";
import { OVERRIDE_LIMIT, overrideEndProblem, overrideName } from "../policy/index.ts";
import { CONTROLLER_NAMESPACE } from "../api/constants.ts";
import { READY } from "../api/conditions.ts";
import { kube, outputOf, str, type CommandIO, type CommandResult, type Values } from "./command.ts";

/** Runs `fluxgate open WINDOW` (its spec: specs.ts). */
export function runOpen(v: Values, positionals: string[], io: CommandIO): Promise<CommandResult> {
  return runOverride("Open", v, positionals, io);
}

/** Runs `fluxgate freeze WINDOW` (its spec: specs.ts). */
export function runFreeze(v: Values, positionals: string[], io: CommandIO): Promise<CommandResult> {
  return runOverride("Freeze", v, positionals, io);
}

/** Runs `fluxgate open` or `fluxgate freeze`. */
function runOverride(action: "Open" | "Freeze", v: Values, [window]: string[], io: CommandIO): Promise<CommandResult> {
  return openOrFreeze({
    ...kube(v),
    action,
    window: window as string,
    for: str(v.for),
    until: str(v.until),
    reason: str(v.reason),
    name: str(v.name),
    wait: v["no-wait"] !== true,
    output: outputOf(v.output, ["text", "json", "yaml"] as const, "text"),
    color: io.color,
    now: Date.now(),
  });
}

export interface OpenOptions extends ClusterFlags {
  action: "Open" | "Freeze";
  window: string;
  /** How long, as a Go duration (`2h`, `90m`, `5s`); or `until`. */
  for?: string | undefined;
  /** When it ends: RFC 3339, or a local date-time in the window's zone (`2026-11-23T18:00`). */
  until?: string | undefined;
  reason?: string | undefined;
  /** Name of the override; default `<window>-open-<UTC time>`. */
  name?: string | undefined;
  /** Wait until the controller took the override and the targets followed. */
  wait: boolean;
  output: "text" | "json" | "yaml";
  color: boolean;
  now: number;
  /** How long to wait for the controller (default 10 s). */
  waitTimeoutMs?: number;
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
const TOO_LONG = `${OVERRIDE_LIMIT}: for longer, change the window's schedule or freezes in Git`;

const verbs = { Open: { flag: "open", done: "Opened", ing: "opened" }, Freeze: { flag: "freeze", done: "Froze", ing: "frozen" } } as const;

/** Checks what needs no cluster: a reason, exactly one of --for and --until, a valid name. */
function checkFlags(o: OpenOptions): { forMs: number | undefined } {
  const verb = verbs[o.action];
  if (o.reason === undefined || o.reason.trim() === "") {
    throw new UsageError(`--reason is required: say why the window is ${verb.ing}, e.g. --reason "hotfix for INC-4711, approved by the on-call lead"`);
  }
  if (o.reason.length > MAX_REASON_LENGTH) throw new UsageError(`--reason: at most ${MAX_REASON_LENGTH} characters (this one has ${o.reason.length})`);
  if ((o.for === undefined) === (o.until === undefined)) {
    throw new UsageError(`give exactly one of --for DURATION (e.g. --for 2h) and --until TIME (e.g. --until 2026-11-23T18:00:00Z): an override always ends`);
  }
  if (o.name !== undefined && (o.name.length > 253 || !DNS_SUBDOMAIN.test(o.name))) {
    throw new UsageError(`--name ${o.name}: must be a Kubernetes name: lower-case letters, digits, "-" and ".", at most 253 characters`);
  }
  if (o.for === undefined) return { forMs: undefined };
  const text = o.for;
  const forMs = inContext({ field: "--for", separator: " ", as: UsageError }, () => parseDuration(text));
  if (overrideEndProblem(created(o.now) + forMs, o.now)?.problem === "too long") throw new UsageError(`--for ${o.for}: ${TOO_LONG}`);
  return { forMs };
}

/** The creation time the API server will record: `now` to the second. */
function created(now: number): number {
  return Math.floor(now / 1000) * 1000;
}

function untilOf(o: OpenOptions, forMs: number | undefined, window: WindowObject): number {
  let until: number;
  if (forMs !== undefined) {
    // Counted from the second the override's creation is recorded at, as the controller counts: it lasts exactly --for.
    until = created(o.now) + forMs;
  } else {
    const text = (o.until ?? "").trim();
    // RFC 3339 with an offset is an instant (fractions of a second dropped); anything else is local to the window.
    until = inContext({ field: "--until", separator: " ", as: UsageError }, () =>
      RFC3339.test(text) ? Math.floor(Date.parse(text) / 1000) * 1000 : parseLocalDateTime(text, zoneOf(window)),
    );
    if (Number.isNaN(until)) throw new UsageError(`--until ${text}: not a real date-time`);
  }
  const zone = zoneOf(window);
  const wrong = overrideEndProblem(until, o.now);
  if (wrong?.problem === "not in the future") throw new UsageError(`--until ${at(until, o.now, zone)} is not in the future`);
  if (wrong?.problem === "too long")
    throw new UsageError(`--until ${o.until ?? ""}: ${TOO_LONG}; that is until ${at(wrong.latest, o.now, zone)} at the latest`);
  return until;
}

/** Asks `probe` every 100 ms until it answers or the time is up; the last answer, or undefined. */
export async function poll<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined || Date.now() >= deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The window's state and targets in a line: `Overridden, 2/2 targets open (Opened by override ...)`. */
export function windowLine(w: WindowObject | undefined, color: boolean): string {
  const s = w?.status;
  if (s?.state === undefined) return "not reported yet";
  const targets = s.targets === undefined ? "" : `, ${s.targets.open}/${s.targets.matched} targets open`;
  return `${painter(color)(stateStyle(s.state), s.state)}${targets}${s.reason !== undefined ? ` (${s.reason})` : ""}`;
}

/**
 * Whether the window's targets, as the controller observed them, do what an override decides (all open, or none); with `open` null, whether they are reported
 * at all.
 */
export function targetsFollow(w: WindowObject | undefined, open: boolean | null): boolean {
  const t = w?.status?.targets;
  if (t === undefined) return false;
  return open === null ? true : open ? t.open === t.matched - t.conflicts : t.open === 0;
}

/** Waits until the window's targets follow an override that decides (all open, or none), or the time is up. */
export async function waitForTargets(
  c: Cluster,
  namespace: string,
  window: string,
  open: boolean | null,
  timeoutMs: number,
): Promise<WindowObject | undefined> {
  const settled = (w: WindowObject | undefined): boolean => targetsFollow(w, open);
  const last = { value: undefined as WindowObject | undefined };
  const done = await poll(async () => {
    last.value = await get<WindowObject>(c, WINDOWS, namespace, window);
    return settled(last.value) ? last.value : undefined;
  }, timeoutMs);
  return done ?? last.value;
}

function withoutManagedFields(o: OverrideObject): OverrideObject {
  const { managedFields: _managedFields, ...metadata } = o.metadata ?? {};
  return { ...o, metadata };
}

/**
 * Creates a WindowOverride that opens or freezes a window now, until a time at most 7 days ahead,
 * and waits until the controller took it.
 *
 * @example await openOrFreeze({ action: "Open", window: "weekday-changes", for: "2h", reason: "hotfix INC-42", namespace: "flux-system", wait: true, output:
 * "text", color: false, now: Date.now() })
 */
export async function openOrFreeze(options: OpenOptions): Promise<string> {
  const { forMs } = checkFlags(options);
  const c = connect(options);
  const namespace = c.namespace;
  const window = await getWindow<WindowObject>(c, namespace, options.window);
  const until = untilOf(options, forMs, window);
  const zone = zoneOf(window);
  const name = options.name ?? overrideName(options.window, options.action, options.now);
  const user = await whoAmI(c);
  const body: OverrideObject = {
    apiVersion: API_VERSION,
    kind: "WindowOverride",
    metadata: { name, namespace, ...(user !== undefined ? { annotations: { [OVERRIDE_REQUESTED_BY]: user } } : {}) },
    spec: { windowRef: { name: options.window }, action: options.action, until: rfc3339(until), reason: options.reason?.trim() ?? "" },
  };
  let created = await create<OverrideObject>(c, OVERRIDES, namespace, body);
  const verb = verbs[options.action];
  const lines = [
    `${verb.done} window ${options.window} in ${namespace} until ${at(until, options.now, zone)}: windowoverride/${name}`,
    `Reason: ${body.spec?.reason ?? ""}`,
  ];
  if (options.wait) {
    const timeout = options.waitTimeoutMs ?? 10_000;
    const taken = await poll(async () => {
      const o = await get<OverrideObject>(c, OVERRIDES, namespace, name);
      return o?.status?.phase !== undefined ? o : undefined;
    }, timeout);
    if (taken === undefined) {
      throw new OperationalError(
        `${lines.join("\n")}\nThe controller has not taken it within ${timeout / 1000}s: is it running? (kubectl -n ${CONTROLLER_NAMESPACE} get deploy fluxgate-controller)\nIt takes effect once the controller runs; to withdraw it: fluxgate overrides cancel ${name} -n ${namespace}`,
      );
    } else {
      created = taken;
      if (taken.status?.phase === "Invalid") {
        throw new OperationalError(
          `the controller rejected windowoverride/${name}: ${taken.status.message ?? ""}\nIt has no effect; delete it with: kubectl delete windowoverride ${name} -n ${namespace}`,
        );
      }
      const open = options.action === "Open";
      const w = await waitForTargets(c, namespace, options.window, open, timeout);
      lines.push(`Window ${options.window} now: ${windowLine(w, options.color)}`);
      if (!targetsFollow(w, open)) {
        // Observed, not intended: the override is in force, the targets do not do what it says.
        const ready = w?.status?.conditions?.find((x) => x.type === READY);
        const why =
          ready?.status === "False"
            ? `The controller reports ${ready.reason ?? ""}: ${ready.message ?? ""}`
            : "The controller reports no cause yet: see fluxgate explain for each target";
        throw new OperationalError(
          `${lines.join("\n")}\nThe targets do not follow the override within ${timeout / 1000}s. ${why}\nThe override stays in force until ${rfc3339(until)}; to withdraw it: fluxgate overrides cancel ${name} -n ${namespace}`,
        );
      }
    }
  }
  lines.push(`It ends on its own. To end it sooner: fluxgate overrides cancel ${name} -n ${namespace}`);
  if (options.output !== "text") return machine(withoutManagedFields(created), options.output);
  return `${lines.join("\n")}\n`;
}
